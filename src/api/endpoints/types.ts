/**
 * The contract between the API layer and its callers (streams, push, check).
 * The API layer knows nothing of streams: it returns the API's objects as they
 * came (unknown fields kept), and throws the typed errors of ./errors.ts.
 */

/** An object as the API returned it. Field names are the API's; nothing is dropped. */
export type ApiObject = Record<string, unknown>;

export interface CallOptions {
  /** Aborts the request (and its retries) while queued or in flight. */
  signal?: AbortSignal;
}

/** What a list learns from each page it reads (for progress displays and ETAs). */
export interface PageInfo {
  /** 1-based number of pages read so far. */
  pagesRead: number;
  /** Items read so far, this page included. */
  itemsRead: number;
  /** Items of this page. */
  pageItems: number;
  /** meta.per_page, when the page said: the size of a full page. */
  perPage?: number;
  /** meta.current_page, when the page said. */
  currentPage?: number;
  /** meta.last_page (counting paginator only). */
  lastPage?: number;
  /** meta.total (counting paginator only). */
  total?: number;
  /**
   * Items served at positions an earlier page of this list had served already (pages that
   * overlap: a page size that shrank, pages one item longer than their size): such an item
   * served twice is no sign that the list moved.
   */
  overlapping: number;
  /**
   * Every position up to this one was served, re-read or given up on (a list that tracks
   * positions: see ConversationListOptions.onRepair). After the last page, meta.total less
   * this is the tail the list never served.
   */
  reached?: number;
}

/** Options of the list calls. */
export interface ListOptions extends CallOptions {
  /** Called after every page, before its items are yielded. */
  onPage?: (page: PageInfo) => void;
}

/** Positions of a list re-read because the pages showed them missing (see ConversationListOptions.onRepair). */
export interface ListRepair {
  /** The missing positions, 1-based, both included. */
  from: number;
  to: number;
  /** Items the re-read found there. */
  recovered: number;
  /** Pages asked for. */
  requests: number;
  /** Items of the gap no re-read found: a hole left. */
  missing: number;
  /**
   * Where the gap's items were looked for: the gap, or from the start of the page before it
   * when that page came back short (its items placed from its start, holes or not).
   */
  within: { from: number; to: number };
}

/** A page skipped because its body stayed unreadable after the retries (see ConversationListOptions.onPageSkipped). */
export interface PageSkip {
  /** Its page number. */
  page: number;
  /** The items it would have held, by the list's size and total. */
  items: number;
  /** The error that ended its retries (API_BAD_RESPONSE). */
  error: unknown;
}

/** Options of the conversation lists (API document, Limits: sort newest (default), oldest, priority). */
export interface ConversationListOptions extends ListOptions {
  /** Full scans use `oldest`: conversations created during the scan append at the end instead of shifting pages. */
  sort?: 'newest' | 'oldest' | 'priority';
  /** The page to start at (Limits: page is 1-indexed, default 1); a resumed backfill starts mid-list. */
  startPage?: number;
  /**
   * Told of every range re-read. The conversation lists track the positions their pages serve
   * (meta.from, meta.per_page, item counts) and re-read what a page shows missing before it
   * (a page size changed mid-scan, a page short with more after it) before going on.
   */
  onRepair?: (repair: ListRepair) => void;
  /**
   * Given: a page whose body stays unreadable after the retries, with more pages known to follow,
   * is skipped (told here) and the list goes on with the next one. Absent: that error ends the list.
   */
  onPageSkipped?: (skip: PageSkip) => void;
}

/**
 * One read of a documented endpoint, as its caller declares it (the stream
 * catalog's endpoints have this shape): the path, and how its answer comes back.
 */
export interface ReadRequest {
  /** Path under the base URL; each `{name}` is filled from `params`, URL-encoded. */
  path: string;
  /**
   * `pages`: any list envelope (counting or simple paginator, search wrapper, plain
   * array), `per_page=100`, pages followed; `unpaginated`: one plain array, asked
   * without `per_page`; `single`: one resource, `{data}` unwrapped (Conventions).
   */
  paginator: 'pages' | 'unpaginated' | 'single';
  params?: Readonly<Record<string, string>>;
  query?: Readonly<Record<string, string | number | undefined>>;
}

/** Body of POST /business-hours and PATCH /business-hours/{id} (sandbox wire format, see docs/sandbox.md). */
export interface BusinessHoursWrite {
  name?: string;
  type?: 'calendar_24_7' | 'business_hours';
  weekly_schedule?: Array<{ day: Weekday; start: string | null; end: string | null }>;
  inbox_channels?: Array<{ inbox_id: string; channel: 'email' | 'livechat' }>;
}

export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export interface HolidayWrite {
  name?: string;
  start_date?: string;
  end_date?: string;
}

/**
 * Typed endpoint functions of the documented surface that the connector uses.
 * Lists are async iterables over items (pagination hidden, per_page=100).
 */
export interface HelpdeskApi {
  /**
   * GET of a declared endpoint: its items one by one (a `single` resource is one
   * item). The streams read through this, each with the endpoint it declares.
   */
  read(request: ReadRequest, options?: ListOptions): AsyncIterable<ApiObject>;
  /** GET /me */
  me(options?: CallOptions): Promise<ApiObject>;
  /** GET /inboxes (shape not shown in the document: any list envelope is accepted); push resolves inbox names with it. */
  listInboxes(options?: ListOptions): AsyncIterable<ApiObject>;
  /** POST /search: every conversation the token sees, paginator inside the search wrapper. */
  searchConversations(options?: ConversationListOptions): AsyncIterable<ApiObject>;
  /** GET /conversations/mine: counting paginator. */
  listMyConversations(options?: ConversationListOptions): AsyncIterable<ApiObject>;
  /** The conversation list chosen by `source.conversations_endpoint`: POST /search or GET /conversations/mine. */
  listConversations(options?: ConversationListOptions): AsyncIterable<ApiObject>;
  /** GET /conversation/{id}; null when the API answers 404 (absent or other organization). */
  getConversation(conversationId: string, options?: CallOptions): Promise<ApiObject | null>;
  /** GET /conversation/{id}/messages: thread events; null on 404 (conversation gone). */
  listThreadEvents(conversationId: string, options?: CallOptions): Promise<ApiObject[] | null>;

  /** GET /business-hours: all profiles, newest first, unpaginated. */
  listBusinessHours(options?: CallOptions): Promise<ApiObject[]>;
  getBusinessHours(id: string, options?: CallOptions): Promise<ApiObject | null>;
  createBusinessHours(body: BusinessHoursWrite, options?: CallOptions): Promise<ApiObject>;
  updateBusinessHours(id: string, body: BusinessHoursWrite, options?: CallOptions): Promise<ApiObject>;
  deleteBusinessHours(id: string, options?: CallOptions): Promise<void>;

  /** GET /holidays: active first, upcoming by start date, then past most recent first. */
  listHolidays(options?: CallOptions): Promise<ApiObject[]>;
  getHoliday(id: string, options?: CallOptions): Promise<ApiObject | null>;
  createHoliday(body: HolidayWrite, options?: CallOptions): Promise<ApiObject>;
  updateHoliday(id: string, body: HolidayWrite, options?: CallOptions): Promise<ApiObject>;
  deleteHoliday(id: string, options?: CallOptions): Promise<void>;
}

/** Counters for the run summary (see docs/operations.md). */
export interface RequestStats {
  /** HTTP attempts sent (retries included). */
  requests: number;
  /** Attempts by HTTP status ("200", "429", ...), plus "network" and "timeout" for failures without one. */
  byStatus: Record<string, number>;
  /** Attempts that repeated an earlier one (after a 429, a 5xx, a reset or a timeout). */
  retries: number;
  /** 429 responses. */
  rateLimited: number;
  /**
   * Of rateLimited, the 429s met by probes while backing off from a 429 that said
   * nothing (no Retry-After, no spent window of known end): what the backoff cost.
   */
  rateLimitProbes?: number;
  /**
   * Of rateLimited, the window limiter's 429s (a usable Retry-After, or X-RateLimit-Remaining 0)
   * met while the server's window length was not known yet (not configured, not learned): what
   * learning it cost. By design one probe, at most.
   */
  rateLimitLearning?: number;
  /**
   * Wall-clock milliseconds during which a ready request was held back for rate
   * budget (pacing + 429 pauses). Close to the run time when the run is rate-bound.
   */
  waitedMs: number;
  /** Of waitedMs, the part spent in 429 pauses (Retry-After). */
  rateLimitPausedMs?: number;
  /** A 429 pause going on now: milliseconds until every request may start again (0: none). */
  rateLimitPauseLeftMs?: number;
  /**
   * 429s going on now: milliseconds since the first of those in a row (0: the last answer was
   * not a 429). A server that keeps refusing is waited for, never given up on: this says how long.
   */
  rateLimitedForMs?: number;
}
