import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { registerCommands } from '../../../src/cli/commands.js';

// The GitHub Actions recipe (deploy/github-actions/hours-and-holidays.yml) read as
// configuration: triggers, concurrency, who gets which token, and that every
// helpdesk-sync command line its steps script runs names real commands and options.
// test/integration/push/workflow-runs.test.ts runs it, step by step.

interface Step {
  run?: string;
  uses?: string;
  if?: string;
  env?: Record<string, string>;
}
interface Job {
  if?: string;
  environment?: string;
  concurrency?: { group: string; 'cancel-in-progress': boolean };
  permissions?: Record<string, string>;
  steps: Step[];
}
interface Workflow {
  on: Record<string, { paths?: string[]; branches?: string[] } | null>;
  concurrency?: unknown;
  jobs: Record<string, Job>;
}

const workflow = parse(readFileSync('deploy/github-actions/hours-and-holidays.yml', 'utf8')) as Workflow;
const script = readFileSync('deploy/github-actions/hours-and-holidays.sh', 'utf8');
const program = new Command();
registerCommands(program);

/** Every `npx helpdesk-sync …` command line of the steps script, split into words. */
const commandLines = script
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l.startsWith('npx helpdesk-sync '))
  .map((l) =>
    l
      .replace(/\s*(>|\|\|).*$/, '')
      .split(/\s+/)
      .slice(2),
  );

describe('GitHub Actions recipe', () => {
  it('runs on pull requests and merges that touch the files or the lockfile, daily, and by hand', () => {
    for (const event of ['pull_request', 'push'] as const) {
      expect(workflow.on[event]?.paths).toEqual(
        expect.arrayContaining(['helpdesk/**', 'package.json', 'package-lock.json']),
      );
    }
    expect(workflow.on.push?.branches).toEqual(['main']);
    expect(Object.keys(workflow.on).sort()).toEqual(['pull_request', 'push', 'schedule', 'workflow_dispatch']);
  });

  it('never lets a pull request cancel an apply: plans and applies queue apart', () => {
    expect(workflow.concurrency).toBeUndefined();
    const { plan, apply, 'apply-main': applyMain } = workflow.jobs;
    expect(plan!.concurrency).toEqual({
      group: 'hours-and-holidays-plan-${{ github.event.pull_request.number }}',
      'cancel-in-progress': true,
    });
    for (const job of [apply!, applyMain!]) {
      expect(job.concurrency).toEqual({ group: 'hours-and-holidays-apply', 'cancel-in-progress': false });
    }
  });

  it('gives the write token only to jobs in the helpdesk environment; plans read with the read token', () => {
    for (const [name, job] of Object.entries(workflow.jobs)) {
      const tokens = job.steps.map((s) => s.env?.HELPDESK_TOKEN).filter(Boolean);
      const expected =
        job.environment === 'helpdesk' ? '${{ secrets.HELPDESK_TOKEN }}' : '${{ secrets.HELPDESK_READ_TOKEN }}';
      expect(tokens.length, name).toBe(1);
      expect(tokens, name).toEqual([expected]);
    }
    expect(workflow.jobs.plan!.environment).toBeUndefined();
    expect(workflow.jobs.drift!.permissions).toEqual({ contents: 'read', issues: 'write', 'id-token': 'write' });
  });

  it('passes every value into scripts through env, never by ${{ }} inside a script', () => {
    const runs = Object.values(workflow.jobs).flatMap((j) => j.steps.map((s) => s.run ?? ''));
    for (const run of runs) expect(run).not.toContain('${{');
    const subcommands = new Set([...script.matchAll(/^([a-z-]+)\) cmd_/gm)].map((m) => m[1]));
    const called = runs.flatMap((r) => [...r.matchAll(/bash "\$STEPS" ([a-z-]+)/g)].map((m) => m[1]));
    expect(called.length).toBeGreaterThan(0);
    for (const name of called) expect(subcommands, name).toContain(name);
  });

  it('runs only commands and options the CLI has', () => {
    expect(commandLines.map((c) => c[0])).toEqual(['plan', 'apply']);
    for (const [name, ...args] of commandLines) {
      const command = program.commands.find((c) => c.name() === name);
      expect(command, `command ${name}`).toBeDefined();
      const known = new Set(command!.options.map((o) => o.long));
      for (const flag of args.filter((a) => a.startsWith('--'))) expect(known, `${name} ${flag}`).toContain(flag);
      const format = args[args.indexOf('--format') + 1];
      if (args.includes('--format')) {
        expect(command!.options.find((o) => o.long === '--format')?.argChoices).toContain(format);
      }
    }
  });

  it('ships the steps script with the package', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { files: string[] };
    expect(pkg.files).toContain('deploy/github-actions');
  });
});
