import type { FastifyInstance } from 'fastify';
import type { CustomField } from '../model/model.js';
import { notFound } from '../protocol/errors.js';
import { BodyReader, isPlainObject } from '../protocol/validate.js';
import { callerOf } from '../requests/auth.js';
import type { SandboxStore } from '../store/sandbox-store.js';
import { customFieldWire } from '../store/wire.js';
import { checkCustomFieldValue } from './custom-field-values.js';
import type { RouteContext } from './route-context.js';

type FieldRequest = { Params: { inbox_id: string; custom_field_id: string } };

const FIELDS = ['description', 'is_required', 'is_active', 'default_value', 'options', 'name', 'type'];
/** "One string field in the body is limited to 250 characters" (API document, Limits): the description. */
const MAX_DESCRIPTION = 250;

/** options: `{id: null, value}` creates an option, `{id, value}` renames an existing one; others are kept. */
function mergeOptions(store: SandboxStore, field: CustomField, raw: unknown, body: BodyReader) {
  if (field.type !== 'dropdown') return body.fail('options', 'Only dropdown fields have options.');
  if (!Array.isArray(raw)) return body.fail('options', 'The options field must be an array.');
  const options = field.options.map((o) => ({ ...o }));
  for (const item of raw) {
    const ok =
      isPlainObject(item) && (item.id === null || typeof item.id === 'string') && typeof item.value === 'string';
    if (!ok || item.value === '' || (item.value as string).length > MAX_DESCRIPTION) {
      return body.fail('options', 'Each option is {id: string|null, value: non-empty string}.');
    }
    if (item.id === null) options.push({ id: store.newId('custom-field-option'), value: item.value as string });
    else {
      const existing = options.find((o) => o.id === item.id);
      if (!existing) return body.fail('options', `The option ${String(item.id)} does not exist.`);
      existing.value = item.value as string;
    }
  }
  return options;
}

/**
 * PATCH and DELETE /inboxes/:inbox_id/custom-fields/:custom_field_id, both PAT
 * only. name and type are immutable: sending a different value is a 422; the
 * description is limited to 250 characters; default_value must match the type.
 */
export function registerCustomFieldRoutes(app: FastifyInstance, { store }: RouteContext): void {
  const path = '/inboxes/:inbox_id/custom-fields/:custom_field_id';
  const find = (request: { params: FieldRequest['Params'] } & Parameters<typeof callerOf>[0]) => {
    const { inbox_id, custom_field_id } = request.params;
    const field = store.customField(callerOf(request).organization.id, inbox_id, custom_field_id);
    if (!field) throw notFound();
    return field;
  };

  app.patch<FieldRequest>(path, { config: { patOnly: true } }, async (request) => {
    const field = find(request);
    const body = new BodyReader(request.body, FIELDS, { required: true });
    if (body.has('name') && body.body.name !== field.name)
      body.add('name', 'The name of a custom field cannot be changed.');
    if (body.has('type') && body.body.type !== field.type)
      body.add('type', 'The type of a custom field cannot be changed.');
    const description = body.string('description', { max: MAX_DESCRIPTION });
    const isRequired = body.boolean('is_required');
    const isActive = body.boolean('is_active');
    const options = body.has('options') ? mergeOptions(store, field, body.body.options, body) : undefined;
    if (body.has('default_value')) {
      const problem = checkCustomFieldValue({ ...field, options: options ?? field.options }, body.body.default_value);
      if (problem) body.add('default_value', `The default value ${problem}.`);
    }
    body.done();
    if (typeof description === 'string') field.description = description;
    if (isRequired !== undefined) field.is_required = isRequired;
    if (isActive !== undefined) field.is_active = isActive;
    if (options) field.options = options;
    if (body.has('default_value')) field.default_value = body.body.default_value as CustomField['default_value'];
    return { message: 'Custom field updated.', data: customFieldWire(field) };
  });

  app.delete<FieldRequest>(path, { config: { patOnly: true } }, async (request) => {
    const field = find(request);
    // Values under the field's key disappear from conversations with it.
    store.world.customFields.splice(store.world.customFields.indexOf(field), 1);
    return { message: 'Custom field deleted.' };
  });
}
