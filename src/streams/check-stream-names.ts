import { STREAM_NAMES, type StreamName } from '../catalog/catalog.js';
import { didYouMean } from '../config/did-you-mean.js';
import { UsageError } from '../errors.js';

/** Checks stream names from the command line or config; an unknown one is a usage error listing the valid ones. */
export function checkStreamNames(names: readonly string[], what = '--streams'): StreamName[] {
  const valid = STREAM_NAMES as readonly string[];
  const unknown = names.filter((n) => !valid.includes(n));
  if (unknown.length > 0) {
    throw new UsageError(
      `${what}: unknown stream(s) ${unknown.map((name) => `${name}${didYouMean(name, STREAM_NAMES)}`).join(', ')}; valid: ${STREAM_NAMES.join(', ')}`,
    );
  }
  if (names.length === 0) throw new UsageError(`${what}: list at least one stream`);
  return [...new Set(names)] as StreamName[];
}
