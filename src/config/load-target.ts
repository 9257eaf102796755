import { basename, dirname, extname, join } from 'node:path';
import { stateLocation } from './state-location.js';

/**
 * Where `load` writes: a DuckDB database file (`duckdb:<path>`, the embedded
 * default) or a PostgreSQL database (`postgres://` or `postgresql://` connection
 * string, usually interpolated from the environment so its password stays out of
 * the file).
 */
export type LoadTarget = { kind: 'duckdb'; path: string } | { kind: 'postgres'; url: string };

/** Where a load's target came from, said in its summary. */
export type LoadTargetOrigin = '--into' | 'load.into' | 'default';

/**
 * The embedded default, which belongs to the config: a DuckDB file beside its
 * local state file, named after it (`.helpdesk-sync/state.sqlite` →
 * `.helpdesk-sync/state.duckdb`), as the spool is. Two configs never share it,
 * since two configs never share a state. A state in object storage has no local
 * place to put it: such a config names its target.
 */
export function defaultLoadTarget(statePath: string): { target: LoadTarget } | { problem: string } {
  if (stateLocation(statePath).kind === 's3') {
    return {
      problem:
        'with state.path in object storage there is no default DuckDB file (it lives beside a local state): set load.into or give --into',
    };
  }
  const name = basename(statePath);
  const stem = name.slice(0, name.length - extname(name).length) || name;
  return { target: { kind: 'duckdb', path: join(dirname(statePath), `${stem}.duckdb`) } };
}

/** The target a `load.into` / `--into` text names, or what is wrong with it. */
export function parseLoadTarget(text: string): { target: LoadTarget } | { problem: string } {
  if (text.startsWith('duckdb:')) {
    const path = text.slice('duckdb:'.length);
    return path === ''
      ? { problem: 'duckdb: needs a file path, e.g. duckdb:./warehouse.duckdb' }
      : { target: { kind: 'duckdb', path } };
  }
  if (/^postgres(ql)?:\/\//i.test(text)) {
    return URL.canParse(text) ? { target: { kind: 'postgres', url: text } } : { problem: 'not a valid connection URL' };
  }
  return { problem: 'expected duckdb:<file> or a postgres:// connection string' };
}

/** The target for logs and summaries: a connection string without its password. */
export function describeLoadTarget(target: LoadTarget): string {
  if (target.kind === 'duckdb') return `duckdb:${target.path}`;
  const url = new URL(target.url);
  if (url.password) url.password = '***';
  return url.toString();
}
