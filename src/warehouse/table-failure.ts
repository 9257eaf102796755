import { LoadError } from '../errors.js';
import type { Manifest } from '../output/manifest.js';

/** An error's own message, or the thrown value as text. */
export const reasonOf = (error: unknown) => (error as Error)?.message ?? String(error);

/** A statement of one table's load failed: which table, which files, and the warehouse's own error as the cause. */
export class TableFailure extends Error {
  constructor(
    readonly table: string,
    readonly keys: readonly string[],
    cause: unknown,
  ) {
    super(reasonOf(cause), { cause });
    this.name = 'TableFailure';
  }
}

/** Runs one table's statements; a warehouse error comes out naming the table and its files. */
export async function forTable<T>(table: string, keys: readonly string[], work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof LoadError || error instanceof TableFailure) throw error;
    throw new TableFailure(table, keys, error);
  }
}

/** "manifest <run_id>", or for a transaction of several "manifests <first> … <last> (n)". */
export function manifestsNamed(manifests: readonly Manifest[]): string {
  const first = manifests[0]?.run_id;
  if (manifests.length === 1) return `manifest ${first}`;
  return `manifests ${first} … ${manifests.at(-1)?.run_id} (${manifests.length})`;
}

/** The error a refused transaction ends with: the engine, its manifests, the table and files where known, the reason. */
export function refusedManifests(engine: string, manifests: readonly Manifest[], error: unknown): LoadError {
  if (error instanceof LoadError) return error;
  const what = manifestsNamed(manifests);
  if (error instanceof TableFailure) {
    const files = `file${error.keys.length === 1 ? '' : 's'} ${error.keys.join(', ')}`;
    return new LoadError(`${engine} refused ${what}, table ${error.table} (${files}): ${error.message}`, {
      cause: error.cause,
    });
  }
  return new LoadError(`${engine} refused ${what}: ${reasonOf(error)}`, { cause: error });
}
