import { isPlainObject } from '../protocol/validate.js';
import { FieldErrors, isRealDate, rejectUnknownKeys } from './field-errors.js';
import type { StoredHoliday } from './hours-model.js';

export interface HolidayFields {
  name: string;
  start_date: string;
  end_date: string;
}

export type HolidayValidation = { ok: true; fields: HolidayFields } | { ok: false; errors: FieldErrors };

const HOLIDAY_KEYS = ['name', 'start_date', 'end_date'] as const;

/**
 * Validates a POST (no `existing`) or PATCH body. PATCH accepts either date
 * alone and checks it against the stored other date, reporting a range
 * violation under end_date (API document, Endpoints, Other operations).
 * `status` is read-only: sending it is a 422 (sandbox choice, see docs/sandbox.md).
 */
export function validateHolidayBody(body: unknown, existing?: StoredHoliday): HolidayValidation {
  const errors = new FieldErrors();
  if (!isPlainObject(body)) {
    errors.add('body', 'The request body must be a JSON object.');
    return { ok: false, errors };
  }
  for (const key of Object.keys(body)) {
    if (key === 'status') errors.add('status', 'The status is read-only: it follows from the dates.');
  }
  rejectUnknownKeys(Object.fromEntries(Object.entries(body).filter(([k]) => k !== 'status')), HOLIDAY_KEYS, errors);
  // PATCH: an explicit null is ignored like an omitted key (the business-hours rule, applied here too).
  const given = (key: (typeof HOLIDAY_KEYS)[number]) => body[key] !== undefined && body[key] !== null;

  let name = existing?.name;
  if (given('name')) {
    if (typeof body.name !== 'string' || body.name.trim() === '')
      errors.add('name', 'The name must be a non-empty string.');
    else if (body.name.length > 255) errors.add('name', 'The name may not be greater than 255 characters.');
    else name = body.name;
  } else if (!existing) errors.add('name', 'The name field is required.');

  const date = (key: 'start_date' | 'end_date'): string | undefined => {
    if (!given(key)) {
      if (!existing) errors.add(key, `The ${key.replace('_', ' ')} field is required.`);
      return existing?.[key];
    }
    if (isRealDate(body[key])) return body[key] as string;
    errors.add(key, `The ${key.replace('_', ' ')} must be a real date written YYYY-MM-DD.`);
    return undefined;
  };
  const start = date('start_date');
  const end = date('end_date');
  if (start !== undefined && end !== undefined && end < start) {
    errors.add('end_date', 'The end date must be a date after or equal to the start date.');
  }
  if (!errors.empty || name === undefined || start === undefined || end === undefined) return { ok: false, errors };
  return { ok: true, fields: { name, start_date: start, end_date: end } };
}
