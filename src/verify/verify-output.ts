import { CATALOG_TABLES, streamOfTable } from '../catalog/catalog.js';
import type { TableName } from '../output/tables.js';
import type { ScratchMap } from '../scratch-space.js';
import { committedKeys, committedValue } from '../streams/committed.js';
import { hashesOf, parseThreadState, THREAD_TABLES, type ThreadTable } from '../streams/conversations/thread-state.js';
import { reportScope, SCOPES, scopeOf } from '../streams/scopes.js';
import { isLive, type OutputKeys } from './output-keys.js';
import { FindingTally, type SubjectCounts, type VerifyContext } from './verify-types.js';

const REPORT_PREFIX = reportScope('');

/** How the state holds a table's keys: one scope, the thread maps, or one scope per inbox. */
interface StateKeys {
  keys(): Iterable<string>;
  has(key: string): boolean;
}

function scopeKeys(ctx: VerifyContext, scope: string): StateKeys {
  return {
    keys: () => committedKeys(ctx.state, scope),
    has: (key) => committedValue(ctx.state, scope, key) !== undefined,
  };
}

/** Every thread row key the state holds, per thread table (in scratch: one map read of each conversation's thread). */
function threadKeys(ctx: VerifyContext): Record<ThreadTable, StateKeys> {
  const maps = {} as Record<ThreadTable, ScratchMap>;
  for (const table of Object.keys(THREAD_TABLES) as ThreadTable[])
    maps[table] = ctx.scratch.map(`verify-state-${table}`);
  for (const id of committedKeys(ctx.state, SCOPES.thread)) {
    const thread = parseThreadState(committedValue(ctx.state, SCOPES.thread, id));
    if (!thread) continue;
    for (const table of Object.keys(THREAD_TABLES) as ThreadTable[]) {
      for (const key of Object.keys(hashesOf(thread, table))) maps[table].set(key, '');
    }
  }
  const of = (map: ScratchMap): StateKeys => ({ keys: () => map.keys(), has: (key) => map.has(key) });
  return { messages: of(maps.messages), thread_events: of(maps.thread_events), attachments: of(maps.attachments) };
}

/** Report days: `inbox_id|date` over every report_day scope. */
function reportKeys(ctx: VerifyContext, scopes: readonly string[]): StateKeys {
  return {
    *keys() {
      for (const scope of scopes) {
        for (const day of committedKeys(ctx.state, scope)) yield `${scope.slice(REPORT_PREFIX.length)}|${day}`;
      }
    },
    has(key) {
      const cut = key.lastIndexOf('|');
      return committedValue(ctx.state, reportScope(key.slice(0, cut)), key.slice(cut + 1)) !== undefined;
    },
  };
}

/** Where the state holds each table's keys, as the table's declaration says (`keys`). */
function stateKeysOf(ctx: VerifyContext, reportScopes: readonly string[]): Map<TableName, StateKeys> {
  const thread = threadKeys(ctx);
  const keys = new Map<TableName, StateKeys>();
  for (const table of CATALOG_TABLES) {
    if (table.keys === 'thread') keys.set(table.name, thread[table.name as ThreadTable]);
    else if (table.keys === 'per-inbox') keys.set(table.name, reportKeys(ctx, reportScopes));
    else keys.set(table.name, scopeKeys(ctx, scopeOf(streamOfTable(table.name).state)));
  }
  return keys;
}

/**
 * The committed files against the state, table by table: every key the state
 * holds must have a live latest row (else a row was lost, or deleted from a
 * file by hand), and every live row a key in the state (else a tombstone was
 * lost, or the state was reset). Neither has a harmless cause: both are
 * unexplained, except a key without any row whose record was rejected
 * (`rejected`, from the committed `_rejected/` files: a value no column type
 * holds), which the sync reported and which is explained.
 */
export function verifyOutput(
  ctx: VerifyContext,
  output: OutputKeys,
  reportScopes: readonly string[],
  rejected: ReadonlyMap<TableName, ReadonlySet<string>> = new Map(),
): { counts: SubjectCounts[]; tallies: FindingTally[] } {
  const state = stateKeysOf(ctx, reportScopes);
  const counts: SubjectCounts[] = [];
  const tallies: FindingTally[] = [];
  for (const { name: table } of CATALOG_TABLES) {
    const tally = new FindingTally(table);
    const rows = output.latest.get(table);
    const keysHeld = state.get(table) as StateKeys;
    let held = 0;
    for (const key of keysHeld.keys()) {
      held += 1;
      const latest = rows?.get(key);
      if (isLive(latest)) continue;
      // No row at all (a tombstone is another story): the record was rejected, and the sync said so.
      if (latest === undefined && rejected.get(table)?.has(key))
        tally.add('rejected', key, true, 'held by the state, its record is in _rejected/ with the reason');
      else tally.add('missing_from_output', key, false, 'held by the state, but no live row in the committed files');
    }
    let live = 0;
    for (const key of rows?.keys() ?? []) {
      if (!isLive(rows?.get(key))) continue;
      live += 1;
      if (!keysHeld.has(key))
        tally.add('in_output_not_in_state', key, false, 'a live row the state does not hold (a lost tombstone?)');
    }
    counts.push({ subject: table, state: held, output: live });
    tallies.push(tally);
  }
  return { counts, tallies };
}
