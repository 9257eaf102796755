import type { Manifest } from '../output/manifest.js';
import {
  accountOfManifest,
  describePipeline,
  INSERT_PIPELINE,
  type Pipeline,
  type PipelineRecord,
  type PipelineStatement,
  pipelineDifferences,
  pipelineOf,
  sameSource,
  UPDATE_PIPELINE,
} from './pipeline.js';

/** What the check of the pending manifests found: a statement per manifest, or the manifests of other pipelines. */
export type PipelinePlan =
  | { ok: true; statements: Map<string, PipelineStatement> }
  | { ok: false; held: PipelineRecord[]; others: Array<{ run_id: string; pipeline: Pipeline; differs: string[] }> };

/** How the pending manifests are checked. */
export interface PipelineCheck {
  /** Hold a pipeline the target does not hold beside those it holds, on purpose (`--mix-pipelines`). */
  mix: boolean;
  /**
   * The accounts the load runs by name (a config's `accounts:`): the first
   * pipeline of each may join a target that holds other accounts' pipelines.
   * @default none (a single-account load: one pipeline, as before)
   */
  accounts?: ReadonlySet<string>;
  /** The account of a manifest's rows. @default accountOfManifest */
  accountOf?: (manifest: Manifest) => string | null;
}

/** Unrecorded accounts (records of manifests that named no source) match any account. */
const sameAccount = (a: Pipeline, b: Pipeline) => a.account === null || b.account === null || a.account === b.account;

const trimmed = (destination: string) => destination.replace(/\/+$/, '');

/**
 * The same pipeline whose output moved into its account's folder: a
 * single-account config listed under `accounts:` with its organization's slug as
 * its name writes under `<prefix>/<name>/` (docs/output.md, "Moving a config
 * into accounts:"); nothing but the destination differs, and by exactly that folder.
 */
function movedInto(held: Pipeline, next: Pipeline): boolean {
  const differs = pipelineDifferences(held, next);
  return (
    next.account !== null &&
    differs.length === 1 &&
    differs[0] === 'destination' &&
    trimmed(next.destination) === `${trimmed(held.destination)}/${next.account}`
  );
}

/** A held pipeline takes what a manifest of it says now; returns the UPDATE of its record. */
function update(record: PipelineRecord, pipeline: Pipeline, runId: string): PipelineStatement {
  if (record.base_url === null && pipeline.base_url !== null) {
    record.base_url = pipeline.base_url;
    record.organization_slug = pipeline.organization_slug;
  }
  // A company may rename itself; its slug and base URL say it is the same source.
  if (pipeline.base_url !== null) record.organization_company = pipeline.organization_company;
  record.account ??= pipeline.account;
  record.destination = pipeline.destination;
  record.privacy_key ??= pipeline.privacy_key;
  record.schema_set = pipeline.schema_set;
  record.last_run_id = runId;
  const r = record;
  const params = [r.pipeline_id, r.base_url, r.organization_slug, r.organization_company, r.privacy_key];
  return { sql: UPDATE_PIPELINE, params: [...params, r.schema_set, r.last_run_id, r.account, r.destination] };
}

function insert(records: PipelineRecord[], pipeline: Pipeline, runId: string): PipelineStatement {
  const id = Math.max(0, ...records.map((r) => r.pipeline_id)) + 1;
  const r: PipelineRecord = { ...pipeline, pipeline_id: id, first_run_id: runId, last_run_id: runId };
  records.push(r);
  const params = [r.pipeline_id, r.base_url, r.organization_slug, r.organization_company, r.destination];
  return {
    sql: INSERT_PIPELINE,
    params: [...params, r.privacy_policy, r.privacy_key, r.schema_set, r.first_run_id, r.last_run_id, r.account],
  };
}

/**
 * Checks the pending manifests, in load order, against the pipelines a warehouse
 * holds, before any is loaded: one pipeline per account. A warehouse that holds
 * none takes the first manifest's. A manifest of a held pipeline (or of one
 * whose output moved into its account's folder) updates its record, filling in
 * what the record lacked. Another pipeline of an account the target holds (the
 * same account name, another source, destination or policy) is refused; so is
 * the first pipeline of another account, unless the load runs that account by
 * name (`accounts`) and no held pipeline of another name reads its organization
 * (the same organization under a new name would store its rows twice, under two
 * keys); `mix` holds any of them beside the others on purpose.
 */
export function planPipelines(
  held: readonly PipelineRecord[],
  pending: readonly Manifest[],
  check: PipelineCheck,
): PipelinePlan {
  const records = held.map((r) => ({ ...r }));
  const statements = new Map<string, PipelineStatement>();
  const others: Array<{ run_id: string; pipeline: Pipeline; differs: string[] }> = [];
  const accountOf = check.accountOf ?? ((m: Manifest) => accountOfManifest(m));
  for (const manifest of pending) {
    const pipeline = pipelineOf(manifest, accountOf(manifest));
    const mine = records.filter((r) => sameAccount(r, pipeline));
    const match =
      mine.find((r) => pipelineDifferences(r, pipeline).length === 0) ?? mine.find((r) => movedInto(r, pipeline));
    if (match) {
      statements.set(manifest.run_id, update(match, pipeline, manifest.run_id));
      continue;
    }
    // The organization of a held pipeline under another name is an account renamed, not a new one.
    const renamed = records.find((r) => !sameAccount(r, pipeline) && sameSource(r, pipeline));
    const newAccount =
      mine.length === 0 && !renamed && pipeline.account !== null && check.accounts?.has(pipeline.account);
    if (records.length > 0 && !check.mix && !newAccount) {
      const nearest = mine[0] ?? renamed ?? records[0]!;
      const account = sameAccount(nearest, pipeline) ? [] : ['account'];
      others.push({
        run_id: manifest.run_id,
        pipeline,
        differs: [...account, ...pipelineDifferences(nearest, pipeline)],
      });
      continue;
    }
    statements.set(manifest.run_id, insert(records, pipeline, manifest.run_id));
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
