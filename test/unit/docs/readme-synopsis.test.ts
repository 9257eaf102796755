import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../../src/cli/program.js';
import { synopsis } from '../../../src/cli/synopsis.js';
import { openStateDb } from '../../../src/state/database.js';

/** README's block under "## Commands". */
function readmeSynopsis(): string {
  const text = readFileSync('README.md', 'utf8');
  const block = /## Commands\n[\s\S]*?```\n([\s\S]*?)```\n/.exec(text);
  return block?.[1]?.trimEnd() ?? '';
}

describe("README's synopsis", () => {
  it('is what the command line defines (the definitions --help prints); on a difference, paste the expected block', () => {
    expect(readmeSynopsis()).toBe(synopsis(buildProgram()));
  });

  it('every option it lists is one the command accepts: each parses without a usage error', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hs-synopsis-'));
    try {
      const config = join(dir, 'config.json');
      openStateDb(join(dir, 'state.sqlite')).close();
      writeFileSync(
        config,
        JSON.stringify({
          source: { base_url: 'http://127.0.0.1:9/v1', token: 't' },
          state: { path: join(dir, 'state.sqlite') },
          destination: { type: 'local', path: join(dir, 'out') },
        }),
      );
      const out: string[] = [];
      const write = process.stdout.write;
      process.stdout.write = ((chunk: string) => out.push(chunk) > 0) as typeof process.stdout.write;
      try {
        // The one the README promised and the command refused (exit 64, "unknown option '--stream'").
        await buildProgram().parseAsync(['state', 'show', '--stream', 'tags,inboxes', '--config', config], {
          from: 'user',
        });
      } finally {
        process.stdout.write = write;
      }
      const shown = out.join('');
      expect(shown).toMatch(/^ {2}inboxes +0 /m);
      expect(shown).toMatch(/^ {2}tags +0 /m);
      expect(shown).not.toMatch(/^ {2}conversations /m);
      expect(process.exitCode ?? 0).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
