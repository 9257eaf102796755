import { createHmac } from 'node:crypto';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/load.js';
import { ConfigError } from '../../../src/errors.js';
import { tableJsonSchema } from '../../../src/output/json-schema.js';
import { normalizeRecord } from '../../../src/output/normalize/normalize-record.js';
import { privacyConfigRule, privacyIssues } from '../../../src/output/privacy/privacy-issues.js';
import { compilePrivacyPolicy, formatPrivacy, NO_PRIVACY } from '../../../src/output/privacy/privacy-policy.js';
import { SCHEMA_SET_VERSION, SCHEMA_VERSIONS } from '../../../src/output/rows/schema-version.js';
import { TABLE_NAMES } from '../../../src/output/tables.js';
import { REDACTED, scrubSecrets } from '../../../src/redact.js';

const KEY = 'a-hash-key-for-the-unit-tests';
const hmac = (text: string) => createHmac('sha256', KEY).update(text).digest('hex');
const meta = { runId: '20260101T000000Z-aaaaaa', syncedAt: '2026-01-01T00:00:00.000Z', account: 'acme' };

const policy = compilePrivacyPolicy(
  {
    contacts: { email: 'hash', notes: 'drop' },
    users: { email: 'hash' },
    messages: { cc: 'hash', html_body: 'drop', source_extra: 'drop' },
    conversations: { contact_id: 'drop', _extra: 'drop' },
  },
  KEY,
);

function row(table: Parameters<typeof normalizeRecord>[0], record: Record<string, unknown>) {
  const result = normalizeRecord(table, record, meta, policy.table(table));
  if (!result.ok) throw new Error(result.reason);
  return result.row;
}

describe('privacy policy: every problem at once, with its path', () => {
  it.each([
    [{ contact: { email: 'hash' } }, 'privacy.contact: unknown table; expected one of: conversations, messages'],
    [
      { contacts: { emial: 'hash' } },
      'privacy.contacts.emial: unknown column of contacts; expected one of: id, name, email',
    ],
    [{ contacts: { id: 'drop' } }, 'privacy.contacts.id: a primary key column cannot be hashed or dropped'],
    [
      { contacts: { conversations_count: 'hash' } },
      'privacy.contacts.conversations_count: hash applies to text columns; conversations_count is int: use drop',
    ],
    [{ contacts: { email: 'encrypt' } }, 'privacy.contacts.email: expected hash or drop'],
    [{ contacts: { _extra: 'hash' } }, 'privacy.contacts._extra: expected keep or drop'],
    [{ _extra: 'remove' }, 'privacy._extra: expected keep or drop'],
    [{ contacts: 'hash' }, 'privacy.contacts: expected { column: hash | drop }'],
  ])('%j', (privacy, message) => {
    const issues = privacyIssues(privacy, KEY).map((i) => `${i.path}: ${i.message}`);
    expect(issues).toHaveLength(1);
    expect(issues[0]).toContain(message);
  });

  it('a hash needs HELPDESK_HASH_KEY, long enough to resist guessing; drop alone needs none', () => {
    const hash = { contacts: { email: 'hash' } };
    expect(privacyIssues(hash, undefined)).toEqual([
      { path: 'privacy', message: 'hash needs its key in the environment variable HELPDESK_HASH_KEY' },
    ]);
    expect(privacyIssues(hash, 'short')[0]!.message).toMatch(/at least 16 characters/);
    expect(privacyIssues({ messages: { html_body: 'drop' } }, undefined)).toEqual([]);
  });

  it('the config rule reports them with the schema problems, in one ConfigError (exit 64)', () => {
    const raw = {
      source: { base_url: 'https://api.example.com/v1', token: 't0ken-value' },
      destination: { type: 'ftp' },
      privacy: { contacts: { email: 'hash', phone: 'drop' }, tickets: { id: 'drop' } },
    };
    let error: unknown;
    try {
      parseConfig(raw, 'c.yaml', {}, [privacyConfigRule(true)]);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).exitCode).toBe(64);
    expect((error as ConfigError).issues.map((i) => i.path)).toEqual([
      'destination.type',
      'privacy.contacts.phone',
      'privacy.tickets',
      'privacy',
    ]);
    // A command that writes no rows does not ask for the key.
    expect(() => parseConfig({ ...raw, destination: undefined }, 'c.yaml', {}, [privacyConfigRule(false)])).toThrow(
      /privacy.contacts.phone/,
    );
  });

  it('the key is registered as a secret, and check names what is hashed and dropped', () => {
    expect(scrubSecrets(`key=${KEY}`)).toBe(`key=${REDACTED}`);
    expect(formatPrivacy(policy.summary)).toBe(
      'conversations.contact_id drop, conversations._extra drop, messages.cc hash, messages.html_body drop, ' +
        'messages.source_extra drop, contacts.email hash, contacts.notes drop, users.email hash',
    );
    expect(formatPrivacy(NO_PRIVACY.summary)).toMatch(/^none/);
  });
});

describe('privacy applied in normalization', () => {
  it('hash: a keyed HMAC-SHA-256, the same for the same value in every table, so joins still work', () => {
    const contact = row('contacts', { id: 'c1', name: 'Ann', email: 'ann@example.com', notes: 'VIP' });
    expect(contact.email).toBe(hmac('ann@example.com'));
    expect(contact.name).toBe('Ann');
    expect(contact.notes).toBeNull();
    expect(row('contacts', { id: 'c1', email: 'ann@example.com' }).email).toBe(contact.email);
    expect(row('users', { id: 'u1', email: 'ann@example.com' }).email).toBe(contact.email);
    const message = row('messages', { id: 'm1', cc: ['ann@example.com', 'bo@example.com'], html_body: '<p>hi</p>' });
    expect(message.cc).toEqual([hmac('ann@example.com'), hmac('bo@example.com')]);
    expect(message.html_body).toBeNull();
  });

  it('a value of the wrong type, or an embedded object without its key, is hashed or dropped in _extra too', () => {
    const contact = row('contacts', { id: 'c2', email: 42 });
    expect(contact.email).toBeNull();
    expect(contact._extra).toEqual({ email: hmac('42'), _notes: ['email: expected string, got number'] });
    const message = row('messages', { id: 'm2', html_body: ['<p>secret</p>'], extra: 'secret extra', other: 1 });
    expect(message._extra).toEqual({
      other: 1,
      _notes: ['html_body: expected string, got array', 'source_extra: expected object, got string'],
    });
    expect(JSON.stringify(message)).not.toContain('secret');
  });

  it('_extra: drop leaves no unknown field, and takes the embedded contact of a conversation with it', () => {
    const conversation = row('conversations', { id: 'v1', contact: { email: 'ann@example.com' }, later_field: 'x' });
    expect(conversation.contact_id).toBeNull();
    expect(conversation._extra).toBeNull();
  });

  it('a rejected record keeps only what the policy allows', () => {
    const contact = normalizeRecord(
      'contacts',
      { email: 'ann@example.com', notes: 'VIP', x: 1 },
      meta,
      policy.table('contacts'),
    );
    expect(contact).toMatchObject({ ok: false, raw: { email: hmac('ann@example.com'), x: 1 } });
    const conversation = normalizeRecord(
      'conversations',
      { subject: 's', contact: { email: 'e' } },
      meta,
      policy.table('conversations'),
    );
    expect(conversation).toMatchObject({ ok: false, raw: { subject: 's' } });
    expect(normalizeRecord('conversations', 'not an object', meta, policy.table('conversations'))).toMatchObject({
      raw: null,
    });
    expect(normalizeRecord('tags', { name: 'n' }, meta, policy.table('tags'))).toEqual({
      ok: false,
      reason: 'missing primary key id',
    });
  });
});

describe('schema versions and JSON Schema under a policy', () => {
  it('a table the policy touches gets a new version; the others and no policy keep theirs', () => {
    expect(NO_PRIVACY.schemaVersions).toEqual(SCHEMA_VERSIONS);
    expect(NO_PRIVACY.schemaSetVersion).toBe(SCHEMA_SET_VERSION);
    expect(compilePrivacyPolicy({ _extra: 'keep', contacts: {} }).schemaVersions).toEqual(SCHEMA_VERSIONS);
    for (const table of TABLE_NAMES) {
      const touched = ['contacts', 'users', 'messages', 'conversations'].includes(table);
      expect(policy.schemaVersions[table] !== SCHEMA_VERSIONS[table], table).toBe(touched);
      expect(policy.schemaVersions[table]).toMatch(/^[0-9a-f]{12}$/);
    }
    expect(policy.schemaSetVersion).not.toBe(SCHEMA_SET_VERSION);
    const other = compilePrivacyPolicy({ contacts: { email: 'drop', notes: 'drop' } }, KEY);
    expect(other.schemaVersions.contacts).not.toBe(policy.schemaVersions.contacts);
  });

  it('the JSON Schema says which columns are hashed or dropped, and validates the rows the policy writes', () => {
    const ajv = new Ajv2020();
    const schema = tableJsonSchema('contacts', policy) as {
      properties: Record<string, { description?: string; type?: unknown }>;
      $defs: { schema_version: { const: string } };
    };
    expect(schema.properties.email!.description).toMatch(/HMAC-SHA-256/);
    expect(schema.properties.notes).toEqual({ type: 'null', description: 'always null (privacy policy: drop)' });
    expect(schema.$defs.schema_version.const).toBe(policy.schemaVersions.contacts);
    const validate = ajv.compile(schema);
    const good = row('contacts', { id: 'c3', email: 'ann@example.com', notes: 'VIP' });
    expect(validate(good) ? null : validate.errors).toBeNull();
    expect(validate({ ...good, email: 'ann@example.com' })).toBe(false);
    const messages = ajv.compile(tableJsonSchema('messages', policy));
    expect(messages(row('messages', { id: 'm3', cc: ['a@b.c'] })) ? null : messages.errors).toBeNull();
    expect(messages({ ...row('messages', { id: 'm4' }), cc: ['a@b.c'] })).toBe(false);
  });
});
