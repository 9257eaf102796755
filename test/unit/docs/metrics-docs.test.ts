import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDaemonMetrics } from '../../../src/daemon/daemon-metrics.js';
import { ROOT } from './doc-files.js';

const stats = () => [
  {
    labels: { origin: 'https://helpdesk.example' },
    stats: { requests: 0, byStatus: {}, retries: 0, rateLimited: 0, waitedMs: 0 },
  },
];

describe("docs/operations.md's metrics table", () => {
  it('lists exactly the helpdesk_sync_* metrics the daemon serves, with their type', async () => {
    const served = (await createDaemonMetrics(stats).registry.getMetricsAsJSON())
      .filter((m) => m.name.startsWith('helpdesk_sync_'))
      .map((m) => `${m.name} ${m.type}`)
      .sort();
    const page = readFileSync(join(ROOT, 'docs', 'operations.md'), 'utf8');
    const section = page.slice(
      page.indexOf('\n## Health and metrics'),
      page.indexOf('\n## ', page.indexOf('\n## Health and metrics') + 1),
    );
    const documented = [...section.matchAll(/^\| `(helpdesk_sync_[a-z_]+)` \| ([a-z]+) \|/gm)]
      .map((m) => `${m[1]} ${m[2]}`)
      .sort();
    expect(served.length).toBeGreaterThan(10);
    expect(documented).toEqual(served);
  });
});
