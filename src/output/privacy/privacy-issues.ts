import type { ConfigIssue } from '../../errors.js';
import { isPlainObject } from '../../plain-object.js';
import { TABLE_SPECS } from '../rows/table-specs.js';
import { TABLE_NAMES, type TableName } from '../tables.js';

/** `hash` keeps joins working, so it applies where a value can be joined on: text and arrays of text. */
export const HASHABLE_KINDS: ReadonlySet<string> = new Set(['string', 'string_array']);

/** A key shorter than this could be guessed, and with it every hashed value by a dictionary attack. */
export const MIN_HASH_KEY_LENGTH = 16;

/** The environment variable that holds the HMAC key of `hash`. */
export const HASH_KEY_VARIABLE = 'HELPDESK_HASH_KEY';

const EXTRA = '_extra';

/** Passed as the key when the caller will not hash: the key is then not checked. */
export const SKIP_KEY_CHECK = Symbol('skip key check');

function extraIssue(path: string, value: unknown): ConfigIssue[] {
  return value === 'keep' || value === 'drop' ? [] : [{ path, message: 'expected keep or drop' }];
}

function columnIssues(table: TableName, column: string, action: unknown): ConfigIssue[] {
  const path = `privacy.${table}.${column}`;
  if (column === EXTRA) return extraIssue(path, action);
  const spec = TABLE_SPECS[table];
  const kind = spec.columns.find((c) => c.name === column)?.kind;
  if (kind === undefined) {
    return [
      { path, message: `unknown column of ${table}; expected one of: ${spec.columns.map((c) => c.name).join(', ')}` },
    ];
  }
  if ((spec.primaryKey as readonly string[]).includes(column)) {
    return [{ path, message: 'a primary key column cannot be hashed or dropped: rows could no longer be merged' }];
  }
  if (action === 'drop') return [];
  if (action === 'hash') {
    return HASHABLE_KINDS.has(kind)
      ? []
      : [{ path, message: `hash applies to text columns; ${column} is ${kind}: use drop` }];
  }
  return [{ path, message: 'expected hash or drop' }];
}

/**
 * The config rule (see ConfigRule in src/config/load.ts): the privacy block, checked
 * with the other problems. `needsKey`: the command writes rows, so a `hash` needs its
 * key now (a command that writes none, such as `plan`, does not ask for it).
 */
export function privacyConfigRule(needsKey: boolean): (raw: unknown, env: NodeJS.ProcessEnv) => ConfigIssue[] {
  return (raw, env) =>
    privacyIssues(isPlainObject(raw) ? raw.privacy : undefined, needsKey ? env[HASH_KEY_VARIABLE] : SKIP_KEY_CHECK);
}

/**
 * Every problem of a `privacy:` block at once, with its path: unknown tables and
 * columns, actions a column cannot take, and a `hash` without its key. Values of
 * the wrong JSON shape are left to the config schema, which reports them itself.
 */
export function privacyIssues(privacy: unknown, hashKey: string | undefined | typeof SKIP_KEY_CHECK): ConfigIssue[] {
  if (!isPlainObject(privacy)) return [];
  const issues: ConfigIssue[] = [];
  let hashes = false;
  for (const [name, value] of Object.entries(privacy)) {
    if (name === EXTRA) {
      issues.push(...extraIssue(`privacy.${EXTRA}`, value));
      continue;
    }
    if (!TABLE_NAMES.includes(name as TableName)) {
      issues.push({ path: `privacy.${name}`, message: `unknown table; expected one of: ${TABLE_NAMES.join(', ')}` });
      continue;
    }
    if (!isPlainObject(value)) {
      // Other shapes are the schema's to report; a bare word here is a table without its columns.
      if (typeof value === 'string')
        issues.push({ path: `privacy.${name}`, message: 'expected { column: hash | drop }' });
      continue;
    }
    for (const [column, action] of Object.entries(value)) {
      issues.push(...columnIssues(name as TableName, column, action));
      if (action === 'hash') hashes = true;
    }
  }
  if (hashKey === SKIP_KEY_CHECK) return issues;
  if (hashes && (hashKey === undefined || hashKey === '')) {
    issues.push({ path: 'privacy', message: `hash needs its key in the environment variable ${HASH_KEY_VARIABLE}` });
  } else if (hashes && hashKey !== undefined && hashKey.length < MIN_HASH_KEY_LENGTH) {
    issues.push({
      path: 'privacy',
      message: `${HASH_KEY_VARIABLE} must be at least ${MIN_HASH_KEY_LENGTH} characters (e.g. openssl rand -hex 32)`,
    });
  }
  return issues;
}
