import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { daemonMetrics, servedMetrics } from './served-metrics.js';

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

  it('HelpdeskSyncIncomplete fires for the stream with an unexplained shortfall, and only then', async () => {
    const rule = rules().find((r) => r.alert === 'HelpdeskSyncIncomplete') as Rule;
    const shape = /^max by \((\w+)\) \((\w+)\) > (\d+)$/.exec(rule.expr);
    expect(shape, 'the expression keeps the shape evaluated here').not.toBeNull();
    const [, by, metric, threshold] = shape as unknown as [string, string, string, string];
    const firing = async (unexplained: number) => {
      const values = (await daemonMetrics(unexplained)).find((m) => m.name === metric)?.values ?? [];
      const max = new Map<string, number>();
      for (const v of values) {
        const key = String(v.labels[by]);
        max.set(key, Math.max(max.get(key) ?? Number.NEGATIVE_INFINITY, v.value));
      }
      return [...max].filter(([, v]) => v > Number(threshold)).map(([k]) => k);
    };
    expect(await firing(1)).toEqual(['conversations']);
    expect(await firing(0)).toEqual([]);
  });

  it('HelpdeskSyncStreamFailed fires for the stream that failed in the last run, and only then', async () => {
    const rule = rules().find((r) => r.alert === 'HelpdeskSyncStreamFailed') as Rule;
    const shape = /^max by \((\w+)\) \((\w+)\) > (\d+)$/.exec(rule.expr);
    expect(shape, 'the expression keeps the shape evaluated here').not.toBeNull();
    const [, by, metric, threshold] = shape as unknown as [string, string, string, string];
    const firing = async (failed: string[]) => {
      const values = (await daemonMetrics(0, failed)).find((m) => m.name === metric)?.values ?? [];
      return values.filter((v) => v.value > Number(threshold)).map((v) => String(v.labels[by]));
    };
    expect(await firing(['holidays'])).toEqual(['holidays']);
    expect(await firing([])).toEqual([]);
  });
});
