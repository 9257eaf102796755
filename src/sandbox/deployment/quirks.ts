/**
 * Quirks: ways a real deployment may differ from the sandbox's kind default
 * reading of the API document, each one a plausible reading of the document or
 * of a typical deployment (docs/sandbox.md, "Quirks"). Off unless asked for.
 */
export const QUIRK_NAMES = [
  'trash-hidden',
  'created-at-ties',
  'loose-types',
  'volatile-views',
  'newest-first',
  'invitations-without-id',
  'forbidden-threads',
  'proxy-html-errors',
  'bare-429',
  'search-cap',
  'no-rate-headers',
  'silent-429',
  'hidden-conversation',
  'cut-body',
  'overlapping-pages',
  'odd-retry-after',
  'wrong-shape',
  'stuck-wrong-shape',
  'redirects',
  'page-size-drift',
  'canary-pages',
  'offsite-redirect',
  'broken-tags',
  'big-integers',
] as const;

export type QuirkName = (typeof QUIRK_NAMES)[number];

/**
 * created-at-ties: created_at is cut to whole 30-day steps, as on a deployment
 * whose history was imported in monthly batches stamped with the batch time.
 */
export const TIE_STEP_MS = 30 * 86_400_000;

/**
 * big-integers: ticket numbers start here, 2^53 + 1, the first integer a double
 * cannot hold (a deployment whose ticket ids are 64-bit numbers; the API
 * document types `ticket_id` as `integer` with no bound).
 */
export const BIG_TICKET_BASE = 9_007_199_254_740_993n;

/** big-integers: the ticket number of one conversation, 2^64 + 5, beyond any 64-bit integer. */
export const BEYOND_INT64_TICKET = 18_446_744_073_709_551_621n;

/** Items POST /search returns at most under `search-cap` when no number is given. */
export const DEFAULT_SEARCH_CAP = 50;

/** Under `silent-429` with no number given, one /v1 request in this many meets it. */
export const DEFAULT_SILENT_429_EVERY = 40;

/** Under `odd-retry-after` with no number given, a spell of 429s begins at every this many /v1 requests. */
export const DEFAULT_ODD_RETRY_AFTER_EVERY = 50;

/**
 * Under `stuck-wrong-shape` with no number given, the asks each stuck object answers wrongly:
 * one more than a client's first try and five retries.
 */
export const DEFAULT_STUCK_WRONG_SHAPE_TIMES = 6;

/** Quirks that take a number (`name:N`), and the least N each allows. */
const NUMBERED: Partial<Record<QuirkName, number>> = {
  'search-cap': 0,
  'silent-429': 1,
  'odd-retry-after': 1,
  'stuck-wrong-shape': 1,
};

export class QuirkSpecError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'QuirkSpecError';
  }
}

export interface Quirks {
  has(name: QuirkName): boolean;
  /** POST /search returns no item past this position (`search-cap[:N]`). */
  readonly searchCap: number;
  /** One /v1 request in this many gets a gateway's 429 that says nothing (`silent-429[:N]`). */
  readonly silent429Every: number;
  /** A spell of 429s with an odd Retry-After begins at every this many /v1 requests (`odd-retry-after[:N]`). */
  readonly oddRetryAfterEvery: number;
  /** Asks each stuck object answers with a body of the wrong shape (`stuck-wrong-shape[:N]`). */
  readonly stuckWrongShapeTimes: number;
  readonly names: readonly QuirkName[];
}

/** `a,b,search-cap:30`: names from QUIRK_NAMES; only those of NUMBERED take a number. Empty: no quirk. */
export function parseQuirks(spec: string | readonly string[] | undefined): Quirks {
  const items = (typeof spec === 'string' ? spec.split(',') : (spec ?? [])).map((s) => s.trim()).filter(Boolean);
  const names = new Set<QuirkName>();
  const numbers: Partial<Record<QuirkName, number>> = {};
  for (const item of items) {
    const [name, param, ...rest] = item.split(':');
    if (!QUIRK_NAMES.includes(name as QuirkName)) {
      throw new QuirkSpecError(`unknown quirk "${name}"; valid quirks: ${QUIRK_NAMES.join(', ')}`);
    }
    const least = NUMBERED[name as QuirkName];
    if (rest.length > 0 || (param !== undefined && least === undefined)) {
      const numbered = Object.keys(NUMBERED).join(', ');
      throw new QuirkSpecError(`quirk "${item}": only ${numbered} take a number (name:N)`);
    }
    if (param !== undefined) {
      const n = /^\d+$/.test(param) ? Number(param) : Number.NaN;
      if (!Number.isSafeInteger(n) || n < (least as number)) {
        throw new QuirkSpecError(`quirk "${item}": N must be a whole number from ${least} up`);
      }
      numbers[name as QuirkName] = n;
    }
    names.add(name as QuirkName);
  }
  return {
    has: (name) => names.has(name),
    searchCap: numbers['search-cap'] ?? DEFAULT_SEARCH_CAP,
    silent429Every: numbers['silent-429'] ?? DEFAULT_SILENT_429_EVERY,
    oddRetryAfterEvery: numbers['odd-retry-after'] ?? DEFAULT_ODD_RETRY_AFTER_EVERY,
    stuckWrongShapeTimes: numbers['stuck-wrong-shape'] ?? DEFAULT_STUCK_WRONG_SHAPE_TIMES,
    names: [...names],
  };
}

export const NO_QUIRKS: Quirks = parseQuirks(undefined);
