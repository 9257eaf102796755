import { CATALOG, type CatalogStream, STREAM_NAMES, type StreamName } from '../catalog/catalog.js';
import type { ReadKind } from '../catalog/stream-definition.js';
import { UsageError } from '../errors.js';
import { conversationScanStream } from './conversations/conversation-scan-stream.js';
import { type FullRefreshDefinition, fullRefreshStream } from './full-refresh/full-refresh-stream.js';
import { type ReportsDefinition, reportsStream } from './reports/reports-stream.js';
import type { StreamSettings } from './stream-settings.js';
import type { Stream } from './types.js';

type Declared<K extends ReadKind> = Extract<CatalogStream, { read: { kind: K } }>;

/**
 * How each kind of read becomes runnable streams, in the order a run executes
 * them: the lists read whole first (their inbox list also serves tags and
 * reports), then the lists read per inbox, the conversation scan (one
 * implementation, hand-written, serving every stream declared with its read),
 * then the reports. A new kind of read that is not given a builder here does not compile.
 */
const BUILDERS: { [K in ReadKind]: (declared: Declared<K>[], settings: StreamSettings) => Stream[] } = {
  list: (declared) => declared.map((d: FullRefreshDefinition) => fullRefreshStream(d)),
  'per-inbox': (declared) => declared.map((d: FullRefreshDefinition) => fullRefreshStream(d)),
  'conversation-scan': (declared, settings) =>
    declared.length === 0
      ? []
      : [conversationScanStream({ conversations: settings.conversations, rate: settings.rate })],
  'report-days': (declared, settings) =>
    declared.map((d: ReportsDefinition) => reportsStream(d, { reports: settings.reports, rate: settings.rate })),
};

function declaredWith<K extends ReadKind>(kind: K): Declared<K>[] {
  return CATALOG.filter((s): s is Declared<K> => s.read.kind === kind);
}

/** The declarations in the order a run executes their streams (see BUILDERS). */
export function declaredInRunOrder(): CatalogStream[] {
  return (Object.keys(BUILDERS) as ReadKind[]).flatMap((kind): CatalogStream[] => declaredWith(kind));
}

function servedBy(stream: Stream): readonly StreamName[] {
  return stream.serves ?? [stream.name];
}

/**
 * Every declared stream made runnable with this run's settings, in the order a
 * run executes them. Each declared name is served by exactly one stream, and a
 * full-refresh list is keyed by one column (its tombstones hold it alone): a
 * declaration breaking either fails here, at the first run of any test.
 */
export function buildStreams(settings: StreamSettings): Stream[] {
  const streams = (Object.keys(BUILDERS) as ReadKind[]).flatMap((kind) =>
    (BUILDERS[kind] as (declared: CatalogStream[], settings: StreamSettings) => Stream[])(declaredWith(kind), settings),
  );
  for (const name of STREAM_NAMES) {
    const serving = streams.filter((s) => servedBy(s).includes(name)).length;
    if (serving !== 1) throw new TypeError(`stream ${name} is served by ${serving} implementations, not one`);
  }
  for (const declared of [...declaredWith('list'), ...declaredWith('per-inbox')]) {
    if (declared.tables.length !== 1 || declared.tables[0].primaryKey.length !== 1)
      throw new TypeError(`stream ${declared.name}: a full-refresh list writes one table keyed by one column`);
  }
  return streams;
}

/** The stream that serves a name. */
export function streamFor(name: StreamName, streams: readonly Stream[]): Stream {
  const stream = streams.find((s) => servedBy(s).includes(name));
  if (!stream) throw new UsageError(`no stream serves ${name}`);
  return stream;
}

export interface PlannedStream {
  stream: Stream;
  /** The selected names this implementation serves in this run. */
  names: StreamName[];
}

/** The implementations to run for the selected names, each once, in run order. */
export function planStreams(selected: readonly StreamName[], streams: readonly Stream[]): PlannedStream[] {
  const plan: PlannedStream[] = [];
  for (const stream of streams) {
    const names = servedBy(stream).filter((n) => selected.includes(n));
    if (names.length > 0) plan.push({ stream, names });
  }
  for (const name of selected) streamFor(name, streams);
  return plan;
}
