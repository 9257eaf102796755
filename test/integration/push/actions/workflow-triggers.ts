/**
 * Whether a workflow's `on:` starts a run for one event ("Events that trigger workflows",
 * "Filter pattern cheat sheet"): the event must be listed; `branches`/`branches-ignore`,
 * `tags`/`tags-ignore` and `paths`/`paths-ignore` filters apply as GitHub applies them.
 * Patterns support `*`, `**` and a leading `!`; `?`, `+` and `[…]` (which GitHub gives
 * meanings of its own) are refused.
 */

export type EventName = 'pull_request' | 'push' | 'schedule' | 'workflow_dispatch';

export interface TriggerEvent {
  event: EventName;
  payload: Record<string, unknown>;
  ref: string;
  /** Files the push or pull request changed, for `paths` filters. */
  changedFiles?: string[];
}

type Filters = Record<string, unknown>;

/** `on:` as a map of event → filters, whatever form the workflow wrote it in. */
export function normalizeOn(on: unknown): Record<string, Filters> {
  if (typeof on === 'string') return { [on]: {} };
  if (Array.isArray(on)) return Object.fromEntries(on.map((name) => [String(name), {}]));
  if (on && typeof on === 'object') {
    return Object.fromEntries(Object.entries(on).map(([name, filters]) => [name, (filters ?? {}) as Filters]));
  }
  throw new Error(`on: expected an event name, a list or a map, got ${JSON.stringify(on)}`);
}

export function patternToRegExp(pattern: string): RegExp {
  if (/[?+[\]]/.test(pattern)) throw new Error(`filter pattern '${pattern}': ?, + and [] are not emulated`);
  let source = '';
  for (let i = 0; i < pattern.length; i += 1) {
    if (pattern.startsWith('**/', i)) {
      source += '(?:.*/)?';
      i += 2;
    } else if (pattern.startsWith('**', i)) {
      source += '.*';
      i += 1;
    } else if (pattern[i] === '*') {
      source += '[^/]*';
    } else {
      source += pattern[i]!.replace(/[.^$|(){}\\]/g, '\\$&');
    }
  }
  return new RegExp(`^${source}$`);
}

/** The last pattern that matches decides; a `!` pattern excludes. */
function matchesList(patterns: unknown, value: string): boolean {
  if (!Array.isArray(patterns)) throw new Error(`filter: expected a list of patterns, got ${JSON.stringify(patterns)}`);
  let matched = false;
  for (const raw of patterns) {
    const pattern = String(raw);
    const negated = pattern.startsWith('!');
    if (patternToRegExp(negated ? pattern.slice(1) : pattern).test(value)) matched = !negated;
  }
  return matched;
}

function refFilter(filters: Filters, include: string, ignore: string, name: string): boolean {
  if (filters[include] !== undefined && filters[ignore] !== undefined) {
    throw new Error(`on: ${include} and ${ignore} cannot both be used for one event`);
  }
  if (filters[include] !== undefined) return matchesList(filters[include], name);
  if (filters[ignore] !== undefined) return !matchesList(filters[ignore], name);
  return true;
}

function pathFilter(filters: Filters, changedFiles: string[] | undefined): boolean {
  if (filters.paths === undefined && filters['paths-ignore'] === undefined) return true;
  if (filters.paths !== undefined && filters['paths-ignore'] !== undefined) {
    throw new Error('on: paths and paths-ignore cannot both be used for one event');
  }
  if (!changedFiles) throw new Error('changedFiles is required: the workflow filters this event on paths');
  if (filters.paths !== undefined) return changedFiles.some((file) => matchesList(filters.paths, file));
  return changedFiles.some((file) => !matchesList(filters['paths-ignore'], file));
}

function pushMatches(filters: Filters, ref: string): boolean {
  const branch = /^refs\/heads\/(.+)$/.exec(ref)?.[1];
  const tag = /^refs\/tags\/(.+)$/.exec(ref)?.[1];
  const branchFiltered = filters.branches !== undefined || filters['branches-ignore'] !== undefined;
  const tagFiltered = filters.tags !== undefined || filters['tags-ignore'] !== undefined;
  // With only branch filters a tag push does not run the workflow, and the other way round.
  if (branch !== undefined)
    return tagFiltered && !branchFiltered ? false : refFilter(filters, 'branches', 'branches-ignore', branch);
  if (tag !== undefined) return branchFiltered && !tagFiltered ? false : refFilter(filters, 'tags', 'tags-ignore', tag);
  throw new Error(`push: ref '${ref}' is neither refs/heads/… nor refs/tags/…`);
}

function pullRequestMatches(filters: Filters, payload: Record<string, unknown>): boolean {
  const types = (filters.types as string[] | undefined) ?? ['opened', 'synchronize', 'reopened'];
  const action = payload.action;
  if (typeof action === 'string' && !types.includes(action)) return false;
  if (filters.branches === undefined && filters['branches-ignore'] === undefined) return true;
  const base = (payload.pull_request as { base?: { ref?: unknown } } | undefined)?.base?.ref;
  if (typeof base !== 'string')
    throw new Error('pull_request payload: pull_request.base.ref is needed by a branches filter');
  return refFilter(filters, 'branches', 'branches-ignore', base);
}

export function isTriggered(on: unknown, event: TriggerEvent): boolean {
  const events = normalizeOn(on);
  const filters = events[event.event];
  if (filters === undefined) return false;
  switch (event.event) {
    case 'schedule':
    case 'workflow_dispatch':
      return true;
    case 'push':
      return pushMatches(filters, event.ref) && pathFilter(filters, event.changedFiles);
    case 'pull_request':
      return pullRequestMatches(filters, event.payload) && pathFilter(filters, event.changedFiles);
  }
}
