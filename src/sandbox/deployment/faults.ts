import { hash32, Rng } from '../model/random.js';

export type FaultKind = '500' | 'reset' | 'slow' | '429';

export interface FaultRule {
  kind: FaultKind;
  probability: number;
  /** slow: delay in ms (default 2000); 429: Retry-After in seconds (default 1). */
  param: number;
}

const DEFAULT_PARAM: Record<FaultKind, number> = { '500': 0, reset: 0, slow: 2000, '429': 1 };

export class FaultSpecError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FaultSpecError';
  }
}

/**
 * Parses `kind:probability[:param]` items separated by commas, e.g.
 * `500:0.05,reset:0.02,slow:0.05:2000,429:0.02`. Probabilities are in [0, 1]
 * and must not add up to more than 1: one draw per request picks at most one fault.
 */
export function parseFaults(spec: string | undefined): FaultRule[] {
  if (spec === undefined || spec.trim() === '') return [];
  const rules: FaultRule[] = [];
  for (const item of spec.split(',').map((s) => s.trim())) {
    const [kind, probability, param, ...rest] = item.split(':');
    if (!kind || !(kind in DEFAULT_PARAM)) {
      throw new FaultSpecError(`fault "${item}": kind must be one of 500, reset, slow, 429`);
    }
    const p = Number(probability);
    if (probability === undefined || probability === '' || !Number.isFinite(p) || p < 0 || p > 1) {
      throw new FaultSpecError(`fault "${item}": probability must be a number from 0 to 1`);
    }
    if (rest.length > 0 || (param !== undefined && (kind === '500' || kind === 'reset'))) {
      throw new FaultSpecError(
        `fault "${item}": too many parts (kind:probability[:param]; only slow and 429 take a param)`,
      );
    }
    const value = param === undefined ? DEFAULT_PARAM[kind as FaultKind] : Number(param);
    if (!Number.isInteger(value) || value < 0 || (kind === '429' && value < 1)) {
      throw new FaultSpecError(
        `fault "${item}": param must be a whole number${kind === '429' ? ' from 1 up' : ' from 0 up'}`,
      );
    }
    rules.push({ kind: kind as FaultKind, probability: p, param: value });
  }
  const sum = rules.reduce((a, r) => a + r.probability, 0);
  if (sum > 1 + 1e-9) throw new FaultSpecError(`fault probabilities add up to ${sum}, more than 1`);
  return rules;
}

/** Draws at most one fault per request from a PRNG seeded by the sandbox seed: same seed, same requests, same faults. */
export class FaultInjector {
  private readonly rng: Rng;

  constructor(
    readonly rules: FaultRule[],
    seed: number,
  ) {
    this.rng = new Rng(hash32(seed, 'faults'));
  }

  draw(): FaultRule | undefined {
    if (this.rules.length === 0) return undefined;
    const u = this.rng.next();
    let acc = 0;
    for (const rule of this.rules) {
      acc += rule.probability;
      if (u < acc) return rule;
    }
    return undefined;
  }
}
