import type { SandboxStore } from './sandbox-store.js';

/** The body a wrong-shaped answer carries: well-formed JSON, a 200, and nothing where the data should be. */
export const WRONG_SHAPE_BODY = { data: null };

const asked = new WeakMap<SandboxStore, Map<string, number>>();

function countAsk(store: SandboxStore, key: string): number {
  const counts = asked.get(store) ?? new Map<string, number>();
  asked.set(store, counts);
  const n = (counts.get(key) ?? 0) + 1;
  counts.set(key, n);
  return n;
}

/**
 * Whether this answer is a `200 {"data": null}`, as a layer in front of the API
 * answers in its own shape (a cache that stored an empty answer, a serializer
 * that failed quietly):
 * - wrong-shape: the first answer for `once` (a thread in one version, a list
 *   page, a report day) is; asked again, it is right.
 * - stuck-wrong-shape: the first N answers (default 6: a client's try and five
 *   retries) for `stuck` are, when the route names one of the stuck objects.
 */
export function answerWrongShape(store: SandboxStore, keys: { once: string; stuck?: string }): boolean {
  const { quirks } = store;
  const once = quirks.has('wrong-shape') && countAsk(store, `once:${keys.once}`) === 1;
  const stuck =
    keys.stuck !== undefined &&
    quirks.has('stuck-wrong-shape') &&
    countAsk(store, `stuck:${keys.stuck}`) <= quirks.stuckWrongShapeTimes;
  return once || stuck;
}

const oldest = new WeakMap<SandboxStore, string | undefined>();

/** stuck-wrong-shape: the conversation whose thread is stuck, the first organization's oldest. */
export function stuckThreadId(store: SandboxStore): string | undefined {
  if (!store.quirks.has('stuck-wrong-shape')) return undefined;
  if (oldest.has(store)) return oldest.get(store);
  const org = store.world.organizations[0]!.id;
  let found: { id: string; createdAt: number } | undefined;
  for (let i = 0; i < store.table.count; i++) {
    if (!store.conversations.exists(i)) continue;
    const c = store.conversations.get(i);
    if (c.organizationId === org && (found === undefined || c.createdAt < found.createdAt)) {
      found = { id: c.id, createdAt: c.createdAt };
    }
  }
  oldest.set(store, found?.id);
  return found?.id;
}

/** stuck-wrong-shape: the list page that is stuck, in both conversation listings. */
export const STUCK_PAGE = 2;

/** stuck-wrong-shape: the report that is stuck: the first organization's first inbox, yesterday (UTC, sandbox clock). */
export function stuckReport(store: SandboxStore): { inboxId: string; day: string } | undefined {
  if (!store.quirks.has('stuck-wrong-shape')) return undefined;
  const org = store.world.organizations[0]!.id;
  const inbox = store.inboxes(org)[0];
  if (!inbox) return undefined;
  return { inboxId: inbox.id, day: new Date(store.now() - 86_400_000).toISOString().slice(0, 10) };
}

/** wrong-shape, stuck-wrong-shape for a page of a conversation listing (`route`: search or mine). */
export function pageAnswerWrongShape(
  store: SandboxStore,
  route: string,
  params: { page: number; perPage: number; sort: string },
): boolean {
  const once = `${route}:${params.sort}:${params.page}:${params.perPage}`;
  return answerWrongShape(store, { once, stuck: params.page === STUCK_PAGE ? `${route}:page` : undefined });
}
