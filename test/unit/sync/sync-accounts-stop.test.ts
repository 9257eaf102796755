import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseConfigFile } from '../../../src/config/load.js';
import { silentLogger } from '../../../src/log.js';
import { syncAccounts } from '../../../src/sync/accounts/sync-accounts.js';

const dir = mkdtempSync(join(tmpdir(), 'hs-accounts-stop-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The accounts of one config, each against a port nothing listens on (9, discard). */
const accounts = (...names: string[]) =>
  parseConfigFile(
    {
      accounts: names.map((name, i) => ({ name, base_url: `http://127.0.0.${i + 1}:9/v1`, token: `not-a-token-${i}` })),
      source: {},
      destination: { type: 'local', path: join(dir, 'out') },
      state: { path: join(dir, 'state', 'state.sqlite') },
    },
    'test',
    {},
  ).accounts;

// An account's own failure stays failed, with its code: test/integration/sync/daemon-accounts.test.ts.
describe('an account stopped before its run began', () => {
  it('is interrupted, not failed with an error that is not its own', async () => {
    const controller = new AbortController();
    controller.abort(new Error('received SIGTERM'));
    const outcomes = await syncAccounts(accounts('acme', 'globex'), {
      logger: silentLogger(),
      signal: controller.signal,
    });
    expect(outcomes.map((o) => [o.account, o.status, o.failure])).toEqual([
      ['acme', 'interrupted', undefined],
      ['globex', 'interrupted', undefined],
    ]);
  });
});
