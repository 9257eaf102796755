import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createDaemonMetrics } from '../../../src/daemon/daemon-metrics.js';
import { daemonMetrics, loadTarget, servedMetrics } from './served-metrics.js';

const FILE = 'deploy/prometheus/helpdesk-sync-alerts.yaml';

interface Rule {
  alert: string;
  expr: string;
  for: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

const rules = (): Rule[] =>
  (parse(readFileSync(FILE, 'utf8')) as { groups: Array<{ name: string; rules: Rule[] }> }).groups.flatMap(
    (g) => g.rules,
  );

describe(`${FILE}`, () => {
  it('is a Prometheus rule file: every rule has an expression, a duration, a severity, a summary and a description', () => {
    const all = rules();
    expect(all.map((r) => r.alert)).toEqual([
      'HelpdeskSyncIncomplete',
      'HelpdeskSyncBackfillStalled',
      'HelpdeskSyncNoRecentSuccess',
      'HelpdeskSyncStreamFailed',
      'HelpdeskSyncAccountFailed',
      'HelpdeskSyncLoadFailed',
      'HelpdeskSyncLoadLagging',
    ]);
    for (const rule of all) {
      expect(rule.expr, rule.alert).toMatch(/\S/);
      expect(rule.for, rule.alert).toMatch(/^\d+[smh]$/);
      expect(['warning', 'critical'], rule.alert).toContain(rule.labels.severity);
      expect(rule.annotations.summary, rule.alert).toMatch(/\S/);
      expect(rule.annotations.description, rule.alert).toMatch(/\S/);
      const opened = [...rule.expr].filter((c) => c === '(').length;
      expect([...rule.expr].filter((c) => c === ')').length, `${rule.alert}: parentheses`).toBe(opened);
    }
  });

  it('uses only metrics and labels the daemon serves', async () => {
    const names = await servedMetrics();
    for (const rule of rules()) {
      for (const [, metric] of rule.expr.matchAll(/\b(helpdesk_sync_[a-z_]+)\b/g)) {
        expect(names.has(metric!), `${rule.alert}: ${metric} is served`).toBe(true);
      }
      for (const [, labels] of rule.expr.matchAll(/by \(([^)]*)\)/g)) {
        for (const label of labels!.split(',').map((l) => l.trim())) {
          const metric = /\(([a-z_]+)\)/.exec(rule.expr.slice(rule.expr.indexOf(labels!) + labels!.length + 1))?.[1];
          expect(names.get(metric!)?.has(label), `${rule.alert}: ${metric} has label ${label}`).toBe(true);
        }
      }
    }
  });

  /**
   * Evaluates a rule of the shape `max by (l1, l2) (metric) > n` over the samples: the
   * label values (joined by `/`, an absent label read as empty) of the groups that fire.
   */
  function evaluate(rule: Rule, samples: Awaited<ReturnType<typeof daemonMetrics>>): string[] {
    const shape = /^max by \(([\w, ]+)\) \((\w+)\) > (\d+)$/.exec(rule.expr);
    expect(shape, `${rule.alert}: the expression keeps the shape evaluated here`).not.toBeNull();
    const [, by, metric, threshold] = shape as unknown as [string, string, string, string];
    const labels = by.split(',').map((l) => l.trim());
    const max = new Map<string, number>();
    for (const v of samples.find((m) => m.name === metric)?.values ?? []) {
      const key = labels.map((l) => String(v.labels[l] ?? '')).join('/');
      max.set(key, Math.max(max.get(key) ?? Number.NEGATIVE_INFINITY, v.value));
    }
    return [...max].filter(([, v]) => v > Number(threshold)).map(([k]) => k);
  }
  const rule = (name: string) => rules().find((r) => r.alert === name) as Rule;

  it('HelpdeskSyncIncomplete fires for the stream with an unexplained shortfall, and only then', async () => {
    const incomplete = rule('HelpdeskSyncIncomplete');
    expect(evaluate(incomplete, await daemonMetrics(1))).toEqual(['/conversations']);
    expect(evaluate(incomplete, await daemonMetrics(0))).toEqual([]);
  });

  it('HelpdeskSyncStreamFailed fires for the stream that failed in the last run, and only then', async () => {
    const failed = rule('HelpdeskSyncStreamFailed');
    expect(evaluate(failed, await daemonMetrics(0, ['holidays']))).toEqual(['/holidays']);
    expect(evaluate(failed, await daemonMetrics(0, []))).toEqual([]);
  });

  it('with several accounts, the stream rules fire once per account and name it', async () => {
    const accounts = ['acme', 'globex'];
    expect(evaluate(rule('HelpdeskSyncIncomplete'), await daemonMetrics(1, [], accounts))).toEqual([
      'acme/conversations',
      'globex/conversations',
    ]);
    expect(evaluate(rule('HelpdeskSyncStreamFailed'), await daemonMetrics(0, ['holidays'], accounts))).toEqual([
      'acme/holidays',
      'globex/holidays',
    ]);
    for (const name of ['HelpdeskSyncIncomplete', 'HelpdeskSyncBackfillStalled', 'HelpdeskSyncNoRecentSuccess']) {
      expect(rule(name).annotations.summary, name).toContain('{{ with $labels.account }}account {{ . }}: {{ end }}');
    }
  });

  it('HelpdeskSyncAccountFailed fires for the account whose last run failed, and never for a config of one account', async () => {
    const failing = rule('HelpdeskSyncAccountFailed');
    const metrics = createDaemonMetrics(() => []);
    const run = { job: 'sync', durationMs: 1, finishedAt: new Date() };
    metrics.recordRun({ ...run, account: 'acme', outcome: 'succeeded' });
    metrics.recordRun({ ...run, account: 'globex', outcome: 'failed' });
    metrics.recordRun({ ...run, job: 'push', account: 'globex', outcome: 'succeeded' });
    expect(evaluate(failing, await metrics.registry.getMetricsAsJSON())).toEqual(['sync/globex']);
    // A later run of globex that commits clears it.
    metrics.recordRun({ ...run, account: 'globex', outcome: 'partial' });
    expect(evaluate(failing, await metrics.registry.getMetricsAsJSON())).toEqual([]);
    const one = createDaemonMetrics(() => []);
    one.recordRun({ ...run, outcome: 'failed' });
    expect(evaluate(failing, await one.registry.getMetricsAsJSON())).toEqual([]);
  });

  it('HelpdeskSyncLoadFailed and HelpdeskSyncLoadLagging fire for the target whose last load failed or that is over two hours behind, per account', async () => {
    const served = (targets: ReturnType<typeof loadTarget>[], account?: string) =>
      createDaemonMetrics(
        () => [],
        () => [{ account, targets }],
      ).registry.getMetricsAsJSON();
    const failed = rule('HelpdeskSyncLoadFailed');
    const lagging = rule('HelpdeskSyncLoadLagging');
    expect(evaluate(failed, await served([loadTarget('failed', 0)]))).toEqual(['/duckdb:/data/helpdesk.duckdb']);
    expect(evaluate(failed, await served([loadTarget('succeeded', 0)]))).toEqual([]);
    expect(evaluate(lagging, await served([loadTarget('succeeded', 3 * 3600)], 'acme'))).toEqual([
      'acme/duckdb:/data/helpdesk.duckdb',
    ]);
    expect(evaluate(lagging, await served([loadTarget('succeeded', 3600)]))).toEqual([]);
    expect(evaluate(lagging, await served([loadTarget('succeeded', 0)]))).toEqual([]);
  });
});
