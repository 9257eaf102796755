import type { CustomField } from '../model/model.js';
import type { Rng } from '../model/random.js';

/** Seeded values for some of the inbox's custom fields, keyed by field key (API document: "key to value map"). */
export function seedCustomFieldValues(rng: Rng, fields: CustomField[]): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const field of fields) {
    if (!rng.chance(0.5)) continue;
    if (field.type === 'text') values[field.key] = `ORD-${rng.int(10000, 99999)}`;
    else if (field.type === 'dropdown' && field.options.length > 0) values[field.key] = rng.pick(field.options).value;
    else if (field.type === 'toggle') values[field.key] = rng.chance(0.2);
    else if (field.type === 'number') values[field.key] = rng.int(1, 50);
  }
  return values;
}
