import type { ConfigIssue } from '../../errors.js';

/**
 * Collects option problems with exact messages (in the manner of got and p-queue:
 * "Expected `intervalCap` to be a number from 1 and up, got `0`"), so one
 * ConfigError can list them all.
 */
export class OptionChecker {
  readonly issues: ConfigIssue[] = [];

  /** An optional number in [min, max] (integer when asked). */
  number(path: string, value: unknown, min: number, options: { max?: number; integer?: boolean } = {}): void {
    if (value === undefined) return;
    const ok =
      typeof value === 'number' &&
      Number.isFinite(value) &&
      value >= min &&
      (options.max === undefined || value <= options.max) &&
      (!options.integer || Number.isInteger(value));
    if (ok) return;
    const kind = options.integer ? 'a whole number' : 'a number';
    const range = options.max === undefined ? `from ${min} and up` : `from ${min} to ${options.max}`;
    this.issues.push({ path, message: `Expected \`${path}\` to be ${kind} ${range}, got \`${String(value)}\`` });
  }

  add(path: string, message: string): void {
    this.issues.push({ path, message });
  }
}
