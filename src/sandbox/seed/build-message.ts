import { idFor } from '../model/ids.js';
import type { Attachment, Inbox, Message } from '../model/model.js';
import { rngFor } from '../model/random.js';
import { ATTACHMENTS, INBOUND_LINES, NOTE_LINES, OUTBOUND_LINES } from './names.js';

export const ATTACHMENT_BASE_URL = 'https://files.sandbox.example/attachments';

export function excerptOf(text: string): string {
  return text.length <= 100 ? text : `${text.slice(0, 97)}...`;
}

export function htmlOf(text: string): string {
  const escaped = text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return `<p>${escaped}</p>`;
}

/** A Message as the thread carries it; text, html and excerpt always agree. */
export function messageRecord(fields: {
  id: string;
  kind: 'inbound' | 'outbound' | 'note';
  text: string;
  at: number;
  inbox: Inbox;
  cc?: string[];
  extra?: Record<string, unknown>;
  attachments?: Attachment[];
}): Message {
  const { kind } = fields;
  return {
    id: fields.id,
    cc: fields.cc ?? [],
    bcc: [],
    record_type: kind === 'note' ? 'note' : 'message',
    status: kind === 'inbound' ? 'received' : kind === 'note' ? 'saved' : 'sent',
    direction: kind === 'inbound' ? 'inbound' : kind === 'note' ? 'internal' : 'outbound',
    viewed_at: null,
    created_at: new Date(fields.at).toISOString(),
    text_body: fields.text,
    excerpt: excerptOf(fields.text),
    html_body: htmlOf(fields.text),
    extra: fields.extra ?? {},
    is_clipped: false,
    intended_inbox_address_id: fields.inbox.addressId,
    attachments: fields.attachments ?? [],
  };
}

/** The text of seeded message `ordinal`, from its own random stream (so search can read it alone). */
export function messageText(seed: number, kind: 'inbound' | 'outbound' | 'note', ordinal: number): string {
  const rng = rngFor(seed, 'message-text', ordinal);
  const pool = kind === 'inbound' ? INBOUND_LINES : kind === 'outbound' ? OUTBOUND_LINES : NOTE_LINES;
  let text = rng.pick(pool);
  const lines = kind === 'note' ? 1 : rng.int(1, 3);
  for (let k = 1; k < lines; k++) text += ` ${rng.pick(pool)}`;
  return text;
}

/** A seeded message number `ordinal` (conversation index × 64 + position in the thread). */
export function buildMessage(
  seed: number,
  spec: { kind: 'inbound' | 'outbound' | 'note'; ordinal: number; at: number; inbox: Inbox; channel: string },
): Message {
  const { kind, ordinal, at } = spec;
  const rng = rngFor(seed, 'message', ordinal);
  const text = messageText(seed, kind, ordinal);
  const attachmentCount = kind === 'inbound' && rng.chance(0.25) ? rng.int(1, 2) : 0;
  const attachments = Array.from({ length: attachmentCount }, (_, a) => {
    const file = rng.pick(ATTACHMENTS);
    const id = idFor(seed, 'attachment', ordinal * 4 + a);
    return {
      id,
      name: file.name,
      content_type: file.content_type,
      size: rng.int(2_000, 2_000_000),
      url: `${ATTACHMENT_BASE_URL}/${id}/${file.name}`,
      created_at: new Date(at).toISOString(),
    };
  });
  return messageRecord({
    id: idFor(seed, 'message', ordinal),
    kind,
    text,
    at,
    inbox: spec.inbox,
    cc: kind === 'outbound' && rng.chance(0.1) ? ['team-lead@customer.example'] : [],
    extra: kind === 'note' ? { mentioned_ids: [] } : { channel: spec.channel },
    attachments,
  });
}
