import type { CustomField } from '../model/model.js';
import { invalid } from '../protocol/errors.js';
import { isPlainObject } from '../protocol/validate.js';

const MAX_TEXT = { text: 250, textarea: 5000 } as const;

/** What is wrong with `value` for this field, or undefined when it fits (null always fits). */
export function checkCustomFieldValue(field: CustomField, value: unknown): string | undefined {
  if (value === null) return undefined;
  switch (field.type) {
    case 'text':
    case 'textarea':
      if (typeof value !== 'string') return 'must be a string';
      return value.length > MAX_TEXT[field.type]
        ? `must not be longer than ${MAX_TEXT[field.type]} characters`
        : undefined;
    case 'dropdown':
      return field.options.some((o) => o.value === value) ? undefined : 'must be one of the field options';
    case 'toggle':
      return typeof value === 'boolean' ? undefined : 'must be true or false';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? undefined : 'must be a number';
  }
}

/**
 * PATCH …/custom-fields: a flat map of field key to value (API document,
 * Endpoints). Keys must be active fields of the conversation's inbox; values
 * must fit the field type; null removes the value.
 */
export function validateFieldValues(body: unknown, fields: CustomField[]): Record<string, unknown> {
  if (!isPlainObject(body) || Object.keys(body).length === 0) {
    throw invalid({ body: ['Send a flat object of custom-field key to value.'] });
  }
  const errors: Record<string, string[]> = {};
  for (const [key, value] of Object.entries(body)) {
    const field = fields.find((f) => f.key === key);
    if (!field) errors[key] = ['The field is not recognized.'];
    else if (!field.is_active) errors[key] = ['The custom field is not active.'];
    else {
      const problem = checkCustomFieldValue(field, value);
      if (problem) errors[key] = [`The ${key} value ${problem}.`];
    }
  }
  if (Object.keys(errors).length > 0) throw invalid(errors);
  return body;
}
