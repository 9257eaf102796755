import type { ApiObject } from '../../api/index.js';
import { isPlainObject } from '../../plain-object.js';
import type { ScratchMap } from '../../scratch-space.js';
import { isForbidden, isUnreadable } from '../api-error-status.js';
import { committedValue } from '../committed.js';
import { fingerprint } from '../fingerprint.js';
import { idOf } from '../id-of.js';
import { SCOPES } from '../scopes.js';
import type { ScanStreamSettings } from '../stream-settings.js';
import type { Emit, EmittedRow, StateChange, StreamContext } from '../types.js';
import {
  conversationFingerprint,
  threadFingerprint,
  type ViewFields,
  withoutUrlQueries,
} from './conversation-fingerprints.js';
import { diffThread, threadTombstones } from './thread-records.js';
import {
  hashesOf,
  readThreadState,
  serializeThreadState,
  THREAD_TABLES,
  type ThreadState,
  type ThreadTable,
} from './thread-state.js';

type Part = 'conversations' | 'contacts' | 'messages';

/** What one run of the conversation scan does, shared by every conversation it handles. */
export interface ScanSettings {
  ctx: StreamContext;
  /** The scan's own settings (conversations.*, the rate's concurrency), given when it was built. */
  settings: ScanStreamSettings;
  /** Which of the three names the scan serves were selected. */
  wants: Record<Part, boolean>;
  /** Which of them run with --full-refresh. */
  full: Record<Part, boolean>;
  /** Aborts this scan's requests (the run's signal, or the scan ending early). */
  signal: AbortSignal;
  /** Contacts already judged this run (see contactPart); a scratch map, it grows with the account. */
  seenContacts: ScratchMap;
  /** Thread requests started and not yet answered (for the ETA). */
  pendingFetches: number;
  /** Conversations of this scan whose thread needed a request (for the ETA). */
  threadsNeeded: number;
  /**
   * `table:id` of thread rows that joined a thread in this run. A merge can move
   * messages into another conversation under the same ids; the tombstones of
   * the merged-away conversation (written after the scan) must not delete them
   * again. Only rows new to their thread are kept, and none on a first scan
   * (nothing can be tombstoned then); a scratch map all the same.
   */
  liveThreadRows: ScratchMap;
  /** The view-only and signed-URL fields, read once for the whole scan. */
  viewFields: ViewFields;
  /** No thread state was committed before this scan: nothing can be tombstoned. */
  firstScan: boolean;
  /** Listed conversations then confirmed gone (their thread and view answered 404), for the completeness figures. */
  listedGone: number;
  /** Listed conversations with no thread held because it answered 403. */
  threadsForbidden: number;
  /** Listed conversations with no thread held because it answered 404 while the conversation exists. */
  threadsNotFound: number;
  /** Listed conversations with no thread held because its body stayed unreadable. */
  threadsUnreadable: number;
  /** Different contacts embedded in the listed conversations (judged this run). */
  contactsSeen: number;
}

/** No thread of this conversation is held: a skipped thread leaves it without one. */
function noThreadHeld(s: ScanSettings, id: string): boolean {
  return committedValue(s.ctx.state, SCOPES.threadAt, id) === undefined;
}

function batch(rows: EmittedRow[], changes: StateChange[]): Emit[] {
  return rows.length === 0 && changes.length === 0 ? [] : [{ kind: 'batch', rows, changes }];
}

/**
 * The contact row of an item when it changed since it was last committed. Each
 * contact is judged once per run, on its first-listed copy: copies embedded in
 * other conversations may disagree (an edit during the scan), and judging every
 * copy would write the contact again on every run, one version after the other.
 */
function contactPart(s: ScanSettings, item: ApiObject, rows: EmittedRow[], changes: StateChange[]): void {
  const contact = item.contact;
  const id = idOf(contact);
  if (!s.wants.contacts || !isPlainObject(contact) || id === undefined || s.seenContacts.has(id)) return;
  s.seenContacts.set(id, '');
  s.contactsSeen += 1;
  const hash = fingerprint(withoutUrlQueries(contact, s.viewFields.signedUrls));
  if (!s.full.contacts && committedValue(s.ctx.state, SCOPES.contacts, id) === hash) return;
  rows.push({ table: 'contacts', record: contact });
  changes.push({ scope: SCOPES.contacts, key: id, value: hash });
}

/**
 * Rows and state changes that remove a conversation that is gone (404): its
 * tombstone, and tombstones for every thread row committed for it, keys taken
 * from its thread state. Contacts are never tombstoned (see docs: no list
 * endpoint can prove a contact is gone).
 */
export function conversationDeletion(s: ScanSettings, id: string): { rows: EmittedRow[]; changes: StateChange[] } {
  const rows: EmittedRow[] = [];
  const changes: StateChange[] = [];
  if (s.wants.conversations) {
    rows.push({ table: 'conversations', record: { id }, deleted: true });
    changes.push({ scope: SCOPES.conversations, key: id, value: null });
  }
  if (s.wants.messages) {
    const { raw, thread } = readThreadState(s.ctx.state, id);
    for (const row of threadTombstones(thread)) {
      if (!s.liveThreadRows.has(`${row.table}:${String(row.record.id)}`)) rows.push(row);
    }
    if (raw !== undefined) changes.push({ scope: SCOPES.thread, key: id, value: null });
    if (committedValue(s.ctx.state, SCOPES.threadAt, id) !== undefined)
      changes.push({ scope: SCOPES.threadAt, key: id, value: null });
  }
  return { rows, changes };
}

interface Planned {
  id: string;
  fp: string;
  conversation: { rows: EmittedRow[]; changes: StateChange[] };
  contact: { rows: EmittedRow[]; changes: StateChange[] };
}

function withoutThread(p: Planned): Emit[] {
  return batch([...p.conversation.rows, ...p.contact.rows], [...p.conversation.changes, ...p.contact.changes]);
}

function rememberNewRows(s: ScanSettings, now: ThreadState, previous: ThreadState | undefined): void {
  for (const table of Object.keys(THREAD_TABLES) as ThreadTable[]) {
    const before = previous ? hashesOf(previous, table) : {};
    for (const key of Object.keys(hashesOf(now, table))) {
      if (!Object.hasOwn(before, key)) s.liveThreadRows.set(`${table}:${key}`, '');
    }
  }
}

async function withThread(s: ScanSettings, p: Planned): Promise<Emit[]> {
  let events: unknown[] | null;
  s.pendingFetches += 1;
  try {
    events = await s.ctx.api.listThreadEvents(p.id, { signal: s.signal });
  } catch (error) {
    // Interrupted: the conversation row is complete on its own; the thread is fetched next run.
    if (s.signal.aborted) return withoutThread(p);
    if (isForbidden(error)) return forbiddenThread(s, p);
    if (isUnreadable(error)) return unreadableThread(s, p, error);
    throw error;
  } finally {
    s.pendingFetches -= 1;
  }
  s.ctx.metrics?.count('messages_fetched');
  if (events === null) return threadVanished(s, p);
  const previous = readThreadState(s.ctx.state, p.id).thread;
  const { signedUrls } = s.viewFields;
  const diff = diffThread(p.id, events, previous, s.full.messages, (v) => withoutUrlQueries(v, signedUrls));
  if (!s.firstScan) rememberNewRows(s, diff.state, previous);
  return batch(
    [...p.conversation.rows, ...p.contact.rows, ...diff.rows],
    [
      ...p.conversation.changes,
      ...p.contact.changes,
      { scope: SCOPES.thread, key: p.id, value: serializeThreadState(diff.state) },
      { scope: SCOPES.threadAt, key: p.id, value: p.fp },
    ],
  );
}

/**
 * GET …/messages answered 403: the token may list the conversation but not read
 * its thread (an inbox it cannot see, API document, Authentication rule 7).
 * One conversation must not fail the run: its row is written, its thread state
 * stays as it was (so nothing is tombstoned and the next run asks again).
 */
function forbiddenThread(s: ScanSettings, p: Planned): Emit[] {
  s.ctx.metrics?.count('forbidden_skipped');
  if (noThreadHeld(s, p.id)) s.threadsForbidden += 1;
  const warning: Emit = {
    kind: 'warning',
    code: 'THREAD_FORBIDDEN',
    message: `conversation ${p.id}: its messages answered 403 (no access); skipped, retried next run`,
  };
  return [...withoutThread(p), warning];
}

/**
 * GET …/messages stayed unreadable after the retries (a body cut short, or of the
 * wrong shape): like a 403, the conversation row is written, the thread state
 * stays as it was, and the next run asks again. Never a tombstone: an unreadable
 * answer says nothing about existence.
 */
function unreadableThread(s: ScanSettings, p: Planned, error: unknown): Emit[] {
  s.ctx.metrics?.count('unreadable_skipped');
  if (noThreadHeld(s, p.id)) s.threadsUnreadable += 1;
  const why = error instanceof Error ? error.message : String(error);
  const warning: Emit = {
    kind: 'warning',
    code: 'THREAD_UNREADABLE',
    message: `conversation ${p.id}: its messages stayed unreadable after the retries (${why}); skipped, retried next run`,
  };
  return [...withoutThread(p), warning];
}

/** GET …/messages answered 404: confirm with GET /conversation/{id} before calling it deleted. */
async function threadVanished(s: ScanSettings, p: Planned): Promise<Emit[]> {
  let found: ApiObject | null;
  try {
    found = await s.ctx.api.getConversation(p.id, { signal: s.signal });
  } catch (error) {
    if (s.signal.aborted) return withoutThread(p);
    // Its view unreadable too: nothing proves it gone, so it is kept, as on a 403.
    if (isUnreadable(error)) return unreadableThread(s, p, error);
    throw error;
  }
  if (found === null) {
    s.listedGone += 1;
    const gone = conversationDeletion(s, p.id);
    return batch([...p.contact.rows, ...gone.rows], [...p.contact.changes, ...gone.changes]);
  }
  if (noThreadHeld(s, p.id)) s.threadsNotFound += 1;
  // Still there: keep the thread state as it was, so the next run asks again.
  const warning: Emit = {
    kind: 'warning',
    code: 'THREAD_NOT_FOUND',
    message: `conversation ${p.id}: its messages answered 404 but the conversation exists; retried next run`,
  };
  return [...withoutThread(p), warning];
}

/**
 * Everything one conversation contributes, as at most one `batch` emit (plus a
 * warning in odd cases) so its rows and state always commit together. Answers
 * synchronously when no request is needed: an unchanged conversation costs
 * nothing but its share of the list page.
 */
export function processConversation(
  s: ScanSettings,
  item: ApiObject,
  fp = conversationFingerprint(item),
): Emit[] | Promise<Emit[]> {
  const id = idOf(item);
  // No id: the normalizer rejects the row with its reason; nothing else can be keyed on it.
  if (id === undefined) return s.wants.conversations ? [{ kind: 'row', table: 'conversations', record: item }] : [];
  const p: Planned = {
    id,
    fp,
    conversation: { rows: [], changes: [] },
    contact: { rows: [], changes: [] },
  };
  if (s.wants.conversations && (s.full.conversations || committedValue(s.ctx.state, SCOPES.conversations, id) !== fp)) {
    p.conversation.rows.push({ table: 'conversations', record: item });
    p.conversation.changes.push({ scope: SCOPES.conversations, key: id, value: fp });
  }
  contactPart(s, item, p.contact.rows, p.contact.changes);
  // threadAt holds the thread fingerprint; a value written before view-only
  // fields were left out holds the full one, and matching either saves a refetch.
  const threadFp = s.wants.messages ? threadFingerprint(item, s.viewFields) : fp;
  const threadAt = s.wants.messages ? committedValue(s.ctx.state, SCOPES.threadAt, id) : undefined;
  const fetch = s.wants.messages && (s.full.messages || (threadAt !== threadFp && threadAt !== fp));
  if (fetch || p.conversation.rows.length > 0) s.ctx.metrics?.count('conversations_changed');
  if (!fetch) return withoutThread(p);
  s.threadsNeeded += 1;
  return withThread(s, { ...p, fp: threadFp });
}
