import { invalid } from './errors.js';

export const UNKNOWN_FIELD = 'The field is not recognized.';

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

export function isEmail(value: unknown): value is string {
  return typeof value === 'string' && value.length <= 254 && EMAIL.test(value);
}

export function isDateTime(value: unknown): value is string {
  return typeof value === 'string' && ISO_DATE_TIME.test(value) && !Number.isNaN(Date.parse(value));
}

/**
 * Reads a JSON body field by field, collecting every problem, so one 422 lists
 * them all. A field the endpoint does not know is a validation error (API
 * document, Errors rule 1 and the 422 row: "unknown or invalid field").
 */
export class BodyReader {
  readonly errors: Record<string, string[]> = {};
  readonly body: Record<string, unknown>;

  constructor(body: unknown, allowed: readonly string[], options: { required?: boolean } = {}) {
    if (body === undefined || body === null) {
      this.body = {};
      if (options.required) this.add('body', 'A JSON body is required.');
    } else if (!isPlainObject(body)) {
      this.body = {};
      this.add('body', 'The request body must be a JSON object.');
    } else {
      this.body = body;
      for (const key of Object.keys(body)) if (!allowed.includes(key)) this.add(key, UNKNOWN_FIELD);
    }
  }

  add(field: string, message: string): void {
    const list = this.errors[field] ?? [];
    list.push(message);
    this.errors[field] = list;
  }

  has(field: string): boolean {
    return Object.hasOwn(this.body, field);
  }

  /** Required when `required`; otherwise undefined when absent. */
  string(
    field: string,
    opts: { required?: boolean; max?: number; nullable?: boolean } = {},
  ): string | null | undefined {
    const value = this.body[field];
    if (value === undefined || (value === null && !opts.nullable)) {
      if (opts.required || value === null) this.add(field, `The ${field} field is required.`);
      return undefined;
    }
    if (value === null) return null;
    if (typeof value !== 'string') return this.fail(field, `The ${field} field must be a string.`);
    if (opts.required && value.trim() === '') return this.fail(field, `The ${field} field is required.`);
    if (opts.max !== undefined && value.length > opts.max) {
      return this.fail(field, `The ${field} field must not be greater than ${opts.max} characters.`);
    }
    return value;
  }

  boolean(field: string): boolean | undefined {
    const value = this.body[field];
    if (value === undefined) return undefined;
    if (typeof value !== 'boolean') return this.fail(field, `The ${field} field must be true or false.`);
    return value;
  }

  stringArray(field: string, opts: { required?: boolean; email?: boolean } = {}): string[] | undefined {
    const value = this.body[field];
    if (value === undefined) {
      if (opts.required) this.add(field, `The ${field} field is required.`);
      return undefined;
    }
    if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
      return this.fail(field, `The ${field} field must be an array of strings.`);
    }
    if (opts.email && value.some((v) => !isEmail(v))) {
      return this.fail(field, `The ${field} field must contain valid email addresses.`);
    }
    return value as string[];
  }

  oneOf<T extends string>(field: string, values: readonly T[], opts: { required?: boolean } = {}): T | undefined {
    const value = this.body[field];
    if (value === undefined) {
      if (opts.required) this.add(field, `The ${field} field is required.`);
      return undefined;
    }
    if (!values.includes(value as T)) return this.fail(field, `The selected ${field} is invalid.`);
    return value as T;
  }

  fail(field: string, message: string): undefined {
    this.add(field, message);
    return undefined;
  }

  /** Throws the 422 when anything was wrong. */
  done(): void {
    if (Object.keys(this.errors).length > 0) throw invalid(this.errors);
  }
}
