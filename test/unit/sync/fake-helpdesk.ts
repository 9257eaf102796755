import type {
  ApiObject,
  CallOptions,
  ConversationListOptions,
  HelpdeskApi,
  ListOptions,
  ReadRequest,
  RequestStats,
} from '../../../src/api/endpoints/types.js';

/** An error shaped like the API layer's ApiError (status + code), without importing it. */
export class FakeApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
  ) {
    super(`fake API answered ${status}`);
  }
}

function abortIfNeeded(signal?: AbortSignal): void {
  if (signal?.aborted) throw signal.reason ?? new Error('aborted');
}

/**
 * An in-memory helpdesk behind the HelpdeskApi contract: offset pagination over
 * the live data (so deleting rows mid-scan shifts pages, as the real API does),
 * thread events in the sandbox's wire shape, and a count of every request.
 */
export class FakeHelpdesk implements HelpdeskApi {
  readonly conversations = new Map<string, ApiObject>();
  readonly threads = new Map<string, ApiObject[]>();
  inboxes: ApiObject[] = [];
  readonly tags = new Map<string, ApiObject[]>();
  users: ApiObject[] | 'forbidden' = [];
  businessHours: ApiObject[] = [];
  holidays: ApiObject[] = [];
  report: (inboxId: string, day: string) => ApiObject = () => ({ created_conversations: 0 });
  /** What GET /me answers: the current user and the organization, as the sandbox does (API document, Other operations). */
  account: ApiObject = { id: 'me', name: 'Test User', organization: { company: 'Test Co', slug: 'test-co' } };
  pageSize = 100;
  /** Every request, as `METHOD path` (pages counted one each). */
  readonly requests: string[] = [];
  /** Called before each list page is served: lets a test change data mid-scan. */
  beforePage?: (page: number) => void;
  /** Makes the thread request of one conversation wait for `release` (or fail). */
  threadGate?: (conversationId: string) => Promise<void> | undefined;
  lastSort?: string;
  /** Conversation lists serve no item past this position, while meta.total counts them all (a search cap). */
  listCap?: number;
  /** Conversations left out of list pages, while meta.total counts them (a hole in the listing). */
  readonly hiddenIds = new Set<string>();
  /** Conversations whose thread answers 403. */
  readonly forbiddenThreads = new Set<string>();
  /** The sort each conversation list page was asked with, in request order. */
  readonly pageSorts: string[] = [];
  /** Declared endpoints (by path template, e.g. `/holidays`) whose every read throws this error. */
  readonly failing = new Map<string, unknown>();

  count(prefix: string): number {
    return this.requests.filter((r) => r.startsWith(prefix)).length;
  }

  stats(): RequestStats {
    return { requests: this.requests.length, byStatus: {}, retries: 0, rateLimited: 0, waitedMs: 0 };
  }

  async me(): Promise<ApiObject> {
    this.requests.push('GET /me');
    return structuredClone(this.account);
  }

  async *#pages(
    path: string,
    all: () => ApiObject[],
    options?: ConversationListOptions,
    shown: (items: ApiObject[], offset: number) => ApiObject[] = (items) => items,
  ): AsyncIterable<ApiObject> {
    let itemsRead = 0;
    let reached: number | undefined;
    const first = options?.startPage ?? 1;
    for (let page = first; ; page++) {
      abortIfNeeded(options?.signal);
      this.beforePage?.(page);
      this.requests.push(`${path} page=${page}`);
      if (options?.sort) this.pageSorts.push(options.sort);
      // Insertion order is creation order: `newest` reverses it, as the sandbox does.
      const items = options?.sort === 'newest' ? all().reverse() : all();
      const lastPage = Math.max(1, Math.ceil(items.length / this.pageSize));
      const slice = shown(items.slice((page - 1) * this.pageSize, page * this.pageSize), (page - 1) * this.pageSize);
      itemsRead += slice.length;
      // The positions served, as a counting paginator's meta tells them: up to the cap, holes included.
      const offset = (page - 1) * this.pageSize;
      const served = Math.min(this.pageSize, items.length - offset, Math.max(0, (this.listCap ?? Infinity) - offset));
      if (served > 0) reached = offset + served;
      options?.onPage?.({
        pagesRead: page - first + 1,
        itemsRead,
        pageItems: slice.length,
        perPage: this.pageSize,
        currentPage: page,
        lastPage,
        total: items.length,
        overlapping: 0,
        ...(reached === undefined ? {} : { reached }),
      });
      yield* slice.map((i) => structuredClone(i));
      if (page >= lastPage) return;
    }
  }

  listInboxes(options?: ListOptions): AsyncIterable<ApiObject> {
    return this.#pages('GET /inboxes', () => this.inboxes, options);
  }

  /** The declared endpoints the streams read, by path (as the sandbox serves them). */
  async *read(request: ReadRequest, options?: ListOptions): AsyncIterable<ApiObject> {
    const inboxId = request.params?.inbox_id ?? '';
    if (this.failing.has(request.path)) {
      this.requests.push(`GET ${request.path.replace('{inbox_id}', inboxId)} (failed)`);
      throw this.failing.get(request.path);
    }
    switch (request.path) {
      case '/inboxes':
        yield* this.listInboxes(options);
        return;
      case '/inboxes/{inbox_id}/tags':
        yield* this.#pages(`GET /inboxes/${inboxId}/tags`, () => this.tags.get(inboxId) ?? [], options);
        return;
      case '/settings/users':
        this.requests.push('GET /settings/users');
        abortIfNeeded(options?.signal);
        if (this.users === 'forbidden') throw new FakeApiError(403, 'API_FORBIDDEN');
        yield* this.users.map((u) => structuredClone(u));
        return;
      case '/business-hours':
        yield* await this.listBusinessHours(options);
        return;
      case '/holidays':
        yield* await this.listHolidays(options);
        return;
      case '/me':
        yield await this.me();
        return;
      case '/reports/{inbox_id}/productivity': {
        const { start_date: start, end_date: end } = request.query ?? {};
        this.requests.push(`GET /reports/${inboxId}/productivity ${start}..${end}`);
        abortIfNeeded(options?.signal);
        yield structuredClone(this.report(inboxId, String(start)));
        return;
      }
      default:
        throw new Error(`the fake serves no ${request.path}`);
    }
  }

  /** A conversation page as a rough deployment serves it: hidden ones dropped, nothing past the cap. */
  #shownConversations = (items: ApiObject[], offset: number): ApiObject[] => {
    const capped = this.listCap === undefined ? items : items.slice(0, Math.max(0, this.listCap - offset));
    return capped.filter((c) => !this.hiddenIds.has(String(c.id)));
  };

  searchConversations(options?: ConversationListOptions): AsyncIterable<ApiObject> {
    this.lastSort = options?.sort;
    return this.#pages('POST /search', () => [...this.conversations.values()], options, this.#shownConversations);
  }

  listMyConversations(options?: ConversationListOptions): AsyncIterable<ApiObject> {
    this.lastSort = options?.sort;
    const all = () => [...this.conversations.values()];
    return this.#pages('GET /conversations/mine', all, options, this.#shownConversations);
  }

  /** Which list listConversations reads, as the real client takes it from `source.conversations_endpoint`. */
  conversationsEndpoint: 'search' | 'mine' = 'search';

  listConversations(options?: ConversationListOptions): AsyncIterable<ApiObject> {
    return this.conversationsEndpoint === 'mine'
      ? this.listMyConversations(options)
      : this.searchConversations(options);
  }

  async getConversation(id: string, options?: CallOptions): Promise<ApiObject | null> {
    this.requests.push(`GET /conversation/${id}`);
    abortIfNeeded(options?.signal);
    const c = this.conversations.get(id);
    // The single-conversation view is not the list item (API document: ConversationView
    // fields not shown); like the sandbox's, it carries the tag ids besides.
    return c ? { ...structuredClone(c), tags: [] } : null;
  }

  async listThreadEvents(id: string, options?: CallOptions): Promise<ApiObject[] | null> {
    this.requests.push(`GET /conversation/${id}/messages`);
    abortIfNeeded(options?.signal);
    const gate = this.threadGate?.(id);
    if (gate) await gate;
    abortIfNeeded(options?.signal);
    if (this.forbiddenThreads.has(id)) throw new FakeApiError(403, 'API_FORBIDDEN');
    const thread = this.threads.get(id);
    return thread && this.conversations.has(id) ? structuredClone(thread) : null;
  }

  async listBusinessHours(options?: CallOptions): Promise<ApiObject[]> {
    this.requests.push('GET /business-hours');
    abortIfNeeded(options?.signal);
    return structuredClone(this.businessHours);
  }

  async listHolidays(options?: CallOptions): Promise<ApiObject[]> {
    this.requests.push('GET /holidays');
    abortIfNeeded(options?.signal);
    return structuredClone(this.holidays);
  }

  getBusinessHours = unsupported;
  createBusinessHours = unsupported;
  updateBusinessHours = unsupported;
  deleteBusinessHours = unsupported;
  getHoliday = unsupported;
  createHoliday = unsupported;
  updateHoliday = unsupported;
  deleteHoliday = unsupported;
}

async function unsupported(): Promise<never> {
  throw new Error('not used by streams');
}
