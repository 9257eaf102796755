import type { RunningSandbox } from '../../../src/sandbox/start.js';

export interface ApiResponse {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary response shapes
  body: any;
}

export interface CallOptions {
  /** Bearer token; null sends no Authorization header. @default 'sandbox-admin' */
  token?: string | null;
  body?: unknown;
  /** Sent as-is with content-type application/json (for malformed JSON). */
  rawBody?: string;
}

/** One HTTP call to the sandbox over a real socket; `path` is relative to /v1 unless it starts with /_sandbox. */
export async function call(sb: RunningSandbox, method: string, path: string, options: CallOptions = {}) {
  const token = options.token === undefined ? 'sandbox-admin' : options.token;
  const headers: Record<string, string> = {};
  if (token !== null) headers.authorization = `Bearer ${token}`;
  const payload = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  if (payload !== undefined) headers['content-type'] = 'application/json';
  const url = path.startsWith('/_sandbox') || path.startsWith('http') ? path : `${sb.baseUrl}${path}`;
  const res = await fetch(url.startsWith('http') ? url : `${sb.origin}${url}`, { method, headers, body: payload });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, headers: res.headers, body } as ApiResponse;
}

/** Ids of organization 2's records, to prove they look absent to organization 1's tokens. */
export function foreign(sb: RunningSandbox) {
  const { store } = sb;
  const org2 = store.world.organizations[1]!.id;
  const inbox = store.inboxes(org2)[0]!;
  let conversation: string | undefined;
  for (let i = 0; i < store.table.count && !conversation; i++) {
    const s = store.conversations.get(i);
    if (s.organizationId === org2) conversation = s.id;
  }
  return {
    organizationId: org2,
    inboxId: inbox.id,
    tagId: store.tags(inbox.id)[0]!.id,
    userId: store.users(org2)[0]!.id,
    customFieldId: store.customFields(inbox.id)[0]!.id,
    conversationId: conversation!,
    contactId: store.contacts.get(store.table.contact[store.findConversation(org2, conversation!)!]!).id,
  };
}

/** The first conversation of organization 1 that matches `test`, from the newest down. */
export function findConversation(
  sb: RunningSandbox,
  test: (s: ReturnType<RunningSandbox['store']['conversations']['get']>) => boolean,
) {
  const { store } = sb;
  const org1 = store.world.organizations[0]!.id;
  for (let i = store.table.count - 1; i >= 0; i--) {
    if (!store.conversations.exists(i)) continue;
    const s = store.conversations.get(i);
    if (s.organizationId === org1 && s.deletedAt === null && test(s)) return s;
  }
  throw new Error('no conversation matches');
}
