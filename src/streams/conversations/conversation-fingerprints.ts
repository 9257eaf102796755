import type { ApiObject } from '../../api/index.js';
import { isPlainObject } from '../../plain-object.js';
import { fingerprint } from '../fingerprint.js';

/**
 * What decides whether a listed conversation changed, and whether its thread
 * must be read: two fingerprints of the list item, and the rule that cuts the
 * query strings of signed URLs (they change on every read, docs/streams.md).
 */

/**
 * Config `conversations.*` as the scan reads it, built once per scan: fields
 * that move on a mere view, and fields that hold signed URLs.
 */
export interface ViewFields {
  readonly viewOnly: readonly string[];
  readonly signedUrls: ReadonlySet<string>;
}

export function viewFields(config: {
  view_only_fields: readonly string[];
  signed_url_fields: readonly string[];
}): ViewFields {
  return { viewOnly: config.view_only_fields, signedUrls: new Set(config.signed_url_fields) };
}

/**
 * The fingerprint of a conversation list item: a hash of the whole item, so it
 * moves with updated_at, messages_count, last_message_created_at, status and
 * any other field (docs/streams.md). The embedded contact counts only by its id:
 * a contact edit changes the contacts table, not the conversation row, and
 * must not cost a thread request for every conversation of that contact.
 */
export function conversationFingerprint(item: ApiObject): string {
  return fingerprint({ ...item, contact: contactById(item) });
}

/** The embedded contact reduced to its id: its edits are the contacts table's business. */
function contactById(item: ApiObject): unknown {
  return isPlainObject(item.contact) ? { id: item.contact.id ?? null } : (item.contact ?? null);
}

/** `value` with the query string of every field named in `fields` cut off, at any depth. */
export function withoutUrlQueries(value: unknown, fields: ReadonlySet<string>): unknown {
  if (fields.size === 0) return value;
  // Copy on write: most values hold no signed URL and come back as they are.
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = withoutUrlQueries(value[i], fields);
      if (item !== value[i]) {
        copy ??= value.slice();
        copy[i] = item;
      }
    }
    return copy ?? value;
  }
  if (!isPlainObject(value)) return value;
  let out: Record<string, unknown> | undefined;
  for (const key in value) {
    const v = value[key];
    const next = fields.has(key) && typeof v === 'string' ? v.split('?')[0] : withoutUrlQueries(v, fields);
    if (next !== v) {
      out ??= { ...value };
      out[key] = next;
    }
  }
  return out ?? value;
}

/**
 * What decides whether a conversation's thread is fetched: the list item without
 * its view-only fields (config `conversations.view_only_fields`, e.g. viewed_at
 * and viewer_id move when someone only opens the conversation) and without the
 * query strings of signed URLs. A view is not a change of the thread.
 */
export function threadFingerprint(item: ApiObject, fields: ViewFields): string {
  const { viewOnly, signedUrls } = fields;
  const rest: Record<string, unknown> = { ...item };
  for (const field of viewOnly) delete rest[field];
  return fingerprint(withoutUrlQueries({ ...rest, contact: contactById(item) }, signedUrls));
}
