import type { ApiObject } from '../api/types.js';
import type { TableName } from '../output/tables.js';
import { fingerprint } from './fingerprint.js';
import { idOf } from './id-of.js';
import type { Emit, StateReader } from './types.js';

/**
 * The diff of a full-refresh listing against the fingerprints committed for it
 * (docs/streams.md: full refresh, emit changed, tombstone missing). Feed it every
 * listed record with `observe`; once the listing is known to be COMPLETE, ask
 * for `tombstones()` of the ids it no longer holds. A listing that failed or
 * was interrupted must not be asked: absence from a partial list proves nothing.
 */
export class RefreshDiff {
  readonly #previous: Set<string>;
  readonly #seen = new Set<string>();

  constructor(
    private readonly table: TableName,
    private readonly scope: string,
    private readonly state: StateReader,
    private readonly fullRefresh: boolean,
  ) {
    this.#previous = new Set(state.keys(scope));
  }

  /**
   * The emit for one listed record, or undefined when it is unchanged. A record
   * without an id is still emitted (the normalizer rejects it with the reason,
   * nothing is silently dropped) but keeps no state. A repeated id in one run
   * (pagination shifted under us, or a tag listed by several inboxes) keeps the
   * first occurrence.
   */
  observe(record: ApiObject): Emit | undefined {
    const id = idOf(record);
    if (id === undefined) return { kind: 'row', table: this.table, record };
    if (this.#seen.has(id)) return undefined;
    this.#seen.add(id);
    this.#previous.delete(id);
    const hash = fingerprint(record);
    if (!this.fullRefresh && this.state.get(this.scope, id) === hash) return undefined;
    return { kind: 'row', table: this.table, record, changes: [{ scope: this.scope, key: id, value: hash }] };
  }

  /** Tombstones for every committed id the complete listing did not hold. */
  *tombstones(): Generator<Emit> {
    for (const id of this.#previous) {
      yield {
        kind: 'row',
        table: this.table,
        record: { id },
        deleted: true,
        changes: [{ scope: this.scope, key: id, value: null }],
      };
    }
  }
}
