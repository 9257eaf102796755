/** Collects validation messages keyed by field path, for the API's 422 body (see Errors). */
export class FieldErrors {
  readonly errors: Record<string, string[]> = {};

  add(field: string, message: string): void {
    const list = this.errors[field] ?? [];
    list.push(message);
    this.errors[field] = list;
  }

  get empty(): boolean {
    return Object.keys(this.errors).length === 0;
  }

  /** `{message, errors}` exactly as the API document's 422 row shows. */
  body(): { message: string; errors: Record<string, string[]> } {
    return { message: 'The given data was invalid.', errors: this.errors };
  }
}

export const UNKNOWN_FIELD = 'The field is not recognized.';

/** Reports every key of `body` that is not in `allowed` as unknown. */
export function rejectUnknownKeys(
  body: Record<string, unknown>,
  allowed: readonly string[],
  errors: FieldErrors,
  prefix = '',
): void {
  for (const key of Object.keys(body)) {
    if (!allowed.includes(key)) errors.add(`${prefix}${key}`, UNKNOWN_FIELD);
  }
}

/** A real calendar date written `YYYY-MM-DD` (2027-02-30 is not one). */
export function isRealDate(value: unknown): value is string {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const d = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === value;
}

/** 24-hour `HH:MM`, 00:00 to 23:59 (API document, Business-hours profile). */
export function isHhMm(value: unknown): value is string {
  return typeof value === 'string' && /^([01]\d|2[0-3]):[0-5]\d$/.test(value);
}
