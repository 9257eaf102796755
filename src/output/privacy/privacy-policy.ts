import { createHmac } from 'node:crypto';
import { shortTextHash } from '../../canonical-json.js';
import { ConfigError, InvalidOptionError } from '../../errors.js';
import { isPlainObject } from '../../plain-object.js';
import { registerSecret } from '../../redact.js';
import { SCHEMA_VERSIONS, schemaSetVersionOf } from '../rows/schema-version.js';
import { TABLE_SPECS } from '../rows/table-specs.js';
import { TABLE_NAMES, type TableName } from '../tables.js';
import { privacyIssues, type SKIP_KEY_CHECK } from './privacy-issues.js';

export type ColumnAction = 'hash' | 'drop';
export type ExtraAction = 'keep' | 'drop';

/** What the policy does to one table's rows (see normalize/apply-privacy.ts). */
export interface TablePrivacy {
  /** Columns with an action; `array`: a string array, whose elements are hashed one by one. */
  readonly columns: ReadonlyArray<{ name: string; action: ColumnAction; array: boolean }>;
  /**
   * Names under which `_extra` can hold a policy column's value: the column's own name (a value
   * of the wrong type) and its source field (an embedded object without its key, a renamed field).
   */
  readonly extraNames: ReadonlyMap<string, ColumnAction>;
  /** `drop`: `_extra` is always null, so a field the API adds later cannot slip past the policy. */
  readonly extra: ExtraAction;
  /** The table's column names: all a rejected record keeps when `_extra` is dropped. */
  readonly columnNames: ReadonlySet<string>;
  /** HMAC-SHA-256 of a text with the policy's key, as 64 hex digits. */
  readonly hash: (text: string) => string;
}

/** Per table, the columns hashed or dropped (and `_extra: drop`): what manifests and `check` show. */
export type PrivacySummary = Partial<Record<TableName, Record<string, ColumnAction>>>;

export interface PrivacyPolicy {
  /** What applies to `table`, or undefined when its rows are written as the API sends them. */
  table(table: TableName): TablePrivacy | undefined;
  /** Each table's schema version under this policy: a table the policy touches gets a new one. */
  readonly schemaVersions: Record<TableName, string>;
  readonly schemaSetVersion: string;
  readonly summary: PrivacySummary;
  /**
   * 12 hex digits of an HMAC of a fixed text under the hash key: tells two keys
   * apart (hashes made with different keys never join) without revealing either.
   * Undefined when no column is hashed.
   */
  readonly keyFingerprint?: string;
}

function tablePrivacy(
  table: TableName,
  actions: Record<string, string>,
  extra: ExtraAction,
  hash: TablePrivacy['hash'],
): TablePrivacy {
  const specs = TABLE_SPECS[table].columns;
  const columns = specs.flatMap((c) => {
    const action = actions[c.name];
    if (action !== 'hash' && action !== 'drop') return [];
    return [{ name: c.name, action: action as ColumnAction, array: c.kind === 'string_array' }];
  });
  const extraNames = new Map<string, ColumnAction>();
  for (const column of columns) {
    extraNames.set(column.name, column.action);
    const root = specs.find((c) => c.name === column.name)?.from?.split('.')[0];
    if (root) extraNames.set(root, column.action);
  }
  return { columns, extraNames, extra, columnNames: new Set(specs.map((c) => c.name)), hash };
}

/** The policy's words for one table, sorted, as they enter its schema version. */
function describe(privacy: TablePrivacy): Record<string, ColumnAction> {
  const out: Record<string, ColumnAction> = {};
  for (const c of [...privacy.columns].sort((a, b) => a.name.localeCompare(b.name))) out[c.name] = c.action;
  if (privacy.extra === 'drop') out._extra = 'drop';
  return out;
}

/**
 * The config's `privacy:` block as the config layer reads it (its shape only): declared here, so
 * the output layer, which the warehouse reads, imports nothing of the config.
 */
export type PrivacyConfig = Readonly<Record<string, string | Readonly<Record<string, string>>>>;

/**
 * The config's `privacy:` block, checked (a ConfigError lists every problem) and
 * made ready for normalization. The key is registered as a secret, so no log
 * line, error or file can carry it. SKIP_KEY_CHECK instead of a key: a policy
 * that only describes (`schemas --config`), whose `hash` must not be called.
 */
export function compilePrivacyPolicy(
  config: PrivacyConfig | undefined,
  hashKey?: string | typeof SKIP_KEY_CHECK,
): PrivacyPolicy {
  const issues = privacyIssues(config, hashKey);
  if (issues.length > 0) throw new ConfigError('the privacy policy', issues);
  const raw = config ?? {};
  let hash: TablePrivacy['hash'] = () => {
    throw new InvalidOptionError('this privacy policy was compiled without its key: it cannot hash');
  };
  if (typeof hashKey === 'string') {
    registerSecret(hashKey);
    hash = (text) => createHmac('sha256', hashKey).update(text).digest('hex');
  }
  const hashes = Object.values(raw).some((t) => isPlainObject(t) && Object.values(t).includes('hash'));
  const keyFingerprint =
    hashes && typeof hashKey === 'string'
      ? createHmac('sha256', hashKey).update('helpdesk-sync privacy key fingerprint').digest('hex').slice(0, 12)
      : undefined;
  const defaultExtra: ExtraAction = raw._extra === 'drop' ? 'drop' : 'keep';
  const tables = new Map<TableName, TablePrivacy>();
  const summary: PrivacySummary = {};
  const schemaVersions = { ...SCHEMA_VERSIONS };
  for (const table of TABLE_NAMES) {
    const actions = isPlainObject(raw[table]) ? (raw[table] as Record<string, string>) : {};
    const extra = (actions._extra as ExtraAction | undefined) ?? defaultExtra;
    const privacy = tablePrivacy(table, actions, extra, hash);
    if (privacy.columns.length === 0 && extra === 'keep') continue;
    tables.set(table, privacy);
    summary[table] = describe(privacy);
    schemaVersions[table] = shortTextHash(`${SCHEMA_VERSIONS[table]};privacy${JSON.stringify(summary[table])}`);
  }
  return {
    table: (table) => tables.get(table),
    schemaVersions,
    schemaSetVersion: schemaSetVersionOf(schemaVersions),
    summary,
    keyFingerprint,
  };
}

/** No policy: every table as the API sends it. */
export const NO_PRIVACY: PrivacyPolicy = compilePrivacyPolicy(undefined);

/** One line for `check`: what is hashed and dropped, or that nothing is. */
export function formatPrivacy(summary: PrivacySummary): string {
  const parts = Object.entries(summary).flatMap(([table, columns]) =>
    Object.entries(columns ?? {}).map(([column, action]) => `${table}.${column} ${action}`),
  );
  return parts.length === 0 ? 'none: every column is written as the API sends it' : parts.join(', ');
}
