import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ActionsRunner, createActionsRunner, type RunnerOptions } from './actions-runner.js';
import { FakeGitHub } from './fake-github.js';

/**
 * A small workflow of this test's own: a plan job on pull requests that saves an artifact and
 * comments through the fake GitHub with curl, a job that needs it, and an apply job on pushes to
 * main that finds the reviewed run from the comment and downloads that run's artifact.
 */
const WORKFLOW = `
name: Fixture
on:
  pull_request:
    paths: ["config/**"]
  push:
    branches: [main]
    paths: ["config/**"]
permissions:
  contents: read
concurrency:
  group: fixture-\${{ github.ref }}
env:
  CONFIG: config/app.txt
jobs:
  plan:
    if: github.event_name == 'pull_request'
    runs-on: ubuntu-latest
    concurrency:
      group: plan-\${{ github.event.pull_request.number }}
      cancel-in-progress: true
    permissions:
      contents: read
      pull-requests: write
    outputs:
      digest: \${{ steps.compute.outputs.digest }}
    steps:
      - uses: actions/checkout@v4
      - name: Compute
        id: compute
        env:
          DEPLOY: \${{ secrets.DEPLOY_TOKEN }}
        run: |
          digest=$(sha256sum "$CONFIG" | cut -c1-12)
          echo "digest=$digest" >> "$GITHUB_OUTPUT"
          { echo 'notes<<EOF'; echo 'line one'; echo 'line two'; echo 'EOF'; } >> "$GITHUB_OUTPUT"
          cp "$CONFIG" plan.txt
          echo "planned $digest" >> "$GITHUB_STEP_SUMMARY"
      - uses: actions/upload-artifact@v4
        with:
          name: the-plan
          path: plan.txt
      - name: Comment on \${{ github.event.pull_request.number }}
        env:
          GH_TOKEN: \${{ github.token }}
          PR: \${{ github.event.pull_request.number }}
          NOTES: \${{ steps.compute.outputs.notes }}
        run: |
          body=$(jq -n --arg b "<!-- run=$GITHUB_RUN_ID --> $NOTES" '{body: $b}')
          curl -sSf -X POST -H "Authorization: Bearer $GH_TOKEN" -H 'content-type: application/json' \\
            "$GITHUB_API_URL/repos/$GITHUB_REPOSITORY/issues/$PR/comments" -d "$body" > /dev/null
  report:
    needs: plan
    runs-on: ubuntu-latest
    steps:
      - env:
          DIGEST: \${{ needs.plan.outputs.digest }}
          RESULT: \${{ needs.plan.result }}
        run: |
          echo "$RESULT $DIGEST"
          ls -A "$GITHUB_WORKSPACE" | wc -l
  apply:
    if: github.event_name == 'push'
    runs-on: ubuntu-latest
    environment: production
    permissions:
      contents: read
      actions: read
      pull-requests: read
      id-token: write
    steps:
      - name: Find the reviewed run
        id: reviewed
        shell: bash
        env:
          GH_TOKEN: \${{ github.token }}
        run: |
          api() { curl -sSf -H "Authorization: Bearer $GH_TOKEN" "$GITHUB_API_URL/repos/$GITHUB_REPOSITORY/$1"; }
          pr=$(api "commits/$GITHUB_SHA/pulls" | jq -r '.[0].number')
          run=$(api "issues/$pr/comments" | jq -r '.[0].body | capture("run=(?<id>[0-9]+)").id')
          echo "run_id=$run" >> "$GITHUB_OUTPUT"
      - uses: actions/download-artifact@v4
        with:
          name: the-plan
          path: reviewed
          run-id: \${{ steps.reviewed.outputs.run_id }}
          github-token: \${{ github.token }}
      - uses: aws-actions/configure-aws-credentials@v4
        with:
          role-to-assume: \${{ vars.WRITE_ROLE }}
          aws-region: eu-west-1
      - name: Apply
        env:
          DEPLOY: \${{ secrets.DEPLOY_TOKEN }}
          SHARED: \${{ secrets.SHARED }}
        run: cat reviewed/plan.txt
`;

let github: FakeGitHub;
let tempRoot: string;

beforeEach(async () => {
  github = await new FakeGitHub({ repository: 'acme/config' }).start();
  tempRoot = mkdtempSync(join(tmpdir(), 'actions-runner-'));
});

afterEach(async () => {
  await github.stop();
  rmSync(tempRoot, { recursive: true, force: true });
});

function runner(workflow: string, options: Partial<RunnerOptions> = {}): ActionsRunner {
  return new ActionsRunner({ workflow, github, tempRoot, ...options });
}

function pullRequest(number: number, sha: string) {
  return {
    event: 'pull_request' as const,
    payload: { action: 'synchronize', pull_request: { number, head: { sha } } },
    sha,
    ref: `refs/pull/${number}/merge`,
    changedFiles: ['config/app.txt'],
  };
}

/** A run by hand (no trigger filter applies). */
const dispatch = { event: 'workflow_dispatch' as const, sha: 's', ref: 'refs/heads/main', files: {} };

/** A workflow of one job whose steps are given. */
function oneJob(steps: string, extra = ''): string {
  return `on: workflow_dispatch\njobs:\n  only:\n    runs-on: ubuntu-latest\n${extra}    steps:\n${steps}`;
}

describe('actions runner', () => {
  it('runs plan on a pull request and apply on the merge, passing outputs, a comment and an artifact', async () => {
    const actions = runner(WORKFLOW, {
      secrets: { SHARED: 'repo-value' },
      environments: { production: { secrets: { DEPLOY_TOKEN: 'env-only', SHARED: 'env-value' } } },
      vars: { WRITE_ROLE: 'arn:aws:iam::1:role/write' },
      awsRoles: { 'arn:aws:iam::1:role/write': { AWS_ACCESS_KEY_ID: 'AKIAFAKE' } },
    });
    const { number: pr } = github.openPullRequest({ title: 'Config', headSha: 'c1' });
    const planRun = await actions.runWorkflow({ ...pullRequest(pr, 'c1'), files: { 'config/app.txt': 'v1\n' } });

    expect(planRun).toMatchObject({ triggered: true, concurrency: { group: `fixture-refs/pull/${pr}/merge` } });
    const plan = planRun.jobs.plan!;
    expect(plan.result).toBe('success');
    expect(plan.concurrency).toEqual({ group: `plan-${pr}`, cancelInProgress: true });
    expect(plan.permissions).toMatchObject({ contents: 'read', 'pull-requests': 'write', issues: 'none' });
    expect(plan.outputs.digest).toMatch(/^[0-9a-f]{12}$/);
    expect(plan.summary).toBe(`planned ${plan.outputs.digest}\n`);
    expect(plan.steps[1]!.outputs.notes).toBe('line one\nline two');
    expect(plan.steps[3]!.name).toBe(`Comment on ${pr}`);
    // The environment's secret reaches only the job that names the environment.
    expect(plan.steps[1]!.env.DEPLOY).toBe('');
    expect(plan.steps[1]!.env).toMatchObject({ CI: 'true', GITHUB_EVENT_NAME: 'pull_request', GITHUB_SHA: 'c1' });
    expect(planRun.jobs.report).toMatchObject({ result: 'success' });
    expect(planRun.jobs.report!.steps[0]!.stdout).toBe(`success ${plan.outputs.digest}\n0\n`);
    expect(planRun.jobs.apply).toMatchObject({ result: 'skipped', environment: 'production' });
    expect(actions.artifacts(planRun.runId!)).toEqual({ 'the-plan': { 'plan.txt': 'v1\n' } });
    expect(github.comments(pr)).toMatchObject([
      { body: `<!-- run=${planRun.runId} --> line one\nline two`, user: { login: 'github-actions[bot]' } },
    ]);

    github.merge(pr, 'e1');
    // main moved on after the review: apply must use the reviewed run's artifact, not this checkout.
    const applyRun = await actions.runWorkflow({
      event: 'push',
      payload: {},
      sha: 'e1',
      ref: 'refs/heads/main',
      changedFiles: ['config/app.txt'],
      files: { 'config/app.txt': 'v2\n' },
    });
    expect(applyRun.runId).toBeGreaterThan(planRun.runId!);
    expect(Object.values(applyRun.jobs).map((j) => j.result)).toEqual(['skipped', 'skipped', 'success']);
    const apply = applyRun.jobs.apply!;
    expect(apply.steps.map((s) => s.result)).toEqual(['success', 'success', 'success', 'success']);
    expect(apply.steps[3]!.stdout).toBe('v1\n');
    expect(apply.steps[3]!.env).toMatchObject({
      DEPLOY: 'env-only',
      SHARED: 'env-value',
      AWS_ACCESS_KEY_ID: 'AKIAFAKE',
      AWS_REGION: 'eu-west-1',
    });
    // Each job's token is revoked when the job ends.
    const planToken = plan.steps[3]!.env.GH_TOKEN!;
    expect(github.requests.find((r) => r.method === 'POST')?.token).toBe(planToken);
    expect(github.grantOf(planToken)).toBeUndefined();
  });

  it('does not run when the paths or branches filter excludes the event (workflow read from its file)', async () => {
    const workflowPath = join(tempRoot, 'fixture.yml');
    writeFileSync(workflowPath, WORKFLOW);
    const actions = createActionsRunner({ workflowPath, github, repository: 'acme/config', tempRoot });
    const { number: pr } = github.openPullRequest({ title: 'Docs', headSha: 'd1' });
    const docsOnly = await actions.runWorkflow({ ...pullRequest(pr, 'd1'), changedFiles: ['README.md'], files: {} });
    expect(docsOnly).toEqual({ triggered: false, jobs: {} });
    const otherBranch = await actions.runWorkflow({
      event: 'push',
      sha: 'f1',
      ref: 'refs/heads/feature',
      changedFiles: ['config/app.txt'],
      files: {},
    });
    expect(otherBranch.triggered).toBe(false);
    expect(
      (await actions.runWorkflow({ event: 'schedule', sha: 'f1', ref: 'refs/heads/main', files: {} })).triggered,
    ).toBe(false);
  });

  it('fails the job at a failing step, skips later steps unless their if: says so, and honours continue-on-error', async () => {
    const workflow = `on: workflow_dispatch
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - run: exit 4
        continue-on-error: true
        id: tolerated
      - run: |
          echo "partial=yes" >> "$GITHUB_OUTPUT"
          false
          echo unreachable
        id: broken
      - run: echo never
      - if: always()
        env:
          OUTCOME: \${{ steps.broken.outcome }}
          PARTIAL: \${{ steps.broken.outputs.partial }}
          TOLERATED: \${{ steps.tolerated.outcome }}/\${{ steps.tolerated.conclusion }}
        run: echo "$OUTCOME $PARTIAL $TOLERATED"
      - if: failure()
        run: echo cleanup
  after:
    needs: build
    runs-on: ubuntu-latest
    steps:
      - run: echo never
  always:
    needs: after
    if: always()
    runs-on: ubuntu-latest
    steps:
      - env:
          AFTER: \${{ needs.after.result }}
        run: echo "after=$AFTER"
`;
    const result = await runner(workflow).runWorkflow(dispatch);
    const build = result.jobs.build!;
    expect(build.result).toBe('failure');
    expect(build.steps.map((s) => [s.result, s.conclusion, s.exitCode])).toEqual([
      ['failure', 'success', 4],
      ['failure', 'failure', 1],
      ['skipped', 'skipped', undefined],
      ['success', 'success', 0],
      ['success', 'success', 0],
    ]);
    expect(build.steps[1]!.stdout).toBe('');
    expect(build.steps[3]!.stdout).toBe('failure yes failure/success\n');
    expect(build.steps[2]!.name).toBe('Run echo never');
    expect(result.jobs.after!.result).toBe('skipped');
    expect(result.jobs.always!.steps[0]!.stdout).toBe('after=skipped\n');
  });

  it('refuses ${{ in a run: script, actions and keys it does not emulate, and secrets in a job if:', async () => {
    const run = (workflow: string) => runner(workflow).runWorkflow(dispatch);
    await expect(run(oneJob('      - run: echo "${{ github.sha }}"\n'))).rejects.toThrow(
      /jobs\.only\.steps\[0\]: \$\{\{ inside a run: script; pass the value through env: instead/,
    );
    await expect(run(oneJob('      - uses: actions/cache@v4\n'))).rejects.toThrow(/actions\/cache@v4 is not emulated/);
    await expect(
      run(oneJob('      - uses: actions/checkout@v4\n        with:\n          ref: main\n')),
    ).rejects.toThrow(/input\(s\) not emulated: ref/);
    await expect(run(oneJob('      - run: echo\n', '    strategy:\n      matrix:\n        n: [1]\n'))).rejects.toThrow(
      /jobs\.only: not emulated: strategy/,
    );
    await expect(run(oneJob('      - run: echo\n        shell: sh\n'))).rejects.toThrow(/shell 'sh' is not emulated/);
    await expect(run(oneJob('      - run: echo\n', "    if: secrets.X != ''\n"))).rejects.toThrow(
      /Unrecognized named-value: 'secrets'/,
    );
  });

  it('runs an unnamed shell as bash -e and shell: bash with pipefail, as GitHub does', async () => {
    const steps = `      - run: false | true
      - run: false | true
        shell: bash
      - if: always()
        working-directory: sub
        run: pwd
`;
    const result = await runner(oneJob(steps, '    defaults:\n      run:\n        working-directory: .\n')).runWorkflow(
      dispatch,
    );
    expect(result.jobs.only!.steps.map((s) => [s.result, s.exitCode])).toEqual([
      ['success', 0],
      ['failure', 1],
      ['failure', 1],
    ]);
    expect(result.jobs.only!.steps[2]!.stderr).toMatch(/working-directory .*\/workspace\/sub does not exist/);
  });

  it('gives each job a fresh workspace, and a token with only its permissions', async () => {
    const workflow = `on: workflow_dispatch
permissions: {}
jobs:
  first:
    runs-on: ubuntu-latest
    steps:
      - run: |
          echo leftover > file.txt
          echo "STAGE=one" >> "$GITHUB_ENV"
          echo "$RUNNER_TEMP/tools" >> "$GITHUB_PATH"
      - env:
          GH_TOKEN: \${{ secrets.GITHUB_TOKEN }}
        run: |
          echo "$STAGE $PATH" | cut -d: -f1
          curl -s -o /dev/null -w '%{http_code}' -H "Authorization: token $GH_TOKEN" \\
            "$GITHUB_API_URL/repos/$GITHUB_REPOSITORY/pulls/1"
  second:
    needs: first
    runs-on: ubuntu-latest
    steps:
      - run: |
          ls -A
          echo "stage=\${STAGE:-unset}"
`;
    github.openPullRequest({ title: 'x', headSha: 'a' });
    const result = await runner(workflow).runWorkflow(dispatch);
    const first = result.jobs.first!;
    expect(first.steps[1]!.stdout).toMatch(/^one \/.*\/temp\/tools\n403$/);
    expect(result.jobs.second!.steps[0]!.stdout).toBe('stage=unset\n');
  });

  it('fails a step for an unknown AWS role, a missing id-token permission, or an artifact not there', async () => {
    const steps = `      - uses: aws-actions/configure-aws-credentials@v4
        continue-on-error: true
        with:
          role-to-assume: arn:aws:iam::1:role/unknown
          aws-region: eu-west-1
      - uses: actions/download-artifact@v4
        continue-on-error: true
        with:
          name: nothing
      - uses: actions/upload-artifact@v4
        with:
          name: empty
          path: missing.txt
          if-no-files-found: error
`;
    const withOidc = await runner(oneJob(steps, '    permissions:\n      id-token: write\n')).runWorkflow(dispatch);
    expect(withOidc.jobs.only!.steps.map((s) => s.result)).toEqual(['failure', 'failure', 'failure']);
    expect(withOidc.jobs.only!.steps[0]!.stderr).toMatch(/Could not assume role/);
    expect(withOidc.jobs.only!.steps[1]!.stderr).toBe('Error: Artifact not found for name: nothing');
    expect(withOidc.jobs.only!.steps[2]!.stderr).toMatch(/No files were found/);

    const roles = { awsRoles: { 'arn:aws:iam::1:role/unknown': { AWS_ACCESS_KEY_ID: 'x' } } };
    const withoutOidc = await runner(oneJob(steps.split('      - uses: actions/download')[0]!), roles).runWorkflow(
      dispatch,
    );
    expect(withoutOidc.jobs.only!.steps[0]!.stderr).toMatch(/id-token: write is missing/);
  });
});

describe('actions runner: artifacts', () => {
  it('keeps names unique per run unless overwrite, and downloads every artifact of the run by name', async () => {
    const workflow = `on: workflow_dispatch
jobs:
  upload:
    runs-on: ubuntu-latest
    steps:
      - run: |
          mkdir -p out/a out/b && echo 1 > out/a/one.txt && echo 2 > out/b/two.txt && echo 3 > three.txt
      - uses: actions/upload-artifact@v4
        with:
          name: tree
          path: |
            out/a
            out/b/two.txt
      - uses: actions/upload-artifact@v4
        continue-on-error: true
        with:
          name: tree
          path: three.txt
      - uses: actions/upload-artifact@v4
        with:
          name: single
          path: three.txt
      - uses: actions/upload-artifact@v4
        with:
          name: single
          path: out/a/one.txt
          overwrite: true
  download:
    needs: upload
    runs-on: ubuntu-latest
    steps:
      - uses: actions/download-artifact@v4
        with:
          path: all
      - run: find all -type f | sort
`;
    const actions = runner(workflow);
    const result = await actions.runWorkflow(dispatch);
    expect(result.jobs.upload!.steps[2]).toMatchObject({ result: 'failure', conclusion: 'success' });
    expect(result.jobs.upload!.steps[2]!.stderr).toMatch(/an artifact with this name already exists/);
    expect(actions.artifacts(result.runId!)).toEqual({
      tree: { 'a/one.txt': '1\n', 'b/two.txt': '2\n' },
      single: { 'one.txt': '1\n' },
    });
    expect(result.jobs.download!.steps[1]!.stdout).toBe('all/single/one.txt\nall/tree/a/one.txt\nall/tree/b/two.txt\n');
  });

  it("reads another run's artifact only with a token that has actions: read", async () => {
    const upload = oneJob(
      '      - run: echo plan > plan.txt\n      - uses: actions/upload-artifact@v4\n        with:\n          path: plan.txt\n',
    );
    const actions = runner(upload);
    const first = await actions.runWorkflow(dispatch);
    const download = (permissions: string) =>
      oneJob(
        `      - uses: actions/download-artifact@v4\n        with:\n          name: artifact\n          run-id: '${first.runId}'\n          github-token: \${{ github.token }}\n      - run: cat plan.txt\n`,
        `    permissions:\n      ${permissions}\n`,
      );
    const denied = await actions.runWorkflow({ ...dispatch, workflow: download('contents: read') });
    expect(denied.jobs.only!.steps[0]!.stderr).toBe('Error: Resource not accessible by integration');
    const allowed = await actions.runWorkflow({ ...dispatch, workflow: download('actions: read') });
    expect(allowed.jobs.only!.steps[1]!.stdout).toBe('plan\n');
  });
});
