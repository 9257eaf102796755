import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load.js';

// The shipped examples must stay valid as the schema evolves.
describe('config examples', () => {
  it('helpdesk-sync.example.yaml is valid', () => {
    const config = loadConfig('config/helpdesk-sync.example.yaml', {
      HELPDESK_BASE_URL: 'https://helpdesk.example.com/v1',
      HELPDESK_TOKEN: 'example-token',
    });
    expect(config.destination.type).toBe('local');
    expect(config.streams).toHaveLength(9);
  });

  it('sandbox.yaml is valid with no environment at all', () => {
    const config = loadConfig('config/sandbox.yaml', {});
    expect(config.source.base_url).toBe('http://127.0.0.1:4010/v1');
    expect(config.source.token).toBe('sandbox-admin');
  });
});
