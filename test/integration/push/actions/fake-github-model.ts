/**
 * What the fake GitHub keeps of one repository, and how it shows it: the JSON shapes of
 * api.github.com ("Issues", "Issue comments", "Pulls"), trimmed to the fields steps read.
 */

export interface PullRequest {
  number: number;
  title: string;
  head_sha: string;
  merge_commit_sha?: string;
  state: 'open' | 'closed';
  merged: boolean;
}

export interface Issue {
  number: number;
  title: string;
  body: string;
  state: 'open' | 'closed';
  state_reason: 'completed' | 'not_planned' | 'reopened' | null;
  labels: string[];
  user: { login: string };
  created_at: string;
  updated_at: string;
}

export interface Comment {
  id: number;
  issue_number: number;
  body: string;
  user: { login: string };
  created_at: string;
  updated_at: string;
}

/** GitHub's limit on an issue's or a comment's body, counted in characters (code points). */
export const MAX_BODY = 65_536;

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(String(body.message));
  }
}

export function bodyTooLong(resource: 'Issue' | 'IssueComment'): HttpError {
  return new HttpError(422, {
    message: 'Validation Failed',
    errors: [
      { resource, code: 'custom', field: 'body', message: `body is too long (maximum is ${MAX_BODY} characters)` },
    ],
    documentation_url: 'https://docs.github.com/rest',
  });
}

export function notFound(): HttpError {
  return new HttpError(404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' });
}

export function invalidField(resource: string, field: string, code: 'missing_field' | 'invalid'): HttpError {
  return new HttpError(422, { message: 'Validation Failed', errors: [{ resource, code, field }] });
}

/** A body checked as GitHub checks it: a string of at most MAX_BODY characters. */
export function checkedBody(value: unknown, resource: 'Issue' | 'IssueComment'): string {
  if (typeof value !== 'string')
    throw invalidField(resource, 'body', value === undefined ? 'missing_field' : 'invalid');
  if ([...value].length > MAX_BODY) throw bodyTooLong(resource);
  return value;
}

export function pullJson(pr: PullRequest, repoUrl: string, htmlUrl: string): Record<string, unknown> {
  return {
    url: `${repoUrl}/pulls/${pr.number}`,
    html_url: `${htmlUrl}/pull/${pr.number}`,
    number: pr.number,
    title: pr.title,
    state: pr.state,
    merged: pr.merged,
    merge_commit_sha: pr.merge_commit_sha ?? null,
    head: { sha: pr.head_sha },
  };
}

export function issueJson(issue: Issue, repoUrl: string, htmlUrl: string): Record<string, unknown> {
  return {
    url: `${repoUrl}/issues/${issue.number}`,
    html_url: `${htmlUrl}/issues/${issue.number}`,
    number: issue.number,
    title: issue.title,
    body: issue.body,
    state: issue.state,
    state_reason: issue.state_reason,
    labels: issue.labels.map((name) => ({ name })),
    user: { ...issue.user, type: issue.user.login.endsWith('[bot]') ? 'Bot' : 'User' },
    created_at: issue.created_at,
    updated_at: issue.updated_at,
  };
}

export function commentJson(comment: Comment, repoUrl: string, htmlUrl: string): Record<string, unknown> {
  return {
    id: comment.id,
    url: `${repoUrl}/issues/comments/${comment.id}`,
    html_url: `${htmlUrl}/issues/${comment.issue_number}#issuecomment-${comment.id}`,
    issue_url: `${repoUrl}/issues/${comment.issue_number}`,
    body: comment.body,
    user: { ...comment.user, type: comment.user.login.endsWith('[bot]') ? 'Bot' : 'User' },
    created_at: comment.created_at,
    updated_at: comment.updated_at,
  };
}

/**
 * One page of a list, and its `Link` header as GitHub sends it ("Using pagination in the
 * REST API"): first/prev from page 2 on, next/last while more pages exist.
 */
export function paginate<T>(items: T[], url: URL): { page: T[]; link?: string } {
  const perPage = Math.min(100, Math.max(1, Number(url.searchParams.get('per_page') ?? 30) || 30));
  const pageNumber = Math.max(1, Number(url.searchParams.get('page') ?? 1) || 1);
  const last = Math.max(1, Math.ceil(items.length / perPage));
  const page = items.slice((pageNumber - 1) * perPage, pageNumber * perPage);
  const at = (n: number) => {
    const target = new URL(url);
    target.searchParams.set('per_page', String(perPage));
    target.searchParams.set('page', String(n));
    return `<${target.toString()}>`;
  };
  const links: string[] = [];
  if (pageNumber > 1) links.push(`${at(Math.min(pageNumber - 1, last))}; rel="prev"`, `${at(1)}; rel="first"`);
  if (pageNumber < last) links.push(`${at(pageNumber + 1)}; rel="next"`, `${at(last)}; rel="last"`);
  return links.length > 0 ? { page, link: links.join(', ') } : { page };
}
