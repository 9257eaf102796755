import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useLogSettings } from '../../../src/cli/cli-logger.js';
import { registerApplyCommand } from '../../../src/cli/commands/apply.js';
import { registerPlanCommand } from '../../../src/cli/commands/plan.js';
import { registerStateCommand } from '../../../src/cli/commands/state.js';
import { type PushHarness, startPushHarness } from './push-harness.js';

// The two commands as commander runs them: flags, exit codes, stdout and stderr.
let h: PushHarness;
let configPath: string;
beforeAll(async () => {
  h = await startPushHarness();
  h.writeFiles({
    holidays: 'holidays:\n  - { key: ny, name: New Year, start_date: "2027-01-01", end_date: "2027-01-01" }\n',
    businessHours:
      'business_hours:\n  - key: chat\n    type: calendar_24_7\n    channels: [{ inbox: Billing, channel: livechat }]\n',
  });
  configPath = join(h.dir, 'helpdesk-sync.yaml');
  const c = h.config();
  writeFileSync(
    configPath,
    [
      'source:',
      `  base_url: ${c.source.base_url}`,
      '  token: ${PUSH_TEST_TOKEN}',
      '  rate_limit: { requests_per_minute: 6000, concurrency: 2 }',
      `state: { path: ${c.state.path} }`,
      `push: { holidays: ${c.push.holidays}, business_hours: ${c.push.business_hours} }`,
      'log: { level: error }',
      '',
    ].join('\n'),
  );
  process.env.PUSH_TEST_TOKEN = 'sandbox-admin';
});
afterAll(async () => {
  await h.close();
  // Test files share their worker process: the token set above goes with this file.
  delete process.env.PUSH_TEST_TOKEN;
});

async function run(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const program = new Command().exitOverride();
  registerPlanCommand(program);
  registerApplyCommand(program);
  registerStateCommand(program);
  let stdout = '';
  let stderr = '';
  const write = { out: process.stdout.write, err: process.stderr.write };
  process.stdout.write = ((chunk: string) => {
    stdout += chunk;
    return true;
  }) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string) => {
    stderr += chunk;
    return true;
  }) as typeof process.stderr.write;
  process.exitCode = undefined;
  // The human form of the logs, as on a terminal: these cases are about the words a person reads,
  // whatever this runner's stderr is (the JSON form: test/integration/sync/json-logs.test.ts).
  useLogSettings({ logFormat: 'human' });
  try {
    await program.parseAsync(['node', 'helpdesk-sync', ...args, '--config', configPath]);
  } finally {
    useLogSettings({});
    process.stdout.write = write.out;
    process.stderr.write = write.err;
  }
  const code = Number(process.exitCode ?? 0);
  process.exitCode = undefined;
  return { code, stdout, stderr };
}

describe('plan and apply commands', () => {
  it('plan --detailed-exitcode exits 2 with changes, apply --auto-approve applies, then plan exits 0', async () => {
    const first = await run('plan', '--detailed-exitcode');
    expect(first.code).toBe(2);
    expect(first.stdout).toContain('+ create  "chat"');
    const apply = await run('apply', '--auto-approve');
    expect([apply.code, apply.stderr]).toEqual([0, '']);
    expect(apply.stdout).toContain('Apply complete: 2 step(s) done.');
    const second = await run('plan', '--detailed-exitcode');
    expect(second.code).toBe(0);
    const plain = await run('plan');
    expect(plain.code).toBe(0);
    for (const out of [first, apply, second].flatMap((r) => [r.stdout, r.stderr]))
      expect(out).not.toContain('sandbox-admin');
  });

  it('plan --json prints the plan as JSON', async () => {
    const result = await run('plan', '--json', '--prune-unmanaged');
    expect(result.code).toBe(0);
    const plan = JSON.parse(result.stdout) as {
      prune: boolean;
      prune_unmanaged: boolean;
      has_changes: boolean;
      unmanaged: Array<{ kind: string }>;
      actions: Array<{ op: string }>;
    };
    expect([plan.prune, plan.prune_unmanaged]).toEqual([true, true]);
    expect(plan.has_changes).toBe(true);
    expect(plan.actions.every((a) => a.op === 'delete')).toBe(true);
    expect(plan.unmanaged.length).toBe(plan.actions.length);
  });

  it('plan --format markdown prints the plan for a pull request, without the token or the API address', async () => {
    const result = await run('plan', '--format', 'markdown', '--prune-unmanaged', '--detailed-exitcode');
    expect(result.code).toBe(2);
    expect(result.stdout).toMatch(/^## Plan: 0 to create, 0 to update, \d+ to delete, 0 to adopt, 0 to forget\n/);
    expect(result.stdout).toContain('| Change | Key | Remote id | Object | Note | From |');
    expect(result.stdout).not.toContain('sandbox-admin');
    expect(result.stdout).not.toContain(h.sandbox.baseUrl);
  });

  it('plan --format json is --json; --json with --format markdown, or an unknown format, is a usage error', async () => {
    const json = await run('plan', '--format', 'json');
    expect(JSON.parse(json.stdout)).toEqual(JSON.parse((await run('plan', '--json')).stdout));
    const before = h.sandbox.stats().total;
    const both = await run('plan', '--json', '--format', 'markdown');
    expect([both.code, both.stderr.trim()]).toEqual([
      64,
      'error [USAGE]: --json and --format markdown disagree; give one of them',
    ]);
    await expect(run('plan', '--format', 'html')).rejects.toThrow(
      "error: option '--format <format>' argument 'html' is invalid. Allowed choices are text, json, markdown.",
    );
    expect(h.sandbox.stats().total).toBe(before);
  });

  it('apply without --auto-approve and without a terminal is a usage error (64), before any request', async () => {
    const before = h.sandbox.stats().total;
    const tty = process.stdin.isTTY;
    Object.defineProperty(process.stdin, 'isTTY', { value: false, configurable: true });
    try {
      const result = await run('apply');
      expect(result.code).toBe(64);
      expect(result.stderr).toContain('pass --auto-approve to run it unattended');
    } finally {
      Object.defineProperty(process.stdin, 'isTTY', { value: tty, configurable: true });
    }
    expect(h.sandbox.stats().total).toBe(before);
  });
});

describe('state rm and state mv', () => {
  it('mv gives a mapping a new key and back; rm forgets it and the next plan adopts the identical holiday', async () => {
    expect((await run('apply', '--auto-approve')).code).toBe(0);
    const writes = h.writeRequests();
    const mv = await run('state', 'mv', 'holiday', 'ny', 'new-year');
    expect([mv.code, mv.stderr]).toEqual([0, '']);
    expect(mv.stdout).toMatch(/^moved holiday "ny" to "new-year" \(remote object \S+\)\n$/);
    const moved = await run('plan', '--detailed-exitcode');
    expect(moved.stdout).toContain('+ create  "ny"');
    expect((await run('state', 'mv', 'holiday', 'new-year', 'ny')).code).toBe(0);
    expect((await run('plan', '--detailed-exitcode')).code).toBe(0);
    const rm = await run('state', 'rm', 'holiday', 'ny');
    expect(rm.stdout).toMatch(/^removed holiday "ny" from state \(remote object \S+ left as it is\)\n$/);
    const readopt = await run('plan', '--detailed-exitcode');
    expect([readopt.code, readopt.stdout]).toEqual([2, expect.stringContaining('= adopt   "ny"')]);
    expect(h.writeRequests()).toBe(writes);
  });

  it('refuses an unmapped key or a taken target (64), and an unknown kind', async () => {
    const rm = await run('state', 'rm', 'business_hours', 'nope');
    expect([rm.code, rm.stderr.trim()]).toEqual([
      64,
      'error [PUSH_STATE_KEY]: state maps no business_hours key "nope" (mapped: chat)',
    ]);
    expect((await run('state', 'mv', 'business_hours', 'chat', 'chat')).stderr.trim()).toBe(
      'error [PUSH_STATE_KEY]: state already maps business_hours key "chat"; state rm it first',
    );
    await expect(run('state', 'rm', 'profile', 'chat')).rejects.toThrow(
      "error: command-argument value 'profile' is invalid for argument 'kind'. expected business_hours or holiday",
    );
  });
});

describe('saved plans: plan --out, apply --plan', () => {
  const holidays = (...extra: string[]) =>
    [
      'holidays:',
      '  - { key: ny, name: New Year, start_date: "2027-01-01", end_date: "2027-01-01" }',
      ...extra.map((e) => `  - ${e}`),
      '',
    ].join('\n');
  const chat =
    'business_hours:\n  - key: chat\n    type: calendar_24_7\n    channels: [{ inbox: Billing, channel: livechat }]\n';
  const planFile = () => join(h.dir, 'plan.json');
  const reportFile = () => join(h.dir, 'apply.md');
  const idOf = async (name: string) =>
    ((await h.get('/holidays')) as Array<{ id: string; name: string }>).find((x) => x.name === name)!.id;

  it('applies the saved plan as it was reviewed and writes a Markdown result', async () => {
    h.writeFiles({
      holidays: holidays('{ key: ind, name: Independence, start_date: "2027-07-04", end_date: "2027-07-04" }'),
    });
    const plan = await run('plan', '--out', planFile(), '--detailed-exitcode');
    expect(plan.code).toBe(2);
    const saved = JSON.parse(readFileSync(planFile(), 'utf8')) as { format: string; plan: { actions: unknown[] } };
    expect(saved.format).toBe('helpdesk-sync saved plan');
    expect(readFileSync(planFile(), 'utf8')).not.toContain('sandbox-admin');
    const apply = await run('apply', '--plan', planFile(), '--report', reportFile());
    expect([apply.code, apply.stderr]).toEqual([0, '']);
    const report = readFileSync(reportFile(), 'utf8');
    expect(report).toMatch(/^## Applied: \d+ change\(s\)\n/);
    expect(report).toContain('create holiday "ind"');
    expect(report).not.toContain(h.sandbox.baseUrl);
    expect((await run('plan', '--detailed-exitcode')).code).toBe(0);
  });

  it('refuses a saved plan once the helpdesk moved, naming what moved, and writes nothing', async () => {
    h.writeFiles({
      holidays: holidays(
        '{ key: ind, name: Independence, start_date: "2027-07-04", end_date: "2027-07-04" }',
        '{ key: lab, name: Labour, start_date: "2027-09-06", end_date: "2027-09-06" }',
      ),
    });
    expect((await run('plan', '--out', planFile())).code).toBe(0);
    const ind = await idOf('Independence');
    expect((await h.send('PATCH', `/holidays/${ind}`, { name: 'Independence (UI)' })).status).toBe(200);
    const writes = h.writeRequests();
    const apply = await run('apply', '--plan', planFile(), '--report', reportFile());
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain('error [PUSH_PLAN_STALE]: the saved plan no longer applies');
    expect(apply.stderr).toContain(`holiday ${ind} changed`);
    expect(h.writeRequests()).toBe(writes);
    const report = readFileSync(reportFile(), 'utf8');
    expect(report).toMatch(/^## Not applied: the helpdesk or the state changed since the plan was reviewed\n/);
    expect(report).toContain(`- holiday ${ind} changed`);
    // A new plan sees the change and applies.
    expect((await run('plan', '--out', planFile())).code).toBe(0);
    expect((await run('apply', '--plan', planFile())).code).toBe(0);
    expect((await run('plan', '--detailed-exitcode')).code).toBe(0);
  });

  it('refuses a saved plan made from other push files, and a second apply of a used plan', async () => {
    expect((await run('plan', '--out', planFile())).code).toBe(0);
    h.writeFiles({ holidays: holidays() });
    const changed = await run('apply', '--plan', planFile());
    expect([changed.code, changed.stderr]).toEqual([1, expect.stringContaining('the push files differ')]);
    h.writeFiles({ holidays: holidays('{ key: xm, name: Xmas, start_date: "2027-12-25", end_date: "2027-12-25" }') });
    expect((await run('plan', '--out', planFile())).code).toBe(0);
    expect((await run('apply', '--plan', planFile())).code).toBe(0);
    // The apply moved state: the same file cannot be applied twice.
    const again = await run('apply', '--plan', planFile());
    expect([again.code, again.stderr]).toEqual([1, expect.stringMatching(/state holiday xm added/)]);
  });

  it('writes no plan file for a blocked plan, and removes one left from before', async () => {
    writeFileSync(planFile(), '{}');
    h.writeFiles({
      businessHours: `${chat}  - key: support-email\n    type: calendar_24_7\n    channels: [{ inbox: Support, channel: email }]\n`,
    });
    try {
      expect((await run('plan', '--out', planFile())).code).toBe(1);
      expect(existsSync(planFile())).toBe(false);
    } finally {
      h.writeFiles({ businessHours: chat });
    }
  });

  it('says plainly, with exit 1, when the plan or the report cannot be written; the apply error stays the one reported', async () => {
    h.writeFiles({
      holidays: holidays('{ key: mw, name: Midwinter, start_date: "2027-12-21", end_date: "2027-12-21" }'),
    });
    const nowhere = join(h.dir, 'no-such-dir', 'plan.json');
    const plan = await run('plan', '--out', nowhere);
    expect([plan.code, plan.stderr]).toEqual([
      1,
      expect.stringContaining(`error [PUSH_FILE_WRITE]: cannot write the plan to ${nowhere}`),
    ]);
    expect(existsSync(join(h.dir, 'no-such-dir'))).toBe(false);
    expect((await run('plan', '--out', planFile())).code).toBe(0);
    const report = join(h.dir, 'no-such-dir', 'apply.md');
    // Applied, but the report asked for is missing: that is a failure the workflow must see.
    const applied = await run('apply', '--plan', planFile(), '--report', report);
    expect([applied.code, applied.stderr]).toEqual([
      1,
      expect.stringContaining('[PUSH_FILE_WRITE]: cannot write the apply report'),
    ]);
    expect((await run('plan', '--detailed-exitcode')).code).toBe(0);
    // A refused apply keeps its own error and exit code, and says the report failure beside it.
    writeFileSync(planFile(), '{"format":"something else"}');
    const refused = await run('apply', '--plan', planFile(), '--report', report);
    expect(refused.code).toBe(64);
    expect(refused.stderr).toContain('is not a saved plan of this version');
    expect(refused.stderr).toContain('[PUSH_FILE_WRITE]: cannot write the apply report');
  });

  it('refuses a file that is not a saved plan, and prune flags beside one (64), before any request', async () => {
    const before = h.sandbox.stats().total;
    writeFileSync(planFile(), '{"format":"something else"}');
    const wrong = await run('apply', '--plan', planFile(), '--report', reportFile());
    expect([wrong.code, wrong.stderr]).toEqual([64, expect.stringContaining('is not a saved plan of this version')]);
    expect(readFileSync(reportFile(), 'utf8')).toMatch(/^## Not applied: the files or the saved plan are invalid\n/);
    const missing = await run('apply', '--plan', join(h.dir, 'nope.json'));
    expect([missing.code, missing.stderr]).toEqual([64, expect.stringContaining('cannot read the saved plan')]);
    const pruned = await run('apply', '--plan', planFile(), '--prune');
    expect([pruned.code, pruned.stderr]).toEqual([64, expect.stringContaining('a saved plan carries its own --prune')]);
    expect(h.sandbox.stats().total).toBe(before);
  });
});
