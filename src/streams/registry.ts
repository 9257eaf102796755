import { STREAM_NAMES, type StreamName } from '../config/schema.js';
import { UsageError } from '../errors.js';
import { conversationScanStream } from './conversations/conversation-scan-stream.js';
import { businessHoursStream, holidaysStream, inboxesStream, usersStream } from './dimension-streams.js';
import { reportsStream } from './reports-stream.js';
import { tagsStream } from './tags-stream.js';
import type { Stream } from './types.js';

/**
 * Every stream implementation, in the order a run executes them: the small
 * dimension lists first (their inbox list also serves tags and reports), then
 * the conversation scan, then the reports. One implementation may serve several
 * names (the conversation scan serves conversations, contacts and messages).
 */
export const STREAMS: readonly Stream[] = [
  inboxesStream,
  usersStream,
  businessHoursStream,
  holidaysStream,
  tagsStream,
  conversationScanStream,
  reportsStream,
];

function servedBy(stream: Stream): readonly StreamName[] {
  return stream.serves ?? [stream.name];
}

/** Checks stream names from the command line or config; an unknown one is a usage error listing the valid ones. */
export function checkStreamNames(names: readonly string[], what = '--streams'): StreamName[] {
  const valid = STREAM_NAMES as readonly string[];
  const unknown = names.filter((n) => !valid.includes(n));
  if (unknown.length > 0) {
    throw new UsageError(`${what}: unknown stream(s) ${unknown.join(', ')}; valid: ${STREAM_NAMES.join(', ')}`);
  }
  if (names.length === 0) throw new UsageError(`${what}: list at least one stream`);
  return [...new Set(names)] as StreamName[];
}

/** The stream that serves a name. */
export function streamFor(name: StreamName, streams: readonly Stream[] = STREAMS): Stream {
  const stream = streams.find((s) => servedBy(s).includes(name));
  if (!stream) throw new UsageError(`no stream serves ${name}`);
  return stream;
}

export interface PlannedStream {
  stream: Stream;
  /** The selected names this implementation serves in this run. */
  names: StreamName[];
}

/** The implementations to run for the selected names, each once, in registry order. */
export function planStreams(selected: readonly StreamName[], streams: readonly Stream[] = STREAMS): PlannedStream[] {
  const plan: PlannedStream[] = [];
  for (const stream of streams) {
    const names = servedBy(stream).filter((n) => selected.includes(n));
    if (names.length > 0) plan.push({ stream, names });
  }
  for (const name of selected) streamFor(name, streams);
  return plan;
}
