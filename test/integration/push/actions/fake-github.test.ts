import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeGitHub } from './fake-github.js';
import { resolvePermissions } from './github-permissions.js';

let github: FakeGitHub;

beforeEach(async () => {
  github = await new FakeGitHub({ repository: 'acme/helpdesk-config' }).start();
  github.registerToken('pr-job', resolvePermissions({ contents: 'read', 'pull-requests': 'write' }, undefined));
  github.registerToken('read-only', resolvePermissions({ contents: 'read' }, undefined));
  github.registerToken('issues-job', resolvePermissions({ issues: 'write' }, undefined));
});

afterEach(async () => {
  await github.stop();
});

async function call(method: string, path: string, token?: string, body?: unknown) {
  const response = await fetch(`${github.url}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, link: response.headers.get('link'), body: (await response.json()) as unknown };
}

const repo = '/repos/acme/helpdesk-config';

describe('fake GitHub REST API', () => {
  it('pages comments 30 by default with Link rel="next" and rel="last", and honours per_page up to 100', async () => {
    const { number: pr } = github.openPullRequest({ title: 'Holidays 2027', headSha: 'a1' });
    for (let i = 1; i <= 65; i += 1) github.addComment(pr, `comment ${i}`, 'alice');
    const first = await call('GET', `${repo}/issues/${pr}/comments`, 'pr-job');
    expect(first.status).toBe(200);
    expect((first.body as unknown[]).length).toBe(30);
    expect(first.link).toBe(
      `<${github.url}${repo}/issues/${pr}/comments?per_page=30&page=2>; rel="next", ` +
        `<${github.url}${repo}/issues/${pr}/comments?per_page=30&page=3>; rel="last"`,
    );
    const last = await call('GET', `${repo}/issues/${pr}/comments?per_page=30&page=3`, 'pr-job');
    expect((last.body as Array<{ body: string }>).map((c) => c.body)).toEqual([
      'comment 61',
      'comment 62',
      'comment 63',
      'comment 64',
      'comment 65',
    ]);
    expect(last.link).toContain('rel="prev"');
    expect(last.link).not.toContain('rel="next"');
    const big = await call('GET', `${repo}/issues/${pr}/comments?per_page=500`, 'pr-job');
    expect((big.body as unknown[]).length).toBe(65);
    expect(big.link).toBeNull();
  });

  it('creates and edits a comment as github-actions[bot], and refuses a body over 65 536 characters', async () => {
    const { number: pr } = github.openPullRequest({ title: 'Hours', headSha: 'a1' });
    const created = await call('POST', `${repo}/issues/${pr}/comments`, 'pr-job', { body: '<!-- marker --> v1' });
    expect(created.status).toBe(201);
    const id = (created.body as { id: number; user: { login: string } }).id;
    expect((created.body as { user: { login: string } }).user.login).toBe('github-actions[bot]');
    const edited = await call('PATCH', `${repo}/issues/comments/${id}`, 'pr-job', { body: '<!-- marker --> v2' });
    expect(edited.status).toBe(200);
    expect((await call('GET', `${repo}/issues/comments/${id}`, 'pr-job')).body).toMatchObject({
      id,
      body: '<!-- marker --> v2',
    });
    expect((await call('GET', `${repo}/issues/comments/${id}`, 'read-only')).status).toBe(403);
    expect((await call('GET', `${repo}/issues/comments/1`, 'pr-job')).status).toBe(404);
    expect(github.comments(pr).map((c) => c.body)).toEqual(['<!-- marker --> v2']);
    expect(github.allComments()).toMatchObject([{ issue_number: pr, user: { login: 'github-actions[bot]' } }]);

    const tooLong = await call('POST', `${repo}/issues/${pr}/comments`, 'pr-job', { body: 'x'.repeat(65_537) });
    expect(tooLong).toMatchObject({
      status: 422,
      body: {
        message: 'Validation Failed',
        errors: [
          {
            resource: 'IssueComment',
            code: 'custom',
            field: 'body',
            message: 'body is too long (maximum is 65536 characters)',
          },
        ],
      },
    });
    expect((await call('PATCH', `${repo}/issues/comments/${id}`, 'pr-job', { body: 'é'.repeat(65_536) })).status).toBe(
      200,
    );
  });

  it('answers 401 without a token or with an unknown one, and accepts the `token` scheme', async () => {
    const { number: pr } = github.openPullRequest({ title: 'Hours', headSha: 'a1' });
    expect(await call('GET', `${repo}/pulls/${pr}`)).toMatchObject({ status: 401 });
    expect(await call('GET', `${repo}/pulls/${pr}`, 'ghs_unknown')).toMatchObject({
      status: 401,
      body: { message: 'Bad credentials' },
    });
    const response = await fetch(`${github.url}${repo}/pulls/${pr}`, { headers: { authorization: 'token pr-job' } });
    expect(response.status).toBe(200);
    github.revokeToken('pr-job');
    expect((await call('GET', `${repo}/pulls/${pr}`, 'pr-job')).status).toBe(401);
  });

  it("enforces each token's permissions: 403 Resource not accessible by integration", async () => {
    const { number: pr } = github.openPullRequest({ title: 'Hours', headSha: 'a1' });
    const forbidden = { status: 403, body: { message: 'Resource not accessible by integration' } };
    expect(await call('POST', `${repo}/issues/${pr}/comments`, 'read-only', { body: 'x' })).toMatchObject(forbidden);
    expect(await call('GET', `${repo}/issues/${pr}/comments`, 'read-only')).toMatchObject(forbidden);
    expect(await call('POST', `${repo}/issues`, 'pr-job', { title: 'Drift' })).toMatchObject(forbidden);
    expect(await call('GET', `${repo}/issues`, 'pr-job')).toMatchObject(forbidden);
    // issues: write reaches a pull request's comments too (they are issue comments).
    expect((await call('POST', `${repo}/issues/${pr}/comments`, 'issues-job', { body: 'x' })).status).toBe(201);
    const issue = await call('POST', `${repo}/issues`, 'issues-job', { title: 'Drift', body: 'b', labels: ['drift'] });
    const number = (issue.body as { number: number }).number;
    expect(await call('POST', `${repo}/issues/${number}/comments`, 'pr-job', { body: 'x' })).toMatchObject(forbidden);
    expect(await call('PATCH', `${repo}/issues/${number}`, 'pr-job', { state: 'closed' })).toMatchObject(forbidden);
    // A token registered without permissions stands for a personal access token.
    github.registerToken('pat', undefined, 'alice');
    expect((await call('PATCH', `${repo}/issues/${number}`, 'pat', { state: 'closed' })).status).toBe(200);
  });

  it('finds the pull request of a commit by head sha, and after the merge by merge commit sha', async () => {
    const { number: pr } = github.openPullRequest({ title: 'Holidays', headSha: 'aaa1' });
    github.pushToPullRequest(pr, 'aaa2');
    expect((await call('GET', `${repo}/commits/aaa1/pulls`, 'read-only')).body).toEqual([]);
    expect((await call('GET', `${repo}/commits/aaa2/pulls`, 'read-only')).body).toMatchObject([
      { number: pr, state: 'open', merged: false, merge_commit_sha: null, head: { sha: 'aaa2' } },
    ]);
    github.merge(pr, 'bbb9');
    expect((await call('GET', `${repo}/commits/bbb9/pulls`, 'read-only')).body).toMatchObject([
      { number: pr, state: 'closed', merged: true, merge_commit_sha: 'bbb9' },
    ]);
    expect((await call('GET', `${repo}/pulls/${pr}`, 'pr-job')).body).toMatchObject({ number: pr, merged: true });
    expect((await call('GET', `${repo}/pulls/999`, 'pr-job')).status).toBe(404);
  });

  it('lists issues newest first without pull requests, filtered by state and labels; numbers shared with PRs', async () => {
    const { number: pr } = github.openPullRequest({ title: 'Hours', headSha: 'a1' });
    const open = (await call('POST', `${repo}/issues`, 'issues-job', { title: 'Drift', labels: ['drift', 'helpdesk'] }))
      .body as { number: number };
    const other = (await call('POST', `${repo}/issues`, 'issues-job', { title: 'Other' })).body as { number: number };
    expect([pr, open.number, other.number]).toEqual([1, 2, 3]);
    const list = await call('GET', `${repo}/issues?state=all`, 'issues-job');
    expect((list.body as Array<{ number: number }>).map((i) => i.number)).toEqual([3, 2]);
    const drift = await call('GET', `${repo}/issues?state=open&labels=drift,HELPDESK`, 'issues-job');
    expect((drift.body as Array<{ title: string }>).map((i) => i.title)).toEqual(['Drift']);

    const closed = await call('PATCH', `${repo}/issues/${open.number}`, 'issues-job', {
      state: 'closed',
      state_reason: 'completed',
    });
    expect(closed.body).toMatchObject({ state: 'closed', state_reason: 'completed' });
    expect((await call('GET', `${repo}/issues?labels=drift`, 'issues-job')).body).toEqual([]);
    expect((await call('GET', `${repo}/issues?state=closed`, 'issues-job')).body).toMatchObject([{ title: 'Drift' }]);
    expect(github.issues().find((i) => i.number === open.number)?.state).toBe('closed');
    const reopened = await call('PATCH', `${repo}/issues/${open.number}`, 'issues-job', { state: 'open' });
    expect(reopened.body).toMatchObject({ state: 'open', state_reason: 'reopened' });
    expect(
      (await call('POST', `${repo}/issues`, 'issues-job', { title: 'Long', body: 'x'.repeat(65_537) })).body,
    ).toMatchObject({ errors: [{ resource: 'Issue', field: 'body' }] });
  });

  it('records every request with its status and token', async () => {
    const { number: pr } = github.openPullRequest({ title: 'Hours', headSha: 'a1' });
    await call('GET', `${repo}/issues/${pr}/comments?per_page=100`, 'pr-job');
    await call('GET', `/repos/other/repo/pulls/1`, 'pr-job');
    expect(github.requests).toEqual([
      { method: 'GET', path: `${repo}/issues/${pr}/comments?per_page=100`, status: 200, token: 'pr-job' },
      { method: 'GET', path: '/repos/other/repo/pulls/1', status: 404, token: 'pr-job' },
    ]);
  });
});
