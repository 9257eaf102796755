import type { ApiObject } from '../api/index.js';
import type { CatalogStream } from '../catalog/catalog.js';
import { describeEndpoint } from '../catalog/stream-definition.js';
import type { FullRefreshDefinition } from './full-refresh/full-refresh-stream.js';
import type { ProbeContext, ProbeResult, Stream } from './types.js';

async function count(items: AsyncIterable<ApiObject>, stopAfterFirst: boolean): Promise<number> {
  let n = 0;
  for await (const _ of items) {
    n += 1;
    if (stopAfterFirst) break;
  }
  return n;
}

/**
 * The generic probe of a full-refresh list: its endpoint read (the first inbox's,
 * for a list per inbox). A paginated list is read to its first item; an
 * unpaginated one comes whole in one request, so it is counted, in the unit the
 * state counts it in.
 */
async function readProbe(definition: FullRefreshDefinition, ctx: ProbeContext): Promise<string> {
  const { endpoint } = definition.read;
  let request: typeof endpoint & { params?: Record<string, string> } = endpoint;
  if (definition.read.kind === 'per-inbox') {
    const inboxId = ctx.inboxIds[0];
    if (!inboxId) return 'no inbox to probe';
    request = { ...endpoint, params: { inbox_id: inboxId } };
  }
  const n = await count(ctx.api.read(request), endpoint.paginator !== 'unpaginated');
  const note = 'note' in definition.check ? definition.check.note : undefined;
  const detail = endpoint.paginator === 'unpaginated' ? `${n} ${definition.state.unit}` : note;
  return `${describeEndpoint(endpoint)} answers${detail ? ` (${detail})` : ''}`;
}

/**
 * One cheap read proving the token may read what a stream needs (`helpdesk-sync
 * check`), as its declaration says: its endpoint read, nothing (a stream riding on
 * another's reads), or the probe its runnable part writes.
 */
export function probeStream(definition: CatalogStream, stream: Stream, ctx: ProbeContext): Promise<ProbeResult> {
  const { check } = definition;
  if (check.probe === 'none') return Promise.resolve(check.detail);
  if (check.probe === 'custom') {
    if (!stream.probe) throw new TypeError(`stream ${definition.name} declares a custom probe but has none`);
    return stream.probe(ctx);
  }
  if (definition.read.kind !== 'list' && definition.read.kind !== 'per-inbox')
    throw new TypeError(`stream ${definition.name}: only a full-refresh list has the generic probe`);
  return readProbe(definition as FullRefreshDefinition, ctx);
}
