import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ArtifactStore } from './artifact-store.js';
import { defaultVariables } from './default-variables.js';
import { type ActionResult, EMULATED_ACTIONS } from './emulated-actions.js';
import { type ExpressionContext, type ExpressionStatus, evaluateIf, interpolate, isTruthy } from './expressions.js';
import type { FakeGitHub } from './fake-github.js';
import type { Permissions } from './github-permissions.js';
import { type CommandFiles, createCommandFiles, readCommandFiles, runScript } from './run-script-step.js';
import type { Workflow, WorkflowJob, WorkflowStep } from './workflow-definition.js';

/**
 * One job on a fresh runner: its own workspace, home and temp directory (nothing survives from
 * another job or run), its own GITHUB_TOKEN registered with the fake GitHub for the job's
 * permissions and revoked when the job ends, its steps in order.
 */

export interface StepResult {
  name: string;
  id?: string;
  /** What the step did ('failure' also under continue-on-error). */
  result: 'success' | 'failure' | 'skipped';
  /** What the job made of it: 'success' for a failure under continue-on-error. */
  conclusion: 'success' | 'failure' | 'skipped';
  exitCode?: number;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
  /** The environment the step ran with. */
  env: Record<string, string>;
}

export interface JobResult {
  name: string;
  result: 'success' | 'failure' | 'skipped';
  environment?: string;
  permissions: Permissions;
  concurrency?: { group: string; cancelInProgress: boolean };
  outputs: Record<string, string>;
  /** The GITHUB_STEP_SUMMARY text of all its steps. */
  summary: string;
  steps: StepResult[];
}

export interface JobSetup {
  id: string;
  name: string;
  job: WorkflowJob;
  workflow: Workflow;
  runId: number;
  /** A directory of the job's own. */
  dir: string;
  /** The github context of the run; the job adds token, job and workspace. */
  github: Record<string, unknown>;
  needs: Record<string, { result: string; outputs: Record<string, string> }>;
  /** Repository secrets, overridden by those of the job's environment. */
  secrets: Record<string, string>;
  vars: Record<string, string>;
  inputs: Record<string, unknown>;
  files: Record<string, string>;
  fakeGithub: FakeGitHub;
  artifacts: ArtifactStore;
  awsRoles: Record<string, Record<string, string>>;
  baseEnv: Record<string, string>;
  binDir?: string;
  permissions: Permissions;
  environment?: string;
  concurrency?: JobResult['concurrency'];
}

interface JobState {
  setup: JobSetup;
  workspace: string;
  temp: string;
  /** Contexts every expression of the job sees (secrets included: `if:` removes them). */
  contexts: Record<string, unknown>;
  staticEnv: Record<string, string>;
  envAdded: Record<string, string>;
  pathAdded: string[];
  steps: Record<string, { outputs: Record<string, string>; outcome: string; conclusion: string }>;
  status: ExpressionStatus;
  summary: string;
}

function interpolateMap(values: Record<string, unknown> | undefined, ctx: ExpressionContext): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(values ?? {})) {
    out[key] = typeof value === 'string' ? interpolate(value, ctx) : String(value ?? '');
  }
  return out;
}

function stepContext(state: JobState, withSecrets: boolean): ExpressionContext {
  const { secrets, ...rest } = state.contexts;
  const contexts = {
    ...rest,
    ...(withSecrets ? { secrets } : {}),
    env: { ...state.staticEnv, ...state.envAdded },
    steps: state.steps,
    job: { status: state.status },
  };
  return { contexts, status: state.status };
}

/**
 * Tools GitHub's Ubuntu runners have that a machine with only Node lacks: jq (from npm,
 * test/support/jq-cli.mjs). After the workflow's own PATH entries, before the machine's.
 */
const RUNNER_TOOLS = fileURLToPath(new URL('../../../support/runner-tools', import.meta.url));

function processEnv(state: JobState, stepEnv: Record<string, string>, files: CommandFiles): Record<string, string> {
  const { setup } = state;
  const path = [...[...state.pathAdded].reverse(), ...(setup.binDir ? [setup.binDir] : []), RUNNER_TOOLS];
  path.push(setup.baseEnv.PATH ?? process.env.PATH ?? '');
  return {
    HOME: join(setup.dir, 'home'),
    ...setup.baseEnv,
    ...state.staticEnv,
    ...state.envAdded,
    ...stepEnv,
    // GitHub's default variables cannot be overridden by a workflow.
    PATH: path.join(delimiter),
    ...defaultVariables(state.contexts.github as Record<string, unknown>, state.temp),
    ...files,
  };
}

async function execute(
  state: JobState,
  step: WorkflowStep,
  index: number,
  env: Record<string, string>,
  files: CommandFiles,
): Promise<ActionResult & { exitCode?: number; stderr: string }> {
  const { setup } = state;
  if (step.uses !== undefined) {
    const inputs = interpolateMap(step.with, stepContext(state, true));
    const action = EMULATED_ACTIONS[step.uses]!;
    const result = action.run({ ...setup, inputs, workspace: state.workspace, github: setup.fakeGithub });
    return { ...result, log: result.ok ? result.log : '', stderr: result.ok ? '' : result.log };
  }
  const shell = step.shell ?? setup.job.defaults?.run?.shell ?? setup.workflow.defaults?.run?.shell;
  const workingDirectory =
    step['working-directory'] ??
    setup.job.defaults?.run?.['working-directory'] ??
    setup.workflow.defaults?.run?.['working-directory'];
  const minutes = step['timeout-minutes'];
  const run = await runScript({
    script: step.run!,
    shell,
    cwd: resolve(state.workspace, workingDirectory ?? '.'),
    env,
    scriptPath: join(state.temp, `step-${index}.sh`),
    ...(minutes === undefined ? {} : { timeoutMs: minutes * 60_000 }),
  });
  try {
    const commands = readCommandFiles(files);
    state.envAdded = { ...state.envAdded, ...commands.env };
    state.pathAdded.push(...commands.path);
    state.summary += commands.summary;
    return {
      ok: run.exitCode === 0,
      log: run.stdout,
      stderr: run.stderr,
      exitCode: run.exitCode,
      outputs: commands.outputs,
    };
  } catch (error) {
    return { ok: false, log: run.stdout, stderr: `${run.stderr}${(error as Error).message}\n`, exitCode: run.exitCode };
  }
}

async function runStep(state: JobState, step: WorkflowStep, index: number): Promise<StepResult> {
  const name = step.name
    ? interpolate(step.name, stepContext(state, true))
    : step.run !== undefined
      ? `Run ${step.run.split('\n')[0]}`
      : `Run ${step.uses}`;
  const record = (
    result: StepResult['result'],
    conclusion: StepResult['conclusion'],
    outputs: Record<string, string>,
  ) => {
    if (step.id) state.steps[step.id] = { outputs, outcome: result, conclusion };
  };
  if (!evaluateIf(step.if, stepContext(state, false))) {
    record('skipped', 'skipped', {});
    return {
      name,
      id: step.id,
      result: 'skipped',
      conclusion: 'skipped',
      stdout: '',
      stderr: '',
      outputs: {},
      env: {},
    };
  }
  const files = createCommandFiles(join(state.temp, '_commands'), index);
  const env = processEnv(state, interpolateMap(step.env, stepContext(state, true)), files);
  const outcome = await execute(state, step, index, env, files);
  if (outcome.env) state.envAdded = { ...state.envAdded, ...outcome.env };
  const continueOnError = step['continue-on-error'];
  const tolerated =
    typeof continueOnError === 'string'
      ? isTruthy(interpolate(continueOnError, stepContext(state, true)).replace(/^false$/, ''))
      : continueOnError === true;
  const result = outcome.ok ? 'success' : 'failure';
  const conclusion = outcome.ok || tolerated ? 'success' : 'failure';
  if (conclusion === 'failure') state.status = 'failure';
  const outputs = outcome.outputs ?? {};
  record(result, conclusion, outputs);
  return {
    name,
    id: step.id,
    result,
    conclusion,
    exitCode: outcome.exitCode,
    stdout: outcome.log,
    stderr: outcome.stderr,
    outputs,
    env,
  };
}

export async function runJob(setup: JobSetup): Promise<JobResult> {
  const workspace = join(setup.dir, 'workspace');
  const temp = join(setup.dir, 'temp');
  for (const dir of [workspace, temp, join(temp, '_commands'), join(setup.dir, 'home')])
    mkdirSync(dir, { recursive: true });
  writeFileSync(join(temp, 'event.json'), JSON.stringify(setup.github.event));
  const token = `ghs_${randomBytes(18).toString('hex')}`;
  setup.fakeGithub.registerToken(token, setup.permissions);
  try {
    const github = { ...setup.github, token, job: setup.id, workspace };
    const secrets = { ...setup.secrets, GITHUB_TOKEN: token };
    const base = { github, secrets, vars: setup.vars, inputs: setup.inputs, needs: setup.needs };
    const runner = { os: 'Linux', arch: 'X64', temp, environment: 'github-hosted' };
    const workflowEnv = interpolateMap(setup.workflow.env, {
      contexts: { github, secrets, vars: setup.vars, inputs: setup.inputs },
      status: 'success',
    });
    const jobEnv = interpolateMap(setup.job.env, { contexts: base, status: 'success' });
    const state: JobState = {
      setup,
      workspace,
      temp,
      contexts: { ...base, runner },
      staticEnv: { ...workflowEnv, ...jobEnv },
      envAdded: {},
      pathAdded: [],
      steps: {},
      status: 'success',
      summary: '',
    };
    const steps: StepResult[] = [];
    for (const [index, step] of setup.job.steps.entries()) steps.push(await runStep(state, step, index));
    const outputs = interpolateMap(setup.job.outputs, stepContext(state, true));
    return {
      name: setup.name,
      result: state.status === 'success' ? 'success' : 'failure',
      ...(setup.environment === undefined ? {} : { environment: setup.environment }),
      permissions: setup.permissions,
      ...(setup.concurrency === undefined ? {} : { concurrency: setup.concurrency }),
      outputs,
      summary: state.summary,
      steps,
    };
  } finally {
    setup.fakeGithub.revokeToken(token);
  }
}
