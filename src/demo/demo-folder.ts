import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { HelpdeskSyncError } from '../errors.js';
import { manifestKey } from '../output/object-keys.js';
import { openStateDb } from '../state/database.js';
import { keysWrittenByState } from '../state/state-admin.js';

/** Everything the demo writes lives under one folder of its own. */
export interface DemoFolder {
  readonly dir: string;
  readonly out: string;
  readonly state: string;
  readonly marker: string;
  /** The DuckDB file the demo loads its output into. */
  readonly warehouse: string;
}

export function demoFolder(dir: string): DemoFolder {
  return {
    dir,
    out: join(dir, 'out'),
    state: join(dir, 'state.sqlite'),
    marker: join(dir, '.helpdesk-sync-demo'),
    warehouse: join(dir, 'helpdesk.duckdb'),
  };
}

/** The demo refuses to touch a folder, or a file in it, that it did not write. */
export class DemoFolderError extends HelpdeskSyncError {
  readonly code = 'DEMO_FOLDER_NOT_OURS';
}

function* filesUnder(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* filesUnder(path);
    else yield path;
  }
}

/** Output keys a previous state wrote (its data files and its manifests), under `prefix`. */
function keysWrittenBy(statePath: string, prefix: string): string[] {
  if (!existsSync(statePath)) return [];
  const state = openStateDb(statePath);
  try {
    const { fileKeys, runIds } = keysWrittenByState(state);
    return [...fileKeys, ...runIds.map(manifestKey)].map((key) => `${prefix}${key}`);
  } finally {
    state.close();
  }
}

/**
 * Output keys the demo's previous run wrote: its state's, or with `accounts`
 * each account's state's (in `<dir>/<name>/`), under the account's prefix.
 */
function keysOfPreviousDemo(folder: DemoFolder, accounts: readonly string[]): Set<string> {
  if (accounts.length === 0) return new Set(keysWrittenBy(folder.state, ''));
  return new Set(accounts.flatMap((name) => keysWrittenBy(join(folder.dir, name, 'state.sqlite'), `${name}/`)));
}

/**
 * Makes the demo's folder ready for a fresh run. A folder the demo did not make
 * (no marker) is refused; in one it made, only what its previous run wrote is
 * removed: the output files its state recorded, its manifests, its state,
 * spool and DuckDB file (with `accounts`, each account's state folder). A file in the output that the demo's state never wrote (another
 * config pointed there) stops the demo before anything is deleted.
 */
export function prepareDemoFolder(folder: DemoFolder, accounts: readonly string[] = []): void {
  if (existsSync(folder.dir) && !existsSync(folder.marker)) {
    throw new DemoFolderError(
      `${folder.dir} exists and was not made by the demo; move it away or run the demo in another directory`,
    );
  }
  if (existsSync(folder.out)) {
    const ours = keysOfPreviousDemo(folder, accounts);
    const foreign = [...filesUnder(folder.out)].filter(
      (path) => !ours.has(relative(folder.out, path).split(sep).join('/')),
    );
    if (foreign.length > 0) {
      throw new DemoFolderError(
        `${folder.out} holds ${foreign.length} file(s) the demo did not write (first: ${foreign[0]}); ` +
          'the demo deletes only its own output: move them away, or run the demo in another directory',
      );
    }
    rmSync(folder.out, { recursive: true, force: true });
  }
  // The state, its WAL and shared memory (a stale WAL would be replayed into a fresh database), lock and
  // spool; the DuckDB file and its WAL (the demo loads both runs afresh).
  if (existsSync(folder.dir)) {
    for (const name of readdirSync(folder.dir)) {
      if (name.startsWith('state.') || name.startsWith('helpdesk.duckdb') || accounts.includes(name))
        rmSync(join(folder.dir, name), { recursive: true, force: true });
    }
  }
  mkdirSync(folder.out, { recursive: true });
  writeFileSync(
    folder.marker,
    'written by npm run demo: this folder is the demo’s own; a new demo run replaces what the last one wrote\n',
  );
}
