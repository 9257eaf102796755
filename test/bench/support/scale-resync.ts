import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../../../src/config/load.js';
import { silentLogger } from '../../../src/log.js';
import { startSandbox } from '../../../src/sandbox/start.js';
import { syncJob } from '../../../src/sync/sync-job.js';

/** Re-sync after 1 % of the conversations changed: list pages + one thread per changed conversation is the minimum. */
export async function resyncOnePercent(): Promise<Record<string, unknown>> {
  const sandbox = await startSandbox({ port: 0, seed: 5, conversations: 4000, rateLimit: 10_000_000 });
  const dir = mkdtempSync(join(tmpdir(), 'hs-bench-resync-'));
  try {
    const config = parseConfig(
      {
        source: { base_url: sandbox.baseUrl, token: 'sandbox-admin', rate_limit: { requests_per_minute: 100_000 } },
        streams: ['conversations', 'contacts', 'messages'],
        destination: { type: 'local', path: join(dir, 'out') },
        state: { path: join(dir, 'state.sqlite') },
      },
      'bench',
      {},
    );
    const first = await syncJob(config, { logger: silentLogger() });
    const listed = first.summary.conversations_scanned;
    const ids: string[] = [];
    for (let page = 1; ids.length < listed; page += 1) {
      const res = await fetch(`${sandbox.baseUrl}/search`, {
        method: 'POST',
        headers: { authorization: 'Bearer sandbox-admin', 'content-type': 'application/json' },
        body: JSON.stringify({ page, per_page: 100, sort: 'oldest' }),
      });
      const body = (await res.json()) as { data: { conversations: { data: Array<{ id: string | number }> } } };
      const items = body.data.conversations.data;
      if (items.length === 0) break;
      for (const item of items) ids.push(String(item.id));
    }
    // 1 % of the listed conversations, spread over the whole list.
    const changed = Math.round(listed / 100);
    const step = Math.floor(ids.length / changed);
    for (let i = 0; i < changed; i += 1) {
      const res = await fetch(`${sandbox.baseUrl}/conversation/${ids[i * step]}`, {
        method: 'PATCH',
        headers: { authorization: 'Bearer sandbox-admin', 'content-type': 'application/json' },
        body: JSON.stringify({ subject: `changed for the benchmark ${i}` }),
      });
      if (!res.ok) throw new Error(`PATCH conversation ${ids[i * step]}: ${res.status}`);
    }
    const second = await syncJob(config, { logger: silentLogger() });
    const minimum = Math.ceil(listed / 100) + changed;
    const made = second.summary.requests.requests;
    const ratio = made / minimum;
    process.stdout.write(
      `re-sync after 1 % changed (${changed} of ${listed} conversations): ${made} requests for a minimum of ${minimum}` +
        ` (${Math.ceil(listed / 100)} list pages + ${changed} threads) → ratio ${ratio.toFixed(3)} (target ≤ 1.01);` +
        ` ${second.summary.messages_fetched} threads fetched, ${second.summary.tables.conversations.rows} conversation rows\n`,
    );
    return {
      conversations: listed,
      changed,
      requests: made,
      minimum,
      ratio,
      threads_fetched: second.summary.messages_fetched,
    };
  } finally {
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
