import { idFor } from '../model/ids.js';
import type { CustomField, CustomFieldType, Inbox } from '../model/model.js';
import { SEED_END_MS } from './seed-window.js';

interface FieldPlan {
  name: string;
  key: string;
  type: CustomFieldType;
  options?: string[];
  default_value: string | boolean | number | null;
}

const FIELDS: FieldPlan[] = [
  { name: 'Order number', key: 'order_number', type: 'text', default_value: null },
  { name: 'Plan', key: 'plan', type: 'dropdown', options: ['Free', 'Pro', 'Enterprise'], default_value: 'Free' },
  { name: 'VIP', key: 'vip', type: 'toggle', default_value: false },
  { name: 'Seats', key: 'seats', type: 'number', default_value: 1 },
  { name: 'Internal notes', key: 'internal_notes', type: 'textarea', default_value: null },
];

/** "Readable" creation time, e.g. "3 Oct 2025" (the format is the sandbox's choice). */
export function readableDate(iso: string): string {
  const d = new Date(iso);
  const month = d.toLocaleString('en-GB', { month: 'short', timeZone: 'UTC' });
  return `${d.getUTCDate()} ${month} ${d.getUTCFullYear()}`;
}

/** The same five fields on every inbox, one of each type the API document names. */
export function buildCustomFields(seed: number, inbox: Inbox, first: number): CustomField[] {
  return FIELDS.map((plan, k) => {
    const index = first + k;
    const created = new Date(SEED_END_MS - (400 - k) * 86_400_000).toISOString();
    return {
      id: idFor(seed, 'custom-field', index),
      inbox_id: inbox.id,
      name: plan.name,
      key: plan.key,
      description: `${plan.name} of the customer`,
      type: plan.type,
      default_value: plan.default_value,
      is_required: false,
      is_active: true,
      order: k + 1,
      extra: {},
      options: (plan.options ?? []).map((value, o) => ({
        id: idFor(seed, 'custom-field-option', index * 16 + o),
        value,
      })),
      conditions: [],
      created_at: created,
      readable_created_at: readableDate(created),
    };
  });
}
