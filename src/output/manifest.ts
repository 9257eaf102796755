import type { PrivacySummary } from './privacy/privacy-policy.js';
import { SCHEMA_SET_VERSION } from './rows/schema-version.js';
import { TABLE_NAMES } from './tables.js';

/** One file as a manifest lists it; `key` is relative to the destination prefix. */
export interface ManifestFile {
  key: string;
  table: string;
  rows: number;
  bytes: number;
  sha256: string;
  schema_version: string;
  run_id: string;
}

/**
 * The source a run read (one `GET /me` per run, API document "Other operations"):
 * the base URL and the organization behind the token. A loader compares it with
 * what a warehouse already holds, so two helpdesks never merge into one table.
 */
export interface ManifestSource {
  base_url: string;
  organization: { slug: string | null; company: string | null };
}

/**
 * The account a single-account run's rows name (`_account`, docs/output.md
 * "Metadata columns"): the organization slug `GET /me` answers, else, for an
 * answer without one, the host of the base URL. A config with `accounts:` names
 * each account itself.
 */
export function sourceAccount(source: ManifestSource): string {
  return source.organization.slug ?? new URL(source.base_url).host;
}

export interface Manifest {
  manifest_version: 1;
  run_id: string;
  started_at: string;
  finished_at: string;
  /** Version of the whole set of table schemas; each file also carries its table's version. */
  schema_version: string;
  /** Where the keys live, e.g. `s3://bucket/prefix/` or `local directory /out`. */
  location: string;
  files: ManifestFile[];
  rejected_files: ManifestFile[];
  /** Rows per table over `files` (every table named, 0 when it has none). */
  tables: Record<string, number>;
  /** Rejected rows per table over `rejected_files`. */
  rejected: Record<string, number>;
  /** Per table, the columns the run's privacy policy hashed or dropped (`_extra: drop` too); absent without a policy. */
  privacy?: PrivacySummary;
  /** A fingerprint of the key the policy hashed with (never the key); absent when nothing is hashed. */
  privacy_key?: string;
  /** What the run read; absent in manifests written before it was recorded. */
  source?: ManifestSource;
  /** The `_account` of every row the run wrote; absent in manifests written before rows named their account. */
  account?: string;
  summary?: unknown;
}

/** What the state database knows of a committed file (a structural subset of its row). */
export interface ListedFile {
  key: string;
  run_id: string;
  table_name: string;
  kind: 'data' | 'rejected';
  rows: number;
  bytes: number;
  sha256: string;
  schema_version: string;
}

function entry(f: ListedFile): ManifestFile {
  return {
    key: f.key,
    table: f.table_name,
    rows: f.rows,
    bytes: f.bytes,
    sha256: f.sha256,
    schema_version: f.schema_version,
    run_id: f.run_id,
  };
}

function rowsPerTable(files: ManifestFile[]): Record<string, number> {
  const out: Record<string, number> = Object.fromEntries(TABLE_NAMES.map((t) => [t, 0]));
  for (const f of files) out[f.table] = (out[f.table] ?? 0) + f.rows;
  return out;
}

/**
 * The run's manifest, `_manifests/<run_id>.json` (docs/output.md): written last, it
 * lists every file committed by this run and every file an earlier crashed run
 * committed but no manifest listed (their `run_id` says which run wrote them).
 */
export function buildManifest(input: {
  runId: string;
  startedAt: string;
  finishedAt: string;
  location: string;
  files: readonly ListedFile[];
  summary?: unknown;
  /** The schema set version under the run's privacy policy. @default the version without a policy */
  schemaVersion?: string;
  privacy?: PrivacySummary;
  privacyKey?: string;
  source?: ManifestSource;
  account?: string;
}): Manifest {
  const files = input.files.filter((f) => f.kind === 'data').map(entry);
  const rejected = input.files.filter((f) => f.kind === 'rejected').map(entry);
  const manifest: Manifest = {
    manifest_version: 1,
    run_id: input.runId,
    started_at: input.startedAt,
    finished_at: input.finishedAt,
    schema_version: input.schemaVersion ?? SCHEMA_SET_VERSION,
    location: input.location,
    files,
    rejected_files: rejected,
    tables: rowsPerTable(files),
    rejected: rowsPerTable(rejected),
  };
  if (input.privacy !== undefined && Object.keys(input.privacy).length > 0) manifest.privacy = input.privacy;
  if (input.privacyKey !== undefined) manifest.privacy_key = input.privacyKey;
  if (input.source !== undefined) manifest.source = input.source;
  if (input.account !== undefined) manifest.account = input.account;
  if (input.summary !== undefined) manifest.summary = input.summary;
  return manifest;
}
