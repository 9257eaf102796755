import { basename, dirname, extname } from 'node:path';
import { DEFAULT_TARGET } from '../warehouse/engines.js';
import type { LoadTarget } from './load-target.js';
import { stateLocation } from './state-location.js';

/**
 * The embedded default, which belongs to the config: a file of the registry's
 * default engine (src/warehouse/engines.ts, a DuckDB database) beside its
 * local state file, named after it (`.helpdesk-sync/state.sqlite` →
 * `.helpdesk-sync/state.duckdb`), as the spool is. Two configs never share it,
 * since two configs never share a state. A state in object storage has no local
 * place to put it: such a config names its target.
 */
export function defaultLoadTarget(statePath: string): { target: LoadTarget } | { problem: string } {
  if (stateLocation(statePath).kind === 's3') {
    return {
      problem:
        `with state.path in object storage there is no default ${DEFAULT_TARGET.title} file (it lives beside a local state): ` +
        'set load.into or give --into',
    };
  }
  const name = basename(statePath);
  const stem = name.slice(0, name.length - extname(name).length) || name;
  return { target: DEFAULT_TARGET.fileBeside(dirname(statePath), stem) };
}
