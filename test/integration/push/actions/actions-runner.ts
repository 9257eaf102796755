import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ArtifactStore } from './artifact-store.js';
import { type ExpressionContext, type ExpressionStatus, evaluateIf, interpolate } from './expressions.js';
import type { FakeGitHub } from './fake-github.js';
import { resolvePermissions } from './github-permissions.js';
import { type JobResult, runJob } from './run-job.js';
import { jobOrder, needsOf, parseWorkflow, type Workflow, type WorkflowJob } from './workflow-definition.js';
import { type EventName, isTriggered, normalizeOn } from './workflow-triggers.js';

/**
 * Runs a workflow file's jobs and steps locally, one event at a time, for tests that must
 * prove a workflow by executing it. Runs are sequential: a concurrency group is evaluated and
 * recorded, never acted on. Each job gets a fresh runner (see run-job.ts); artifacts are kept
 * by run id across runs, as GitHub keeps them.
 */

export interface RunnerOptions {
  /** The workflow file's YAML text; or give workflowPath. */
  workflow?: string;
  /** The workflow file, read at every run (so a test sees the file as it is now). */
  workflowPath?: string;
  github: FakeGitHub;
  /** `owner/name`; must be the fake GitHub's. @default the fake GitHub's */
  repository?: string;
  /** Repository-level secrets. */
  secrets?: Record<string, string>;
  /** Environments: their secrets (and variables) reach only jobs naming them, over the repository's. */
  environments?: Record<string, { secrets?: Record<string, string>; vars?: Record<string, string> }>;
  vars?: Record<string, string>;
  /** Put first on PATH (after what GITHUB_PATH adds), e.g. for `npx`/`npm` shims. */
  binDir?: string;
  /** The environment a step starts from; PATH from here (or this process) follows binDir. */
  baseEnv?: Record<string, string>;
  /** role ARN → the environment aws-actions/configure-aws-credentials exports for it. */
  awsRoles?: Record<string, Record<string, string>>;
  /** Where each run's job directories go. */
  tempRoot: string;
  /** github.actor. @default 'octocat' */
  actor?: string;
}

export interface WorkflowEvent {
  event: EventName;
  /** The event JSON: `{ pull_request: { number, head: { sha } } }`, `{ inputs }`, … */
  payload?: Record<string, unknown>;
  sha: string;
  ref: string;
  /** Files the push or pull request changed, for `paths` filters. */
  changedFiles?: string[];
  /** The checkout at `sha`: path → content. */
  files: Record<string, string>;
  /** Another workflow file than the runner's, for this run only (its artifacts share the runner's store). */
  workflow?: string;
}

export interface Concurrency {
  group: string;
  cancelInProgress: boolean;
}

export interface WorkflowRun {
  triggered: boolean;
  runId?: number;
  concurrency?: Concurrency;
  jobs: Record<string, JobResult>;
}

function evaluateConcurrency(value: unknown, ctx: ExpressionContext): Concurrency | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return { group: interpolate(value, ctx), cancelInProgress: false };
  const { group, 'cancel-in-progress': cancel } = value as { group?: unknown; 'cancel-in-progress'?: unknown };
  if (typeof group !== 'string') throw new Error('concurrency: group is required');
  const cancelInProgress = typeof cancel === 'string' ? interpolate(cancel, ctx) === 'true' : cancel === true;
  return { group: interpolate(group, ctx), cancelInProgress };
}

function dispatchInputs(workflow: Workflow, payload: Record<string, unknown>): Record<string, unknown> {
  const declared = (normalizeOn(workflow.on).workflow_dispatch?.inputs ?? {}) as Record<string, { default?: unknown }>;
  const given = (payload.inputs ?? {}) as Record<string, unknown>;
  const inputs: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(declared)) inputs[name] = given[name] ?? spec?.default ?? '';
  return { ...inputs, ...given };
}

/** What a job's needs, direct and indirect, ended with, as success()/failure() read it. */
function needsStatus(
  id: string,
  jobs: Record<string, WorkflowJob>,
  results: Record<string, JobResult>,
): ExpressionStatus {
  const ancestors = new Set<string>();
  const walk = (job: string) => {
    for (const need of needsOf(jobs[job]!)) {
      if (!ancestors.has(need)) {
        ancestors.add(need);
        walk(need);
      }
    }
  };
  walk(id);
  const outcomes = [...ancestors].map((a) => results[a]!.result);
  if (outcomes.includes('failure')) return 'failure';
  return outcomes.every((r) => r === 'success') ? 'success' : 'skipped';
}

/**
 * @example
 * const github = await new FakeGitHub({ repository: 'acme/config' }).start();
 * const runner = createActionsRunner({ workflowPath, github, tempRoot, secrets: { HELPDESK_TOKEN: 't' } });
 * const { number: pr } = github.openPullRequest({ title: 'Holidays', headSha: 'a1' });
 * const run = await runner.runWorkflow({
 *   event: 'pull_request', payload: { pull_request: { number: pr, head: { sha: 'a1' } } },
 *   sha: 'a1', ref: `refs/pull/${pr}/merge`, changedFiles: ['helpdesk/holidays.yaml'], files,
 * });
 * run.jobs.plan?.steps; runner.artifacts(run.runId!); github.comments(pr);
 */
export class ActionsRunner {
  private nextRunId = 101;
  private readonly store = new ArtifactStore();

  constructor(private readonly options: RunnerOptions) {
    if ((options.workflow === undefined) === (options.workflowPath === undefined)) {
      throw new Error('ActionsRunner: give exactly one of workflow, workflowPath');
    }
    if (options.repository !== undefined && options.repository !== options.github.repository) {
      throw new Error(
        `ActionsRunner: repository ${options.repository} is not the fake GitHub's (${options.github.repository})`,
      );
    }
  }

  /** A run's artifacts: name → path → content. */
  artifacts(runId: number): Record<string, Record<string, string>> {
    return this.store.asText(runId);
  }

  async runWorkflow(event: WorkflowEvent): Promise<WorkflowRun> {
    const workflow = parseWorkflow(
      event.workflow ?? this.options.workflow ?? readFileSync(this.options.workflowPath!, 'utf8'),
    );
    const payload = event.payload ?? {};
    if (!isTriggered(workflow.on, { event: event.event, payload, ref: event.ref, changedFiles: event.changedFiles })) {
      return { triggered: false, jobs: {} };
    }
    const runId = this.nextRunId++;
    const vars = this.options.vars ?? {};
    const inputs = event.event === 'workflow_dispatch' ? dispatchInputs(workflow, payload) : {};
    const github = this.githubContext(workflow, event, payload, runId);
    const concurrency = evaluateConcurrency(workflow.concurrency, {
      contexts: { github, inputs, vars },
      status: 'success',
    });
    const jobs: Record<string, JobResult> = {};
    for (const id of jobOrder(workflow.jobs)) {
      jobs[id] = await this.runOneJob(id, workflow, { event, github, inputs, runId, results: jobs });
    }
    return { triggered: true, runId, ...(concurrency ? { concurrency } : {}), jobs };
  }

  private githubContext(
    workflow: Workflow,
    event: WorkflowEvent,
    payload: Record<string, unknown>,
    runId: number,
  ): Record<string, unknown> {
    const [owner] = this.options.github.repository.split('/');
    const pr = payload.pull_request as { head?: { ref?: string }; base?: { ref?: string } } | undefined;
    return {
      event_name: event.event,
      event: payload,
      sha: event.sha,
      ref: event.ref,
      ref_name: event.ref.replace(/^refs\/(?:heads|tags)\//, ''),
      head_ref: pr?.head?.ref ?? '',
      base_ref: pr?.base?.ref ?? '',
      repository: this.options.github.repository,
      repository_owner: owner,
      run_id: String(runId),
      run_number: String(runId),
      run_attempt: '1',
      actor: this.options.actor ?? 'octocat',
      workflow: workflow.name ?? 'workflow',
      server_url: 'https://github.com',
      api_url: this.options.github.url,
    };
  }

  private async runOneJob(
    id: string,
    workflow: Workflow,
    run: {
      event: WorkflowEvent;
      github: Record<string, unknown>;
      inputs: Record<string, unknown>;
      runId: number;
      results: Record<string, JobResult>;
    },
  ): Promise<JobResult> {
    const job = workflow.jobs[id]!;
    const needs = Object.fromEntries(
      needsOf(job).map((need) => [need, { result: run.results[need]!.result, outputs: run.results[need]!.outputs }]),
    );
    const vars = this.options.vars ?? {};
    // A job's if:, name, environment and concurrency see no secrets (GitHub forbids them there).
    const ctx: ExpressionContext = {
      contexts: { github: run.github, needs, vars, inputs: run.inputs },
      status: needsStatus(id, workflow.jobs, run.results),
    };
    const permissions = resolvePermissions(job.permissions, workflow.permissions);
    const environmentName = typeof job.environment === 'object' ? job.environment.name : job.environment;
    const environment = environmentName === undefined ? undefined : interpolate(environmentName, ctx);
    const name = job.name === undefined ? id : interpolate(job.name, ctx);
    const skipped: JobResult = { name, result: 'skipped', permissions, outputs: {}, summary: '', steps: [] };
    if (!evaluateIf(job.if, ctx)) return environment === undefined ? skipped : { ...skipped, environment };
    const own = environment === undefined ? {} : (this.options.environments?.[environment] ?? {});
    const dir = join(this.options.tempRoot, `run-${run.runId}`, id);
    mkdirSync(dir, { recursive: true });
    return runJob({
      id,
      name,
      job,
      workflow,
      runId: run.runId,
      dir,
      github: run.github,
      needs,
      secrets: { ...this.options.secrets, ...own.secrets },
      vars: { ...vars, ...own.vars },
      inputs: run.inputs,
      files: run.event.files,
      fakeGithub: this.options.github,
      artifacts: this.store,
      awsRoles: this.options.awsRoles ?? {},
      baseEnv: this.options.baseEnv ?? {},
      ...(this.options.binDir === undefined ? {} : { binDir: this.options.binDir }),
      permissions,
      ...(environment === undefined ? {} : { environment }),
      concurrency: evaluateConcurrency(job.concurrency, ctx),
    });
  }
}

export function createActionsRunner(options: RunnerOptions): ActionsRunner {
  return new ActionsRunner(options);
}
