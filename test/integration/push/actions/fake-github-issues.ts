import { checkedBody, type Issue, invalidField } from './fake-github-model.js';

/**
 * The rules of GitHub's issue endpoints ("Issues": list, create, update) on the fake's model:
 * what a list query selects, what a new issue holds, how an update changes one.
 */

function labelNames(value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw invalidField('Issue', 'labels', 'invalid');
  return value.map((l: unknown) =>
    typeof l === 'object' && l !== null ? String((l as { name?: unknown }).name) : String(l),
  );
}

/** `?state=open|closed|all&labels=a,b`: every label must be on the issue; newest first. */
export function selectIssues(issues: Iterable<Issue>, url: URL): Issue[] {
  const state = url.searchParams.get('state') ?? 'open';
  if (!['open', 'closed', 'all'].includes(state)) throw invalidField('Issue', 'state', 'invalid');
  const labels = (url.searchParams.get('labels') ?? '').split(',').filter((l) => l !== '');
  return [...issues]
    .filter((i) => state === 'all' || i.state === state)
    .filter((i) => labels.every((l) => i.labels.some((own) => own.toLowerCase() === l.toLowerCase())))
    .sort((a, b) => b.number - a.number);
}

export function newIssue(body: unknown, number: number, login: string, at: string): Issue {
  const input = (body ?? {}) as { title?: unknown; body?: unknown; labels?: unknown };
  if (typeof input.title !== 'string' || input.title === '') throw invalidField('Issue', 'title', 'missing_field');
  return {
    number,
    title: input.title,
    body: input.body === undefined ? '' : checkedBody(input.body, 'Issue'),
    state: 'open',
    state_reason: null,
    labels: labelNames(input.labels),
    user: { login },
    created_at: at,
    updated_at: at,
  };
}

/** Closing sets state_reason 'completed' unless one is given; reopening sets 'reopened'. */
export function updateIssue(issue: Issue, body: unknown, at: string): void {
  const input = (body ?? {}) as Record<string, unknown>;
  if (input.title !== undefined) issue.title = String(input.title);
  if (input.body !== undefined) issue.body = checkedBody(input.body, 'Issue');
  if (input.labels !== undefined) issue.labels = labelNames(input.labels);
  if (input.state !== undefined) {
    if (input.state !== 'open' && input.state !== 'closed') throw invalidField('Issue', 'state', 'invalid');
    const reopened = issue.state === 'closed' && input.state === 'open';
    issue.state = input.state;
    issue.state_reason = input.state === 'closed' ? 'completed' : reopened ? 'reopened' : issue.state_reason;
  }
  if (input.state_reason !== undefined) {
    const reasons = ['completed', 'not_planned', 'reopened', null];
    if (!reasons.includes(input.state_reason as string | null)) throw invalidField('Issue', 'state_reason', 'invalid');
    issue.state_reason = input.state_reason as Issue['state_reason'];
  }
  issue.updated_at = at;
}
