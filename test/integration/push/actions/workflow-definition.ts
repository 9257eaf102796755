import { parse } from 'yaml';
import { EMULATED_ACTIONS } from './emulated-actions.js';

/**
 * A workflow file, parsed and held to what this emulation runs. Every key it does not emulate
 * (matrix strategies, services, containers, other shells, other actions or inputs) is refused
 * at load, so a test never passes on a part that was silently ignored. A `run:` script holding
 * `${{` is refused too: values reach scripts through `env:`, the injection-safe practice
 * ("Security hardening for GitHub Actions": use an intermediate environment variable).
 */

export interface WorkflowStep {
  name?: string;
  id?: string;
  if?: string | boolean;
  uses?: string;
  with?: Record<string, unknown>;
  run?: string;
  env?: Record<string, unknown>;
  shell?: string;
  'working-directory'?: string;
  'continue-on-error'?: boolean | string;
  'timeout-minutes'?: number;
}

export interface RunDefaults {
  run?: { shell?: string; 'working-directory'?: string };
}

export interface WorkflowJob {
  name?: string;
  if?: string | boolean;
  needs?: string | string[];
  'runs-on': unknown;
  environment?: string | { name: string; url?: string };
  concurrency?: unknown;
  permissions?: unknown;
  outputs?: Record<string, string>;
  env?: Record<string, unknown>;
  defaults?: RunDefaults;
  'timeout-minutes'?: number;
  steps: WorkflowStep[];
}

export interface Workflow {
  name?: string;
  on: unknown;
  permissions?: unknown;
  env?: Record<string, unknown>;
  concurrency?: unknown;
  defaults?: RunDefaults;
  jobs: Record<string, WorkflowJob>;
}

const WORKFLOW_KEYS = ['name', 'run-name', 'on', 'permissions', 'env', 'concurrency', 'defaults', 'jobs'];
const JOB_KEYS = [
  'name',
  'if',
  'needs',
  'runs-on',
  'environment',
  'concurrency',
  'permissions',
  'outputs',
  'env',
  'defaults',
  'timeout-minutes',
  'steps',
];
const STEP_KEYS = [
  'name',
  'id',
  'if',
  'uses',
  'with',
  'run',
  'env',
  'shell',
  'working-directory',
  'continue-on-error',
  'timeout-minutes',
];

function refuseUnknown(where: string, value: unknown, known: string[]): void {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error(`${where}: expected a map`);
  const unknown = Object.keys(value).filter((key) => !known.includes(key));
  if (unknown.length > 0) throw new Error(`${where}: not emulated: ${unknown.join(', ')}`);
}

function checkShell(where: string, shell: string | undefined): void {
  if (shell !== undefined && shell !== 'bash')
    throw new Error(`${where}: shell '${shell}' is not emulated (bash only)`);
}

function checkStep(where: string, step: WorkflowStep): void {
  refuseUnknown(where, step, STEP_KEYS);
  if ((step.run === undefined) === (step.uses === undefined))
    throw new Error(`${where}: needs exactly one of run, uses`);
  checkShell(where, step.shell);
  if (step.run !== undefined) {
    if (step.run.includes('${{')) {
      throw new Error(`${where}: \${{ inside a run: script; pass the value through env: instead`);
    }
    if (step.with !== undefined) throw new Error(`${where}: with: belongs to uses: steps`);
    return;
  }
  const action = EMULATED_ACTIONS[step.uses!];
  if (!action) throw new Error(`${where}: ${step.uses} is not emulated`);
  const inputs = Object.keys(step.with ?? {}).filter((input) => !action.inputs.includes(input));
  if (inputs.length > 0) throw new Error(`${where}: ${step.uses} input(s) not emulated: ${inputs.join(', ')}`);
}

/** Job ids in an order where every job comes after its needs (declaration order otherwise). */
export function jobOrder(jobs: Record<string, WorkflowJob>): string[] {
  const order: string[] = [];
  const visiting = new Set<string>();
  const visit = (id: string, from: string) => {
    if (order.includes(id)) return;
    const job = jobs[id];
    if (!job) throw new Error(`jobs.${from}.needs: no job '${id}'`);
    if (visiting.has(id)) throw new Error(`jobs.${id}: needs form a cycle`);
    visiting.add(id);
    for (const need of needsOf(job)) visit(need, id);
    visiting.delete(id);
    order.push(id);
  };
  for (const id of Object.keys(jobs)) visit(id, id);
  return order;
}

export function needsOf(job: WorkflowJob): string[] {
  if (job.needs === undefined) return [];
  return Array.isArray(job.needs) ? job.needs : [job.needs];
}

export function parseWorkflow(text: string): Workflow {
  const workflow = parse(text) as Workflow;
  refuseUnknown('workflow', workflow, WORKFLOW_KEYS);
  checkShell('defaults', workflow.defaults?.run?.shell);
  if (!workflow.on) throw new Error('workflow: on: is required');
  refuseUnknown('jobs', workflow.jobs, Object.keys(workflow.jobs ?? {}));
  for (const [id, job] of Object.entries(workflow.jobs)) {
    refuseUnknown(`jobs.${id}`, job, JOB_KEYS);
    checkShell(`jobs.${id}.defaults`, job.defaults?.run?.shell);
    if (!Array.isArray(job.steps) || job.steps.length === 0) throw new Error(`jobs.${id}: steps are required`);
    job.steps.forEach((step, index) => {
      checkStep(`jobs.${id}.steps[${index}]`, step);
    });
  }
  jobOrder(workflow.jobs);
  return workflow;
}
