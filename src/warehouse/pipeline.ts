import { canonicalJson } from '../canonical-json.js';
import type { Manifest } from '../output/manifest.js';

/**
 * The pipeline a manifest comes from: what it read (base URL and organization,
 * from the manifest's `source`), where the sync wrote (`location`), and the
 * privacy policy its rows were written under (the columns hashed or dropped,
 * and a fingerprint of the hash key). Two manifests of one pipeline may merge
 * into the same tables; two of different pipelines must not, silently.
 * `null` is "not recorded" (a manifest written before the source was).
 */
export interface Pipeline {
  base_url: string | null;
  organization_slug: string | null;
  organization_company: string | null;
  destination: string;
  privacy_policy: string;
  privacy_key: string | null;
  /** The schema set of the latest manifest loaded (not part of the identity: an upgrade changes it). */
  schema_set: string;
}

/** A pipeline as the warehouse records it (`helpdesk_pipelines`). */
export interface PipelineRecord extends Pipeline {
  pipeline_id: number;
  first_run_id: string;
  last_run_id: string;
}

export function pipelineOf(manifest: Manifest): Pipeline {
  return {
    base_url: manifest.source?.base_url ?? null,
    organization_slug: manifest.source?.organization.slug ?? null,
    organization_company: manifest.source?.organization.company ?? null,
    destination: manifest.location,
    privacy_policy:
      manifest.privacy && Object.keys(manifest.privacy).length > 0 ? canonicalJson(manifest.privacy) : 'none',
    privacy_key: manifest.privacy_key ?? null,
    schema_set: manifest.schema_version,
  };
}

const sourceOf = (p: Pipeline) => (p.base_url === null ? null : `${p.base_url} ${p.organization_slug ?? ''}`);

/** What differs between two pipelines, in words; empty when they are the same pipeline. Unrecorded parts match anything. */
export function pipelineDifferences(held: Pipeline, other: Pipeline): string[] {
  const out: string[] = [];
  const heldSource = sourceOf(held);
  const otherSource = sourceOf(other);
  if (heldSource !== null && otherSource !== null && heldSource !== otherSource) out.push('source');
  if (held.destination !== other.destination) out.push('destination');
  if (held.privacy_policy !== other.privacy_policy) out.push('privacy policy');
  else if (held.privacy_key !== null && other.privacy_key !== null && held.privacy_key !== other.privacy_key) {
    out.push('privacy hash key');
  }
  return out;
}

/** One pipeline in words, for messages: source, output, privacy. */
export function describePipeline(p: Pipeline): string {
  const org = p.organization_slug ?? p.organization_company;
  const source =
    p.base_url === null
      ? 'source not recorded'
      : `source ${p.base_url}${org ? ` (organization ${org}${p.organization_company && p.organization_slug ? `, "${p.organization_company}"` : ''})` : ''}`;
  const privacy =
    p.privacy_policy === 'none'
      ? 'no privacy policy'
      : `privacy ${p.privacy_policy}${p.privacy_key ? ` (key ${p.privacy_key})` : ''}`;
  return `${source}; output ${p.destination}; ${privacy}`;
}

/** A statement of the pipeline bookkeeping, run in the manifest's transaction. */
export interface PipelineStatement {
  sql: string;
  params: unknown[];
}

const COLUMNS =
  'pipeline_id, source_base_url, organization_slug, organization_company, destination, privacy_policy, privacy_key, schema_set, first_run_id, last_run_id';

const INSERT = `INSERT INTO helpdesk_pipelines (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`;
const UPDATE =
  'UPDATE helpdesk_pipelines SET source_base_url = $2, organization_slug = $3, organization_company = $4, ' +
  'privacy_key = $5, schema_set = $6, last_run_id = $7 WHERE pipeline_id = $1';

/**
 * The warehouse's record of the pipelines it holds, the same text for DuckDB and
 * PostgreSQL: one row per pipeline (one, unless output of several was loaded on
 * purpose), updated in each manifest's transaction.
 */
export const PIPELINES_DDL = `-- helpdesk_pipelines: the pipelines (source, output, privacy policy) whose manifests this warehouse holds
CREATE TABLE IF NOT EXISTS helpdesk_pipelines (
  pipeline_id integer PRIMARY KEY,
  source_base_url text,
  organization_slug text,
  organization_company text,
  destination text NOT NULL,
  privacy_policy text NOT NULL,
  privacy_key text,
  schema_set text NOT NULL,
  first_run_id text NOT NULL,
  last_run_id text NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT now()
);`;

export const SELECT_PIPELINES = `SELECT ${COLUMNS} FROM helpdesk_pipelines ORDER BY pipeline_id`;

/** What the check of the pending manifests found: a statement per manifest, or the manifests of other pipelines. */
export type PipelinePlan =
  | { ok: true; statements: Map<string, PipelineStatement> }
  | { ok: false; held: PipelineRecord[]; others: Array<{ run_id: string; pipeline: Pipeline; differs: string[] }> };

/**
 * Checks the pending manifests, in load order, against the pipelines a warehouse
 * holds, before any is loaded. A warehouse that holds none takes the first
 * manifest's. A manifest of a pipeline not held is refused, unless `mix` says to
 * hold it too. A manifest of a held pipeline fills in what the record lacked
 * (the source, for a record made from manifests that did not name it).
 */
export function planPipelines(
  held: readonly PipelineRecord[],
  pending: readonly Manifest[],
  mix: boolean,
): PipelinePlan {
  const records = held.map((r) => ({ ...r }));
  const statements = new Map<string, PipelineStatement>();
  const others: Array<{ run_id: string; pipeline: Pipeline; differs: string[] }> = [];
  for (const manifest of pending) {
    const pipeline = pipelineOf(manifest);
    const match = records.find((r) => pipelineDifferences(r, pipeline).length === 0);
    if (match) {
      if (match.base_url === null && pipeline.base_url !== null) {
        match.base_url = pipeline.base_url;
        match.organization_slug = pipeline.organization_slug;
      }
      // A company may rename itself; its slug and base URL say it is the same source.
      if (pipeline.base_url !== null) match.organization_company = pipeline.organization_company;
      match.privacy_key ??= pipeline.privacy_key;
      match.schema_set = pipeline.schema_set;
      match.last_run_id = manifest.run_id;
      statements.set(manifest.run_id, {
        sql: UPDATE,
        params: [
          match.pipeline_id,
          match.base_url,
          match.organization_slug,
          match.organization_company,
          match.privacy_key,
          match.schema_set,
          match.last_run_id,
        ],
      });
      continue;
    }
    if (records.length > 0 && !mix) {
      others.push({ run_id: manifest.run_id, pipeline, differs: pipelineDifferences(records[0]!, pipeline) });
      continue;
    }
    const record: PipelineRecord = {
      ...pipeline,
      pipeline_id: Math.max(0, ...records.map((r) => r.pipeline_id)) + 1,
      first_run_id: manifest.run_id,
      last_run_id: manifest.run_id,
    };
    records.push(record);
    statements.set(manifest.run_id, {
      sql: INSERT,
      params: [
        record.pipeline_id,
        record.base_url,
        record.organization_slug,
        record.organization_company,
        record.destination,
        record.privacy_policy,
        record.privacy_key,
        record.schema_set,
        record.first_run_id,
        record.last_run_id,
      ],
    });
  }
  return others.length > 0 ? { ok: false, held: records, others } : { ok: true, statements };
}

/** The refusal's text: what the warehouse holds, what the output is, what differs, and the two ways on. */
export function describeRefusal(target: string, plan: Extract<PipelinePlan, { ok: false }>): string {
  const first = plan.others[0]!;
  const heldLines = plan.held.map((r) => `  ${target} holds: ${describePipeline(r)}`);
  const more = plan.others.length > 1 ? ` (and ${plan.others.length - 1} manifest(s) after it)` : '';
  return [
    `refused before loading any row: manifest ${first.run_id}${more} comes from another pipeline (${first.differs.join(', ')} differ)`,
    ...heldLines,
    `  manifest ${first.run_id}: ${describePipeline(first.pipeline)}`,
    '  load it into another target (--into), or pass --mix-pipelines to hold both pipelines in these tables on purpose',
  ].join('\n');
}

/** helpdesk_pipelines rows as the drivers return them (numbers may come back as bigint or text). */
export function pipelineRecords(rows: Array<Record<string, unknown>>): PipelineRecord[] {
  const text = (v: unknown) => (v === null || v === undefined ? null : String(v));
  return rows.map((r) => ({
    pipeline_id: Number(r.pipeline_id),
    base_url: text(r.source_base_url),
    organization_slug: text(r.organization_slug),
    organization_company: text(r.organization_company),
    destination: String(r.destination),
    privacy_policy: String(r.privacy_policy),
    privacy_key: text(r.privacy_key),
    schema_set: String(r.schema_set),
    first_run_id: String(r.first_run_id),
    last_run_id: String(r.last_run_id),
  }));
}
