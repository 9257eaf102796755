import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allConversations, api, merged, readTables, type SyncEnv, startSyncEnv } from './support.js';

let env: SyncEnv;
beforeAll(async () => {
  env = await startSyncEnv({ seed: 31, conversations: 20 });
});
afterAll(async () => {
  await env?.sandbox.close();
  rmSync(env.dir, { recursive: true, force: true });
});

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

describe('text safe for every warehouse', () => {
  it('a note with NUL and a lone surrogate is written with U+FFFD and counted in the summary', async () => {
    const [target] = await allConversations(env.sandbox);
    await api(env.sandbox, 'POST', `/conversation/${target!.id}/note`, { message: 'before\u0000after \ud800 end' });
    const { summary } = await env.sync();
    expect(summary.status).toBe('succeeded');
    expect(summary.sanitized_strings).toBeGreaterThan(0);

    const messages = [...merged(readTables(env.outDir).messages).values()];
    const note = messages.find((m) => String(m.text_body ?? '').startsWith('before'));
    expect(note?.text_body).toBe('before\ufffdafter \ufffd end');
    expect(note?.conversation_id).toBe(target!.id);

    // No output file, data or rejected, carries NUL or a lone surrogate, raw or escaped.
    for (const path of files(env.outDir).filter((p) => p.endsWith('.jsonl.gz'))) {
      const text = gunzipSync(readFileSync(path)).toString('utf8');
      expect(text.includes('\u0000'), path).toBe(false);
      expect(text, path).not.toMatch(/\\u0000|\\ud[89a-f]/);
    }
  });
});
