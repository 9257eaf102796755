import { canonicalJson } from '../canonical-json.js';
import { type Manifest, sourceAccount } from '../output/manifest.js';

/**
 * The pipeline a manifest comes from: the account its rows name (`_account`),
 * what it read (base URL and organization, from the manifest's `source`), where
 * the sync wrote (`location`), and the privacy policy its rows were written
 * under (the columns hashed or dropped, and a fingerprint of the hash key). A
 * target holds one pipeline per account: two manifests of one pipeline may
 * merge into the same tables; two of different pipelines of one account must
 * not, silently. `null` is "not recorded" (a manifest written before the source
 * was).
 */
export interface Pipeline {
  /** The `_account` of its rows. */
  account: string | null;
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

/**
 * The pipeline of a manifest; `account`: the `_account` of its rows (the
 * manifest's own `account`, else what the load knows of it: accountOfManifest).
 */
export function pipelineOf(manifest: Manifest, account: string | null = accountOfManifest(manifest)): Pipeline {
  return {
    account,
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

/**
 * The account of a manifest's rows: its `account`, else (a manifest written
 * before rows named their account) the account it was synced as (`configured`,
 * a name under `accounts:`), else the organization its source names (what a
 * single-account sync names its rows by); null when nothing says.
 */
export function accountOfManifest(manifest: Manifest, configured?: string): string | null {
  return manifest.account ?? configured ?? (manifest.source ? sourceAccount(manifest.source) : null);
}

const sourceOf = (p: Pipeline) => (p.base_url === null ? null : `${p.base_url} ${p.organization_slug ?? ''}`);

/** Whether two pipelines read the same helpdesk organization (both recorded, and equal). */
export function sameSource(a: Pipeline, b: Pipeline): boolean {
  const source = sourceOf(a);
  return source !== null && source === sourceOf(b);
}

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

/** One pipeline in words, for messages: account, source, output, privacy. */
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
  return `${p.account === null ? '' : `account ${p.account}; `}${source}; output ${p.destination}; ${privacy}`;
}

/** A statement of the pipeline bookkeeping, run in the manifest's transaction. */
export interface PipelineStatement {
  sql: string;
  params: unknown[];
}

const COLUMNS =
  'pipeline_id, source_base_url, organization_slug, organization_company, destination, privacy_policy, privacy_key, schema_set, first_run_id, last_run_id, account';

export const INSERT_PIPELINE = `INSERT INTO helpdesk_pipelines (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`;
export const UPDATE_PIPELINE =
  'UPDATE helpdesk_pipelines SET source_base_url = $2, organization_slug = $3, organization_company = $4, ' +
  'privacy_key = $5, schema_set = $6, last_run_id = $7, account = $8, destination = $9 WHERE pipeline_id = $1';

/**
 * The warehouse's record of the pipelines it holds, the same text for DuckDB and
 * PostgreSQL: one row per pipeline (one per account, unless output of several
 * was loaded on purpose), updated in each manifest's transaction. `account` was
 * added later: a record without one is of the account its source names.
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
  recorded_at timestamptz NOT NULL DEFAULT now(),
  account text
);`;

/** Every column: a table made before `account` was added lacks it until schema evolution adds it. */
export const SELECT_PIPELINES = 'SELECT * FROM helpdesk_pipelines ORDER BY pipeline_id';

/** The account of a record made before records named it: the one its source names (accountOfManifest). */
function recordedAccount(baseUrl: string | null, slug: string | null): string | null {
  return baseUrl === null ? null : sourceAccount({ base_url: baseUrl, organization: { slug, company: null } });
}

/** helpdesk_pipelines rows as the drivers return them (numbers may come back as bigint or text). */
export function pipelineRecords(rows: Array<Record<string, unknown>>): PipelineRecord[] {
  const text = (v: unknown) => (v === null || v === undefined ? null : String(v));
  return rows.map((r) => ({
    pipeline_id: Number(r.pipeline_id),
    account: text(r.account) ?? recordedAccount(text(r.source_base_url), text(r.organization_slug)),
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
