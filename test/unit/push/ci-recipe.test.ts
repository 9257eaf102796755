import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { registerCommands } from '../../../src/cli/commands.js';

// The GitHub Actions recipe (deploy/github-actions/hours-and-holidays.yml) is
// valid YAML, plans on pull requests and applies on merges, and every
// helpdesk-sync command line it runs names a real command with real options.

interface Step {
  run?: string;
  uses?: string;
  if?: string;
  env?: Record<string, string>;
}
interface Workflow {
  on: { pull_request?: unknown; push?: { branches?: string[] } };
  jobs: Record<string, { if?: string; steps: Step[]; permissions?: Record<string, string> }>;
}

const workflow = parse(readFileSync('deploy/github-actions/hours-and-holidays.yml', 'utf8')) as Workflow;
const program = new Command();
registerCommands(program);

/** Every `helpdesk-sync …` command line of a job, split into words. */
function commandLines(job: string): string[][] {
  return workflow.jobs[job]!.steps.flatMap((s) =>
    (s.run ?? '')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l.startsWith('npx helpdesk-sync '))
      .map((l) =>
        l
          .replace(/\s[12]?>.*$/, '')
          .split(/\s+/)
          .slice(2),
      ),
  );
}

describe('GitHub Actions recipe', () => {
  it('plans on pull requests and applies on pushes to main', () => {
    expect(workflow.on.pull_request).toBeDefined();
    expect(workflow.on.push?.branches).toEqual(['main']);
    expect(workflow.jobs.plan!.if).toBe("github.event_name == 'pull_request'");
    expect(workflow.jobs.plan!.permissions).toEqual({ contents: 'read', 'pull-requests': 'write' });
    expect(workflow.jobs.apply!.if).toBe("github.event_name == 'push'");
    expect(commandLines('plan')).toEqual([
      ['plan', '--config', '"$HELPDESK_SYNC_CONFIG"', '--format', 'markdown', '--detailed-exitcode'],
      // The whole plan as text in the run's log, which a comment over GitHub's limit links to.
      ['plan', '--config', '"$HELPDESK_SYNC_CONFIG"', '||', 'true'],
    ]);
    expect(commandLines('apply').map((c) => c[0])).toEqual(['plan', 'apply']);
    expect(commandLines('apply')[1]).toContain('--auto-approve');
  });

  it('runs only commands and options the CLI has', () => {
    const lines = [...commandLines('plan'), ...commandLines('apply')];
    expect(lines.length).toBe(4);
    for (const [name, ...args] of lines) {
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

  it('hands the token to the commands only, through the secret', () => {
    const steps = Object.values(workflow.jobs).flatMap((j) => j.steps);
    const withToken = steps.filter((s) => s.env?.HELPDESK_TOKEN);
    expect(withToken.map((s) => s.env!.HELPDESK_TOKEN)).toEqual([
      '${{ secrets.HELPDESK_TOKEN }}',
      '${{ secrets.HELPDESK_TOKEN }}',
    ]);
    expect(withToken.every((s) => s.run?.includes('npx helpdesk-sync'))).toBe(true);
    expect(steps.some((s) => /\$\{?HELPDESK_TOKEN/.test(s.run ?? ''))).toBe(false);
  });
});
