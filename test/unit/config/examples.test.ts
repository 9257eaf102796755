import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { STREAM_NAMES } from '../../../src/catalog/catalog.js';
import { loadConfig, parseConfig } from '../../../src/config/load.js';
import { privacyConfigRule } from '../../../src/output/privacy/privacy-issues.js';
import { historyConfigRule } from '../../../src/warehouse/history/history-tables.js';

/** A commented-out block of the example (`# key:` up to the next blank line), uncommented. */
function commentedBlock(text: string, key: string): string {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => line.startsWith(`# ${key}:`));
  const end = lines.indexOf('', start);
  return lines
    .slice(start, end)
    .map((line) => line.replace(/^# ?/, ''))
    .join('\n');
}

// The shipped examples must stay valid as the schema evolves.
describe('config examples', () => {
  it('helpdesk-sync.example.yaml is valid', () => {
    const config = loadConfig('config/helpdesk-sync.example.yaml', {
      HELPDESK_BASE_URL: 'https://helpdesk.example.com/v1',
      HELPDESK_TOKEN: 'example-token',
    });
    expect(config.destination.type).toBe('local');
    // It lists every stream, so a copy of it leaves none out.
    expect(config.streams).toEqual(STREAM_NAMES);
  });

  it('sandbox.yaml is valid with no environment at all', () => {
    const config = loadConfig('config/sandbox.yaml', {});
    expect(config.source.base_url).toBe('http://127.0.0.1:4010/v1');
    expect(config.source.token).toBe('sandbox-admin');
  });

  it('the commented load, privacy and run blocks of helpdesk-sync.example.yaml are valid once uncommented', () => {
    const path = 'config/helpdesk-sync.example.yaml';
    const text = readFileSync(path, 'utf8');
    const raw = parseYaml(text) as Record<string, unknown>;
    for (const key of ['load', 'privacy', 'run']) Object.assign(raw, parseYaml(commentedBlock(text, key)));
    const env = {
      HELPDESK_BASE_URL: 'https://helpdesk.example.com/v1',
      HELPDESK_TOKEN: 'example-token',
      HELPDESK_HASH_KEY: 'an-example-key-0123456789',
    };
    const config = parseConfig(raw, path, env, [privacyConfigRule(true), historyConfigRule]);
    expect(config.load).toEqual({
      into: 'duckdb:./warehouse.duckdb',
      schema_contract: 'evolve',
      history: ['conversations', 'contacts'],
      keep_raw: false,
    });
    expect(config.privacy).toMatchObject({ contacts: { email: 'hash' }, _extra: 'drop' });
    expect(config.run).toEqual({ deadline_seconds: 3000 });
  });
});
