import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { newIssue, selectIssues, updateIssue } from './fake-github-issues.js';
import {
  type Comment,
  checkedBody,
  commentJson,
  HttpError,
  type Issue,
  issueJson,
  notFound,
  type PullRequest,
  paginate,
  pullJson,
} from './fake-github-model.js';
import { allows, type Permissions } from './github-permissions.js';

/**
 * A fake GitHub REST API for one repository, over a real socket, for the `curl` calls of
 * workflow steps. Paths as on api.github.com. The repository is private, so every call needs a
 * token, and a job token may do only what its `permissions:` grant:
 * - list or get comments: issues or pull-requests read (on an issue: issues read);
 *   write a comment: on a pull request issues or pull-requests write, on an issue issues write;
 * - get a pull request: pull-requests read; pulls of a commit: contents or pull-requests read;
 * - list issues: issues read; create or update an issue: issues write.
 * A token registered without permissions (a personal access token) may do everything.
 */

export interface RecordedRequest {
  method: string;
  /** Path and query, as sent. */
  path: string;
  status: number;
  token?: string;
}

interface TokenGrant {
  login: string;
  permissions?: Permissions;
}

type Handler = (request: { url: URL; body: unknown; grant: TokenGrant }, match: RegExpExecArray) => Reply;
interface Reply {
  status: number;
  body: unknown;
  link?: string;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function tokenOf(header: string | undefined): string | undefined {
  const match = /^(?:bearer|token)\s+(\S+)$/i.exec(header ?? '');
  return match?.[1];
}

function forbidden(): HttpError {
  return new HttpError(403, { message: 'Resource not accessible by integration' });
}

export class FakeGitHub {
  readonly requests: RecordedRequest[] = [];
  private readonly server: Server;
  private readonly tokens = new Map<string, TokenGrant>();
  private readonly pulls = new Map<number, PullRequest>();
  private readonly issueList = new Map<number, Issue>();
  private readonly commentList: Comment[] = [];
  private nextNumber = 1;
  private nextCommentId = 1_000_001;
  private address?: AddressInfo;
  private readonly routes: Array<[string, RegExp, Handler]>;

  /** `owner/name` of the one repository served. */
  readonly repository: string;
  private readonly now: () => Date;

  /** @param options.now the clock of created_at/updated_at. @default the system clock */
  constructor(options: { repository: string; now?: () => Date }) {
    this.repository = options.repository;
    this.now = options.now ?? (() => new Date());
    const repository = this.repository;
    this.server = createServer((request, response) => void this.handle(request, response));
    const repo = `^/repos/${repository.replace('/', '\\/')}`;
    this.routes = [
      ['GET', new RegExp(`${repo}/issues/(\\d+)/comments$`), (r, m) => this.listComments(r, Number(m[1]))],
      ['POST', new RegExp(`${repo}/issues/(\\d+)/comments$`), (r, m) => this.createComment(r, Number(m[1]))],
      ['GET', new RegExp(`${repo}/issues/comments/(\\d+)$`), (r, m) => this.getComment(r, Number(m[1]))],
      ['PATCH', new RegExp(`${repo}/issues/comments/(\\d+)$`), (r, m) => this.updateComment(r, Number(m[1]))],
      ['GET', new RegExp(`${repo}/commits/([0-9a-f]+)/pulls$`, 'i'), (r, m) => this.pullsOfCommit(r, m[1]!)],
      ['GET', new RegExp(`${repo}/pulls/(\\d+)$`), (r, m) => this.getPull(r, Number(m[1]))],
      ['GET', new RegExp(`${repo}/issues$`), (r) => this.listIssues(r)],
      ['POST', new RegExp(`${repo}/issues$`), (r) => this.createIssue(r)],
      ['PATCH', new RegExp(`${repo}/issues/(\\d+)$`), (r, m) => this.updateIssue(r, Number(m[1]))],
    ];
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.address = this.server.address() as AddressInfo;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve, reject) => this.server.close((error) => (error ? reject(error) : resolve())));
  }

  /** What steps get as GITHUB_API_URL. */
  get url(): string {
    if (!this.address) throw new Error('FakeGitHub not started');
    return `http://127.0.0.1:${this.address.port}`;
  }

  /** A job token with the job's permissions, or (no permissions) a personal access token. */
  registerToken(token: string, permissions?: Permissions, login = 'github-actions[bot]'): void {
    this.tokens.set(token, permissions ? { login, permissions } : { login });
  }

  /** Job tokens expire when their job ends. */
  revokeToken(token: string): void {
    this.tokens.delete(token);
  }

  /** The permissions of a registered token; undefined for an unknown token. */
  grantOf(token: string): { login: string; permissions?: Permissions } | undefined {
    return this.tokens.get(token);
  }

  openPullRequest(options: { title: string; headSha: string }): PullRequest {
    const number = this.nextNumber++;
    this.pulls.set(number, { number, title: options.title, head_sha: options.headSha, state: 'open', merged: false });
    return structuredClone(this.pull(number));
  }

  pushToPullRequest(number: number, headSha: string): void {
    this.pull(number).head_sha = headSha;
  }

  merge(number: number, mergeSha: string): void {
    Object.assign(this.pull(number), { state: 'closed', merged: true, merge_commit_sha: mergeSha });
  }

  /** A comment written by someone other than a job (a person, another bot). */
  addComment(number: number, body: string, login: string): Comment {
    this.target(number);
    return this.insertComment(number, body, login);
  }

  comments(number: number): Comment[] {
    return this.commentList.filter((c) => c.issue_number === number).map((c) => structuredClone(c));
  }

  /** Every comment of the repository, on pull requests and issues, oldest first. */
  allComments(): Comment[] {
    return this.commentList.map((c) => structuredClone(c));
  }

  issues(): Issue[] {
    return [...this.issueList.values()].map((i) => structuredClone(i));
  }

  private pull(number: number): PullRequest {
    const pr = this.pulls.get(number);
    if (!pr) throw new Error(`no pull request #${number}`);
    return pr;
  }

  private get repoUrl(): string {
    return `${this.url}/repos/${this.repository}`;
  }

  private get htmlUrl(): string {
    return `https://github.com/${this.repository}`;
  }

  private timestamp(): string {
    return this.now()
      .toISOString()
      .replace(/\.\d{3}Z$/, 'Z');
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', this.url);
    const token = tokenOf(request.headers.authorization);
    let reply: Reply;
    try {
      reply = this.route(request.method ?? 'GET', url, token, await readBody(request));
    } catch (error) {
      // Anything but an HttpError is a bug of this fake: answered as GitHub answers its own.
      reply =
        error instanceof HttpError
          ? { status: error.status, body: error.body }
          : { status: 500, body: { message: (error as Error).message } };
    }
    this.requests.push({
      method: request.method ?? 'GET',
      path: url.pathname + url.search,
      status: reply.status,
      token,
    });
    const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
    if (reply.link) headers.link = reply.link;
    response.writeHead(reply.status, headers).end(JSON.stringify(reply.body));
  }

  private route(method: string, url: URL, token: string | undefined, text: string): Reply {
    const route = this.routes.find(([m, pattern]) => m === method && pattern.test(url.pathname));
    if (!route) throw notFound();
    if (token === undefined) throw new HttpError(401, { message: 'Requires authentication' });
    const grant = this.tokens.get(token);
    if (!grant) throw new HttpError(401, { message: 'Bad credentials' });
    let body: unknown;
    if (text !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        throw new HttpError(400, { message: 'Problems parsing JSON' });
      }
    }
    return route[2]({ url, body, grant }, route[1].exec(url.pathname)!);
  }

  private require(grant: TokenGrant, scopes: readonly string[], needed: 'read' | 'write'): void {
    if (grant.permissions && !allows(grant.permissions, scopes, needed)) throw forbidden();
  }

  /** The scopes that reach an issue's comments: pull requests also through pull-requests. */
  private target(number: number): string[] {
    if (this.pulls.has(number)) return ['issues', 'pull-requests'];
    if (this.issueList.has(number)) return ['issues'];
    throw notFound();
  }

  private insertComment(issueNumber: number, body: string, login: string): Comment {
    const at = this.timestamp();
    const comment = {
      id: this.nextCommentId++,
      issue_number: issueNumber,
      body,
      user: { login },
      created_at: at,
      updated_at: at,
    };
    this.commentList.push(comment);
    return comment;
  }

  private listComments(r: { url: URL; grant: TokenGrant }, number: number): Reply {
    this.require(r.grant, this.target(number), 'read');
    const all = this.commentList.filter((c) => c.issue_number === number);
    const { page, link } = paginate(all, r.url);
    return { status: 200, body: page.map((c) => commentJson(c, this.repoUrl, this.htmlUrl)), link };
  }

  private createComment(r: { body: unknown; grant: TokenGrant }, number: number): Reply {
    this.require(r.grant, this.target(number), 'write');
    const body = checkedBody((r.body as { body?: unknown } | undefined)?.body, 'IssueComment');
    return {
      status: 201,
      body: commentJson(this.insertComment(number, body, r.grant.login), this.repoUrl, this.htmlUrl),
    };
  }

  private getComment(r: { grant: TokenGrant }, id: number): Reply {
    const comment = this.commentList.find((c) => c.id === id);
    if (!comment) throw notFound();
    this.require(r.grant, this.target(comment.issue_number), 'read');
    return { status: 200, body: commentJson(comment, this.repoUrl, this.htmlUrl) };
  }

  private updateComment(r: { body: unknown; grant: TokenGrant }, id: number): Reply {
    const comment = this.commentList.find((c) => c.id === id);
    if (!comment) throw notFound();
    this.require(r.grant, this.target(comment.issue_number), 'write');
    comment.body = checkedBody((r.body as { body?: unknown } | undefined)?.body, 'IssueComment');
    comment.updated_at = this.timestamp();
    return { status: 200, body: commentJson(comment, this.repoUrl, this.htmlUrl) };
  }

  private pullsOfCommit(r: { grant: TokenGrant }, sha: string): Reply {
    this.require(r.grant, ['contents', 'pull-requests'], 'read');
    const pulls = [...this.pulls.values()].filter((p) => p.merge_commit_sha === sha || p.head_sha === sha);
    return { status: 200, body: pulls.map((p) => pullJson(p, this.repoUrl, this.htmlUrl)) };
  }

  private getPull(r: { grant: TokenGrant }, number: number): Reply {
    this.require(r.grant, ['pull-requests'], 'read');
    const pr = this.pulls.get(number);
    if (!pr) throw notFound();
    return { status: 200, body: pullJson(pr, this.repoUrl, this.htmlUrl) };
  }

  private listIssues(r: { url: URL; grant: TokenGrant }): Reply {
    this.require(r.grant, ['issues'], 'read');
    const { page, link } = paginate(selectIssues(this.issueList.values(), r.url), r.url);
    return { status: 200, body: page.map((i) => issueJson(i, this.repoUrl, this.htmlUrl)), link };
  }

  private createIssue(r: { body: unknown; grant: TokenGrant }): Reply {
    this.require(r.grant, ['issues'], 'write');
    const issue = newIssue(r.body, this.nextNumber, r.grant.login, this.timestamp());
    this.nextNumber += 1;
    this.issueList.set(issue.number, issue);
    return { status: 201, body: issueJson(issue, this.repoUrl, this.htmlUrl) };
  }

  private updateIssue(r: { body: unknown; grant: TokenGrant }, number: number): Reply {
    const issue = this.issueList.get(number);
    if (!issue) throw notFound();
    this.require(r.grant, ['issues'], 'write');
    updateIssue(issue, r.body, this.timestamp());
    return { status: 200, body: issueJson(issue, this.repoUrl, this.htmlUrl) };
  }
}
