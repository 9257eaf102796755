import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/start.js';
import { ConditionalS3Server } from '../state/support/conditional-s3-server.js';
import { type ActionsRunner, createActionsRunner, type WorkflowRun } from './actions/actions-runner.js';
import { FakeGitHub } from './actions/fake-github.js';

// The shipped workflow (deploy/github-actions/hours-and-holidays.yml) run step by step, as
// GitHub would run it, over a year's worth of events: pull requests planned and re-pushed,
// merges applied, two pull requests racing, a refusal and the way forward by hand, a push
// without review, drift found and cleared, invalid files. Its steps talk to the sandbox (the
// helpdesk), to an S3 stand-in holding the state and its lock (each job starts from an empty
// workspace, as on GitHub, so only S3 carries state between runs) and to a fake GitHub API.
// The CLI is the built one (dist/), installed by the `npm ci` shim as the package would be.

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const WORKFLOW = join(ROOT, 'deploy/github-actions/hours-and-holidays.yml');
const REPO = 'acme/helpdesk-config';
const READ_TOKEN = 'sandbox-agent';
const WRITE_TOKEN = 'sandbox-admin';
const READ_ROLE = 'arn:aws:iam::111111111111:role/helpdesk-state-read';
const WRITE_ROLE = 'arn:aws:iam::111111111111:role/helpdesk-state-write';
const STATE_KEY = 'hs-state/hours-and-holidays/state.sqlite';

let sandbox: RunningSandbox;
const s3 = new ConditionalS3Server();
let github: FakeGitHub;
let runner: ActionsRunner;
let dir: string;

/** `npm ci` installs this checkout as the helpdesk-sync package; `npx` runs a local bin, as npm does. */
function writeShims(bin: string): void {
  mkdirSync(bin, { recursive: true });
  const shim = (name: string, body: string) => {
    writeFileSync(join(bin, name), `#!/usr/bin/env bash\nset -euo pipefail\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  };
  shim(
    'npm',
    [
      '[ "${1:-}" = ci ] || { echo "npm shim: only npm ci" >&2; exit 2; }',
      'mkdir -p node_modules/.bin',
      `ln -s "${ROOT}" node_modules/helpdesk-sync`,
      // npm writes an executable bin wrapper; the built main.js itself is not executable.
      `printf '#!/usr/bin/env bash\\nexec node "%s/dist/cli/main.js" "$@"\\n' "$PWD/node_modules/helpdesk-sync" > node_modules/.bin/helpdesk-sync`,
      'chmod +x node_modules/.bin/helpdesk-sync',
    ].join('\n'),
  );
  shim('npx', 'name=$1; shift; exec node_modules/.bin/"$name" "$@"');
}

const config = (endpoint: string) =>
  [
    'source:',
    '  base_url: ${HELPDESK_BASE_URL}',
    '  token: ${HELPDESK_TOKEN}',
    'state:',
    `  path: s3://${STATE_KEY}`,
    `  s3: { endpoint: "${endpoint}", region: us-east-1, force_path_style: true }`,
    'push:',
    '  holidays: helpdesk/holidays.yaml',
    '  business_hours: helpdesk/business-hours.yaml',
    'log: { level: warn }',
    '',
  ].join('\n');

const holiday = (key: string, name: string, date: string) =>
  `  - { key: ${key}, name: "${name}", start_date: "${date}", end_date: "${date}" }`;

const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];

/** The config repository's files, with holidays and hours as given. */
function files(holidays: string[], hours = 'calendar_24_7'): Record<string, string> {
  const profile =
    hours === 'calendar_24_7'
      ? '    type: calendar_24_7\n'
      : `    type: business_hours\n    schedule:\n${DAYS.map((d, i) => `      ${d}: ${i < 5 ? `{ start: "${hours}", end: "17:00" }` : 'null'}`).join('\n')}\n`;
  return {
    'helpdesk/helpdesk-sync.yaml': config(s3.endpoint),
    'helpdesk/holidays.yaml': `holidays:\n${holidays.join('\n')}\n`,
    'helpdesk/business-hours.yaml': `business_hours:\n  - key: billing-chat\n    name: Billing chat\n${profile}    channels: [{ inbox: Billing, channel: livechat }]\n`,
    'package.json': '{ "name": "helpdesk-config", "private": true, "dependencies": { "helpdesk-sync": "^0.1.0" } }\n',
    'package-lock.json': '{ "lockfileVersion": 3 }\n',
    'README.md': '# helpdesk config\n',
  };
}

let shaCounter = 0;
const nextSha = () => (++shaCounter).toString(16).padStart(40, 'a');

/** Opens a pull request whose head holds `content`, and runs the workflow for it. */
async function openPullRequest(title: string, content: Record<string, string>, changed: string[]) {
  const head = nextSha();
  const pr = github.openPullRequest({ title, headSha: head });
  const run = await pullRequestRun(pr.number, head, content, changed);
  return { number: pr.number, head, run };
}

function pullRequestRun(number: number, head: string, content: Record<string, string>, changed: string[]) {
  return runner.runWorkflow({
    event: 'pull_request',
    payload: { pull_request: { number, head: { sha: head } } },
    sha: nextSha(), // the merge commit GitHub tests a pull request at
    ref: `refs/pull/${number}/merge`,
    changedFiles: changed,
    files: content,
  });
}

/** Merges a pull request and runs the push to main that follows. */
function merge(number: number, content: Record<string, string>, changed: string[]) {
  const sha = nextSha();
  github.merge(number, sha);
  return pushToMain(sha, content, changed);
}

function pushToMain(sha: string, content: Record<string, string>, changed: string[]) {
  return runner.runWorkflow({
    event: 'push',
    payload: {},
    sha,
    ref: 'refs/heads/main',
    changedFiles: changed,
    files: content,
  });
}

const onMain = (event: 'schedule' | 'workflow_dispatch', content: Record<string, string>) =>
  runner.runWorkflow({ event, payload: {}, sha: nextSha(), ref: 'refs/heads/main', files: content });

const bot = (number: number) => github.comments(number).filter((c) => c.user.login === 'github-actions[bot]');
const planComment = (number: number) => bot(number).filter((c) => c.body.startsWith('<!-- helpdesk-sync:plan -->'));
const applyComment = (number: number) => bot(number).filter((c) => c.body.startsWith('<!-- helpdesk-sync:apply -->'));
const holidayNames = async () =>
  ((await (await fetchAs(WRITE_TOKEN, '/holidays')).json()) as Array<{ name: string }>).map((h) => h.name);
const fetchAs = (token: string, path: string, init: RequestInit = {}) =>
  fetch(`${sandbox.baseUrl}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
  });
const holidayWrites = () =>
  Object.entries(sandbox.stats().by_route)
    .filter(([route]) => /^(POST|PATCH|DELETE) \/v1\/(business-hours|holidays)/.test(route))
    .reduce((sum, [, byStatus]) => sum + Object.values(byStatus).reduce((a, b) => a + b, 0), 0);

function jobOf(run: WorkflowRun, job: string) {
  const result = run.jobs[job];
  if (!result) throw new Error(`job ${job} did not run (jobs: ${Object.keys(run.jobs).join(', ')})`);
  return result;
}

/** A job's step log, for a failure message. */
const logOf = (run: WorkflowRun, job: string) =>
  jobOf(run, job)
    .steps.map((s) => `--- ${s.name} (${s.result})\n${s.stdout}\n${s.stderr}`)
    .join('\n');

function expectJob(run: WorkflowRun, job: string, result: 'success' | 'failure' | 'skipped') {
  expect(jobOf(run, job).result, logOf(run, job)).toBe(result);
}

beforeAll(async () => {
  const started = Date.now();
  sandbox = await startSandbox({
    seed: 5,
    conversations: 5,
    rateLimit: 100_000,
    now: () => new Date(Date.parse('2026-11-20T10:00:00Z') + (Date.now() - started)),
  });
  await s3.start();
  github = new FakeGitHub({ repository: REPO });
  await github.start();
  dir = mkdtempSync(join(tmpdir(), 'hs-workflow-'));
  writeShims(join(dir, 'bin'));
  const keys = (id: string) => ({ AWS_ACCESS_KEY_ID: id, AWS_SECRET_ACCESS_KEY: 'stand-in' });
  runner = createActionsRunner({
    workflowPath: WORKFLOW,
    github,
    repository: REPO,
    secrets: { HELPDESK_BASE_URL: sandbox.baseUrl, HELPDESK_READ_TOKEN: READ_TOKEN },
    environments: { helpdesk: { secrets: { HELPDESK_TOKEN: WRITE_TOKEN } } },
    vars: {
      HELPDESK_STATE_READ_ROLE: READ_ROLE,
      HELPDESK_STATE_WRITE_ROLE: WRITE_ROLE,
      HELPDESK_STATE_REGION: 'us-east-1',
    },
    awsRoles: { [READ_ROLE]: keys('READER'), [WRITE_ROLE]: keys('WRITER') },
    binDir: join(dir, 'bin'),
    baseEnv: { AWS_EC2_METADATA_DISABLED: 'true' },
    tempRoot: dir,
  });
}, 60_000);

afterAll(async () => {
  await sandbox?.close();
  await s3.stop();
  await github?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const v1 = [holiday('ny-2027', 'New Year', '2027-01-01'), holiday('xmas-2027', 'Christmas', '2027-12-25')];
const v2 = [...v1, holiday('ny-2028', 'New Year', '2028-01-01')];
const withA = [...v2, holiday('offsite', 'Company offsite', '2027-06-10')];
const withB = [...v2, holiday('founders', 'Founders day', '2027-09-01')];
const withAB = [...withA, holiday('founders', 'Founders day', '2027-09-01')];
const HOLIDAYS = ['helpdesk/holidays.yaml'];

describe('the hours-and-holidays workflow, run step by step over many merges', () => {
  it('plans each pull request into one updated comment and applies exactly the reviewed plan on merge', async () => {
    const first = await openPullRequest('Holidays and chat hours', files(v1), ['helpdesk/holidays.yaml']);
    expectJob(first.run, 'plan', 'success');
    expect(Object.keys(first.run.jobs)).toEqual(expect.arrayContaining(['plan']));
    const [comment] = planComment(first.number);
    expect(comment?.body).toContain('## Plan: 3 to create');
    expect(comment?.body).toMatch(/<!-- helpdesk-sync:saved-plan run=\d+ sha256=[0-9a-f]{64} head=/);
    // The plan job read with the read-only token and the read role.
    const planStep = jobOf(first.run, 'plan').steps.find((s) => s.name === 'Plan')!;
    expect([planStep.env.HELPDESK_TOKEN, planStep.env.AWS_ACCESS_KEY_ID]).toEqual([READ_TOKEN, 'READER']);
    // The whole saved plan is in the step's log, where a comment cut to fit links.
    const rows = comment!.body.split('\n').filter((line) => line.startsWith('## Plan') || line.startsWith('|'));
    expect(rows.length).toBeGreaterThan(3);
    for (const row of rows) expect(planStep.stderr).toContain(row);

    // A second push to the branch updates the same comment.
    const pushed = await pullRequestRun(first.number, nextSha(), files(v2), HOLIDAYS);
    expectJob(pushed, 'plan', 'success');
    expect(planComment(first.number)).toHaveLength(1);
    expect(planComment(first.number)[0]!.body).toContain('## Plan: 4 to create');

    const applied = await merge(first.number, files(v2), HOLIDAYS);
    expectJob(applied, 'apply', 'success');
    expect(applyComment(first.number)[0]?.body).toMatch(/^<!-- helpdesk-sync:apply -->\n## Applied: 4 change\(s\)/);
    expect(await holidayNames()).toEqual(expect.arrayContaining(['New Year', 'Christmas']));
    expect(s3.objects.has(STATE_KEY)).toBe(true);
  });

  it('plans the next pull request from the kept state (an update, not adoptions), past 100 other comments', async () => {
    const stateBefore = s3.objects.get(STATE_KEY)!.etag;
    const head = nextSha();
    const pr = github.openPullRequest({ title: 'Open at 08:30', headSha: head });
    const run = await pullRequestRun(pr.number, head, files(v2, '08:30'), ['helpdesk/business-hours.yaml']);
    expectJob(run, 'plan', 'success');
    for (let i = 0; i < 120; i++) github.addComment(pr.number, `looks good ${i}`, 'a-reviewer');
    const again = await pullRequestRun(pr.number, nextSha(), files(v2, '08:00'), ['helpdesk/business-hours.yaml']);
    expectJob(again, 'plan', 'success');
    const comments = planComment(pr.number);
    expect(comments).toHaveLength(1);
    expect(comments[0]!.body).toMatch(/## Plan: 0 to create, 1 to update, 0 to delete, 0 to adopt/);
    expect(comments[0]!.body).toContain('08:00');
    // Plans never write the state.
    expect(s3.objects.get(STATE_KEY)!.etag).toBe(stateBefore);
    const applied = await merge(pr.number, files(v2, '08:00'), ['helpdesk/business-hours.yaml']);
    expectJob(applied, 'apply', 'success');
    expect(applyComment(pr.number)[0]?.body).toContain('## Applied: 1 change(s)');
  });

  it('refuses a reviewed plan that another merge overtook, and applies main by hand after approval', async () => {
    const a = await openPullRequest('Offsite', files(withA), HOLIDAYS);
    const b = await openPullRequest('Founders day', files(withB), HOLIDAYS);
    expectJob(a.run, 'plan', 'success');
    expectJob(b.run, 'plan', 'success');
    expectJob(await merge(a.number, files(withA), HOLIDAYS), 'apply', 'success');

    const writes = holidayWrites();
    const overtaken = await merge(b.number, files(withAB), HOLIDAYS);
    expectJob(overtaken, 'apply', 'failure');
    expect(holidayWrites()).toBe(writes);
    const result = applyComment(b.number)[0]!.body;
    expect(result).toContain('## Not applied: the push files or the tool changed since the plan was reviewed');
    expect(result).toContain('run this workflow by hand');

    const byHand = await onMain('workflow_dispatch', files(withAB));
    expectJob(byHand, 'plan-main', 'success');
    expectJob(byHand, 'apply-main', 'success');
    expect(jobOf(byHand, 'apply-main').environment).toBe('helpdesk');
    expect(jobOf(byHand, 'plan-main').summary).toContain('## Plan: 1 to create');
    expect(await holidayNames()).toEqual(expect.arrayContaining(['Company offsite', 'Founders day']));
  });

  it('opens one drift issue for a change made in the helpdesk, updates it, and closes it once applied', async () => {
    const holidays = (await (await fetchAs(WRITE_TOKEN, '/holidays')).json()) as Array<{ id: string; name: string }>;
    const xmas = holidays.find((h) => h.name === 'Christmas')!;
    expect(
      (await fetchAs(WRITE_TOKEN, `/holidays/${xmas.id}`, { method: 'PATCH', body: '{"name":"Xmas"}' })).status,
    ).toBe(200);

    expectJob(await onMain('schedule', files(withAB)), 'drift', 'success');
    expectJob(await onMain('schedule', files(withAB)), 'drift', 'success');
    const open = github.issues().filter((i) => i.state === 'open');
    expect(open).toHaveLength(1);
    expect(open[0]!.labels).toContain('helpdesk-drift');
    expect(open[0]!.body).toContain('Christmas');

    expectJob(await onMain('workflow_dispatch', files(withAB)), 'apply-main', 'success');
    expectJob(await onMain('schedule', files(withAB)), 'drift', 'success');
    expect(github.issues().filter((i) => i.state === 'open')).toHaveLength(0);
    expect(github.issues()).toHaveLength(1);
  });

  it('fails the check of invalid files with a comment that says so and links the run, and skips what it does not watch', async () => {
    const invalid = files([...withAB, holiday('bad', 'Bad', '2027-02-30')]);
    const bad = await openPullRequest('Typo', invalid, HOLIDAYS);
    expectJob(bad.run, 'plan', 'failure');
    const body = planComment(bad.number)[0]!.body;
    expect(body).toContain('**The plan failed** (exit 64: the configuration or the push files are invalid)');
    expect(body).toMatch(/\[the run's log\]\(https:\/\/github\.com\/acme\/helpdesk-config\/actions\/runs\/\d+\)/);
    expect(body).not.toContain('saved-plan');

    // By hand and on schedule, a plan that fails fails its job (a red run), and nothing is applied.
    const byHand = await onMain('workflow_dispatch', invalid);
    expectJob(byHand, 'plan-main', 'failure');
    expectJob(byHand, 'apply-main', 'skipped');
    expectJob(await onMain('schedule', invalid), 'drift', 'failure');
    const failed = github.issues().filter((i) => i.state === 'open');
    expect(failed).toHaveLength(1);
    expect(failed[0]!.body).toContain('failed (exit 64: the configuration or the push files are invalid)');
    expectJob(await onMain('schedule', files(withAB)), 'drift', 'success');
    expect(github.issues().filter((i) => i.state === 'open')).toHaveLength(0);

    const docs = await openPullRequest('Docs', files(withAB), ['README.md']);
    expect(docs.run.triggered).toBe(false);
    const lockfile = await openPullRequest('Bump helpdesk-sync', files(withAB), ['package-lock.json']);
    expectJob(lockfile.run, 'plan', 'success');
    expect(planComment(lockfile.number)[0]!.body).toContain('## No changes');
  });

  it('applies nothing for a push to main that no pull request reviewed, nor for a merge no plan ran on', async () => {
    const writes = holidayWrites();
    const sneaky = files([...withAB, holiday('sneaky', 'Sneaky', '2027-03-03')]);
    const run = await pushToMain(nextSha(), sneaky, HOLIDAYS);
    expectJob(run, 'apply', 'failure');
    expect(logOf(run, 'apply')).toContain('nothing reviewed to apply');
    // A pull request opened before the workflow existed: merged, but never planned.
    const unplanned = github.openPullRequest({ title: 'Before the workflow', headSha: nextSha() });
    const merged = await merge(unplanned.number, sneaky, HOLIDAYS);
    expectJob(merged, 'apply', 'failure');
    expect(logOf(merged, 'apply')).toContain(`pull request #${unplanned.number} has no plan comment`);
    expect(holidayWrites()).toBe(writes);
  });

  it('kept every token, the API address and log lines out of comments and issues, and wrote state only with the write role', () => {
    const texts = [...github.allComments().map((c) => c.body), ...github.issues().map((i) => i.body ?? '')];
    expect(texts.length).toBeGreaterThan(10);
    for (const text of texts) {
      expect(text.length).toBeLessThanOrEqual(65_536);
      for (const secret of [READ_TOKEN, WRITE_TOKEN, sandbox.baseUrl, '127.0.0.1', '"level":', 'stand-in']) {
        expect(text).not.toContain(secret);
      }
    }
    const writes = s3.seen.filter((r) => r.method === 'PUT' || r.method === 'DELETE');
    expect(writes.length).toBeGreaterThan(0);
    expect(new Set(writes.map((w) => w.accessKey))).toEqual(new Set(['WRITER']));
  });
});
