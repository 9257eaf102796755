import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { servedMetrics } from './served-metrics.js';

const FILE = 'deploy/grafana/helpdesk-sync-dashboard.json';

interface Panel {
  type: string;
  title: string;
  gridPos: { x: number; y: number; w: number; h: number };
  targets?: Array<{ expr: string }>;
}

const dashboard = () => JSON.parse(readFileSync(FILE, 'utf8')) as { uid: string; panels: Panel[]; templating: unknown };
const queries = () =>
  dashboard().panels.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr })));

/** Names a PromQL expression reads: identifiers that are not functions, keywords or label names. */
function metricsIn(expr: string): string[] {
  const withoutLabels = expr.replace(/\{[^}]*\}/g, '').replace(/\b(by|without)\s*\([^)]*\)/g, '');
  return [...withoutLabels.matchAll(/\b([a-z_][a-z0-9_]*)\b(?!\s*\()/g)]
    .map((m) => m[1] as string)
    .filter((name) =>
      /_(total|seconds|bytes|runs|done|expected|live|unexplained|failed|manifests|bucket|sum|count)$/.test(name),
    );
}

describe(`${FILE}`, () => {
  it('is a Grafana dashboard: a uid, a Prometheus data source variable, panels on the grid with queries', () => {
    const d = dashboard();
    expect(d.uid).toBe('helpdesk-sync');
    expect(JSON.stringify(d.templating)).toContain('"type":"datasource"');
    const panels = d.panels.filter((p) => p.type !== 'row');
    expect(panels.length).toBeGreaterThanOrEqual(10);
    for (const p of panels) {
      expect(p.targets?.length, p.title).toBeGreaterThan(0);
      expect(p.gridPos.x + p.gridPos.w, p.title).toBeLessThanOrEqual(24);
    }
  });

  it('uses only metrics and labels the daemon serves', async () => {
    const served = await servedMetrics();
    const used = queries();
    expect(used.length).toBeGreaterThan(10);
    for (const { panel, expr } of used) {
      const metrics = metricsIn(expr);
      expect(metrics.length, `${panel}: ${expr} reads a metric`).toBeGreaterThan(0);
      for (const metric of metrics) expect(served.has(metric), `${panel}: ${metric} is served`).toBe(true);
      for (const [, list] of expr.matchAll(/\bby \(([^)]*)\)/g)) {
        for (const label of (list as string).split(',').map((l) => l.trim())) {
          expect(
            metrics.some((m) => served.get(m)?.has(label)),
            `${panel}: a metric of ${expr} has label ${label}`,
          ).toBe(true);
        }
      }
      for (const [, selector] of expr.matchAll(/\{([^}]*)\}/g)) {
        for (const label of (selector as string).split(',').map((s) => s.split('=')[0]?.trim() ?? '')) {
          expect(
            metrics.some((m) => served.get(m)?.has(label)),
            `${panel}: label ${label} is served`,
          ).toBe(true);
        }
      }
    }
  });

  it('shows every account or those picked: each per-account query selects $account and keeps account apart', async () => {
    const variable = (dashboard().templating as { list: Array<Record<string, unknown>> }).list.find(
      (v) => v.name === 'account',
    );
    expect(variable, 'an account variable').toBeDefined();
    const query = String((variable?.query as { query?: string } | undefined)?.query);
    const [, metric, label] = /^label_values\((\w+), (\w+)\)$/.exec(query) ?? [];
    expect((await servedMetrics()).get(metric as string)?.has(label as string), query).toBe(true);
    // "All" must match the series of a config without accounts:, which have no account label.
    expect(variable).toMatchObject({ includeAll: true, multi: true, allValue: '.*' });
    const served = await servedMetrics();
    for (const { panel, expr } of queries()) {
      const perAccount = metricsIn(expr).filter((m) => served.get(m)?.has('account'));
      if (perAccount.length === 0) continue;
      for (const m of perAccount) {
        expect(expr, `${panel}: ${m} selects the picked accounts`).toMatch(
          new RegExp(`${m}\\{[^}]*account=~"\\$account"[^}]*\\}`),
        );
      }
      for (const [, list] of expr.matchAll(/\bby \(([^)]*)\)/g)) {
        expect(
          (list as string).split(',').map((l) => l.trim()),
          `${panel}: ${expr} keeps accounts apart`,
        ).toContain('account');
      }
    }
  });

  it('the check reads names out of expressions as Prometheus would', () => {
    expect(
      metricsIn('histogram_quantile(0.5, sum by (le, job) (rate(helpdesk_sync_run_duration_seconds_bucket[1h])))'),
    ).toEqual(['helpdesk_sync_run_duration_seconds_bucket']);
    expect(metricsIn('time() - helpdesk_sync_last_success_timestamp_seconds{job="sync"}')).toEqual([
      'helpdesk_sync_last_success_timestamp_seconds',
    ]);
  });
});
