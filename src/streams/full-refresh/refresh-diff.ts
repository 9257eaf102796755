import type { ApiObject } from '../../api/index.js';
import type { StreamName } from '../../config/schema.js';
import { recordKey } from '../../output/rows/record-key.js';
import { TABLES, type TableName } from '../../output/tables.js';
import { committedCount } from '../committed.js';
import { completenessFigure } from '../completeness.js';
import { fingerprint } from '../fingerprint.js';
import type { Emit, StateReader } from '../types.js';

/**
 * The diff of a full-refresh listing against the fingerprints committed for it
 * (docs/streams.md: full refresh, emit changed, tombstone missing). Feed it every
 * listed record with `observe`; once the listing is known to be COMPLETE, ask
 * for `tombstones()` of the ids it no longer holds. A listing that failed or
 * was interrupted must not be asked: absence from a partial list proves nothing.
 */
export class RefreshDiff {
  readonly #keyOf: (record: ApiObject) => string | undefined;
  readonly #keyColumn: string;
  readonly #previous: Set<string>;
  readonly #seen = new Set<string>();
  /** Listed records without an id (rejected by the normalizer). */
  #withoutId = 0;

  constructor(
    private readonly table: TableName,
    private readonly scope: string,
    private readonly state: StateReader,
    private readonly fullRefresh: boolean,
  ) {
    // Full-refresh tables are keyed by one column (the registry checks it): a tombstone holds it alone.
    this.#keyOf = recordKey(table);
    this.#keyColumn = TABLES[table][0] as string;
    this.#previous = new Set(state.keys(scope));
  }

  /**
   * The emit for one listed record, or undefined when it is unchanged. A record
   * without its key (an id) is still emitted (the normalizer rejects it with the reason,
   * nothing is silently dropped) but keeps no state. A repeated id in one run
   * (pagination shifted under us, or a tag listed by several inboxes) keeps the
   * first occurrence.
   */
  observe(record: ApiObject): Emit | undefined {
    const id = this.#keyOf(record);
    if (id === undefined) {
      this.#withoutId += 1;
      return { kind: 'row', table: this.table, record };
    }
    if (this.#seen.has(id)) return undefined;
    this.#seen.add(id);
    this.#previous.delete(id);
    const hash = fingerprint(record);
    if (!this.fullRefresh && this.state.get(this.scope, id) === hash) return undefined;
    return { kind: 'row', table: this.table, record, changes: [{ scope: this.scope, key: id, value: hash }] };
  }

  /**
   * The stream's completeness once the listing is complete and committed: the
   * list's length (different ids, plus records without one) against the keys
   * the state holds now.
   */
  completeness(stream: StreamName): Emit {
    const expected = this.#seen.size + this.#withoutId;
    const live = committedCount(this.state, this.scope);
    return { kind: 'completeness', figure: completenessFigure(stream, expected, live, { rejected: this.#withoutId }) };
  }

  /** Tombstones for every committed id the complete listing did not hold. */
  *tombstones(): Generator<Emit> {
    for (const id of this.#previous) {
      yield {
        kind: 'row',
        table: this.table,
        record: { [this.#keyColumn]: id },
        deleted: true,
        changes: [{ scope: this.scope, key: id, value: null }],
      };
    }
  }
}
