import { z } from 'zod';
import { STREAM_NAMES } from '../catalog/catalog.js';
import { cronProblem } from './cron-problem.js';
import { parseLoadTarget } from './load-target.js';

/** Stream names accepted in `streams:` and `--streams`: one per declaration of src/catalog/streams/. */
export { STREAM_NAMES, type StreamName } from '../catalog/catalog.js';

const isoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'expected a date as YYYY-MM-DD')
  .refine(
    (s) => !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s),
    {
      message: 'not a real calendar date',
    },
  );

const positiveInt = (max?: number) => {
  const range = max === undefined ? 'from 1 and up' : `from 1 to ${max}`;
  const base = z.number().int('expected a whole number').min(1, `expected a number ${range}`);
  return max === undefined ? base : base.max(max, `expected a number ${range}`);
};

/**
 * The largest values `source.rate_limit` accepts, stated once: the config checks
 * them, and the API client checks the same bounds for options built in code.
 */
export const RATE_LIMIT_MAX = { requests_per_minute: 100_000, concurrency: 64, window_seconds: 86_400 } as const;

const rateLimitSchema = z.strictObject({
  /** Requests per minute for this process. @default 300 (the API's api.global limit, see Limits). */
  requests_per_minute: positiveInt(RATE_LIMIT_MAX.requests_per_minute).default(300),
  /** Requests in flight at once. @default 4 */
  concurrency: positiveInt(RATE_LIMIT_MAX.concurrency).default(4),
  /**
   * Length of the server's fixed rate window in seconds (API document, Limits: configurable per
   * deployment). @default learned from the server's X-RateLimit-Remaining and Retry-After
   */
  window_seconds: positiveInt(RATE_LIMIT_MAX.window_seconds).optional(),
});

/** API base URL, ending in the version prefix /v1 (API document, Versioning rule 1). */
const baseUrl = z.url({ message: 'expected an absolute URL such as https://api.example.com/v1' });

/** Personal access token. Never logged. */
const token = z
  .string()
  .min(1, 'must not be empty')
  .regex(/^\S+$/, 'must not contain whitespace or line breaks (a secret file with a trailing newline?)');

/** Settings every account of a config shares (the connection and its budget), with or without `accounts:`. */
const sharedSourceFields = {
  rate_limit: rateLimitSchema.prefault({}),
  /** `search` (POST /search, every conversation the token sees) or `mine` (GET /conversations/mine). */
  conversations_endpoint: z.enum(['search', 'mine']).default('search'),
  /** Allow plain http:// to a non-loopback host. @default false */
  allow_insecure_http: z.boolean().default(false),
  /** Milliseconds to wait for a connection. @default 10000 */
  connect_timeout_ms: positiveInt().default(10_000),
  /** Milliseconds to wait for the response headers. @default 60000 */
  response_timeout_ms: positiveInt().default(60_000),
  /**
   * The local address requests go out from: one of this machine's IP addresses. The API's
   * budget is per client IP (Limits: api.global), so each address is a budget of its own; a
   * shard of the accounts run from its own address paces to its own budget.
   * @default the system's choice
   * @example 10.0.0.12
   */
  local_address: z.union([z.ipv4(), z.ipv6()], { error: 'expected an IP address of this machine' }).optional(),
};

const sourceSchema = z.strictObject({ base_url: baseUrl, token, ...sharedSourceFields });

/** `source:` in a file that lists `accounts:`: the shared settings; base_url and token are each account's. */
const sharedSourceSchema = z.strictObject({
  base_url: baseUrl.optional(),
  token: token.optional(),
  ...sharedSourceFields,
});

const streamList = z.array(z.enum(STREAM_NAMES)).min(1, 'list at least one stream, or omit the key for all');

/**
 * An account's name becomes a path segment (its state, its output prefix), an
 * object-key prefix, a metric label and a column value (`_account`): a slug
 * only, never `.`, `..` or a separator.
 */
export const ACCOUNT_NAME = /^[A-Za-z0-9_-]{1,64}$/;

const accountSchema = z.strictObject({
  name: z
    .string()
    .regex(
      ACCOUNT_NAME,
      'expected 1 to 64 letters, digits, - or _ (it names a folder, a key prefix and a column value)',
    ),
  base_url: baseUrl,
  token,
  /** The streams this account syncs. @default the config's `streams:` (or all) */
  streams: streamList.optional(),
  /**
   * This account's share of the budget of the client IP and origin it shares with the other
   * accounts: while several wait, each gets requests in proportion to its share. @default 1
   */
  share: positiveInt(1000).default(1),
});

const fileLimits = {
  /** Rotate a file after this many rows. @default 100000 */
  max_records_per_file: positiveInt().default(100_000),
  /** Rotate a file after this many uncompressed bytes. @default 67108864 (64 MiB) */
  max_bytes_per_file: positiveInt().default(64 * 1024 * 1024),
  /** Key prefix under which every table lives. @default "" */
  prefix: z.string().default(''),
  /**
   * The format of data files: `jsonl` (gzip JSON lines) or `parquet` (typed columns,
   * zstd; needs the optional DuckDB engine). Rejected records stay gzip JSONL. @default "jsonl"
   */
  format: z.enum(['jsonl', 'parquet']).default('jsonl'),
};

const localDestination = z.strictObject({
  type: z.literal('local'),
  /** Output directory. @default ./out */
  path: z.string().min(1).default('./out'),
  ...fileLimits,
});

const s3Destination = z.strictObject({
  type: z.literal('s3'),
  bucket: z.string().min(3, 'expected an S3 bucket name'),
  region: z.string().min(1).default('us-east-1'),
  /** S3-compatible endpoint (MinIO, s3rver, R2...). */
  endpoint: z.url().optional(),
  force_path_style: z.boolean().default(false),
  /** `when_required` for S3-compatible servers that reject the newer default checksums. */
  checksum: z.enum(['when_supported', 'when_required']).default('when_supported'),
  /** Files are written in `<state name>.spool/` under this directory before upload. @default beside the state file */
  spool_path: z.string().optional(),
  ...fileLimits,
});

const destinationSchema = z.discriminatedUnion('type', [localDestination, s3Destination], {
  error: 'expected type "local" or "s3"',
});

/** S3 client settings of a state in object storage, when they differ from the destination's. */
const stateS3Schema = z.strictObject({
  region: z.string().min(1).default('us-east-1'),
  /** S3-compatible endpoint (MinIO, R2...). */
  endpoint: z.url().optional(),
  force_path_style: z.boolean().default(false),
  checksum: z.enum(['when_supported', 'when_required']).default('when_supported'),
});

const stateSchema = z.strictObject({
  /** Local SQLite file, or `s3://bucket/key` for a state kept in object storage. */
  path: z.string().min(1).default('./.helpdesk-sync/state.sqlite'),
  /** S3 settings for an `s3://` state path. @default the S3 destination's settings */
  s3: stateS3Schema.optional(),
  /**
   * An `s3://` state only: change files kept after its base before an upload
   * writes a new base (docs/state.md › State in object storage). Fewer:
   * a run that starts without a copy reads fewer objects; more: whole uploads
   * are rarer.
   * @default 256
   */
  max_change_files: positiveInt(100_000).default(256),
  /**
   * An `s3://` state only: a directory (a volume) where a run keeps its copy of
   * the state for the next run, in any process: that run downloads nothing while
   * no other run wrote the state (docs/state.md › State in object storage).
   * @default none: the copy is kept for the next run of the same process (the daemon)
   */
  cache_dir: z.string().min(1).optional(),
});

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** A cron expression node-cron takes; a refused one is said by field (cron-problem.ts). */
const cron = z.string().superRefine((text, ctx) => {
  const problem = cronProblem(text);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

const scheduleSchema = z.strictObject({
  /** Cron expression for `sync` in the daemon, e.g. "*\/15 * * * *". */
  sync: cron.optional(),
  /** Cron expression for `apply --auto-approve` in the daemon. Needs push files. */
  push: cron.optional(),
  /** IANA timezone the cron expressions are read in. @default UTC */
  timezone: z.string().refine(isTimeZone, { message: 'not an IANA time zone (e.g. Europe/Berlin)' }).default('UTC'),
});

/** `host:port`, host a name, an IPv4 address or a bracketed IPv6 address; port 0 picks a free one. */
const listenAddress = z
  .string()
  .regex(/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/, 'expected host:port, e.g. 0.0.0.0:9464')
  .refine((s) => Number(s.slice(s.lastIndexOf(':') + 1)) <= 65535, { message: 'port must be 0-65535' });

const metricsSchema = z.strictObject({
  /** Where the daemon serves the status page at /, /healthz and /metrics (Prometheus), e.g. "0.0.0.0:9464". @default off */
  listen: listenAddress.optional(),
  /** Failed runs in a row after which /healthz answers 503. @default 3 */
  unhealthy_after_failures: positiveInt().default(3),
});

const pushSchema = z.strictObject({
  holidays: z.string().min(1).optional(),
  business_hours: z.string().min(1).optional(),
  /**
   * With `accounts:`: the accounts `plan` and `apply` push the files to. @default every account
   * @example ["acme", "globex"]
   */
  accounts: z.array(z.string().min(1)).min(1, 'list at least one account, or omit the key for every one').optional(),
});

const reportsSchema = z.strictObject({
  /** First day pulled on an empty state. @default 30 days before today */
  start_date: isoDate.optional(),
  /** Days re-pulled on every run, since recent days still change. @default 7 */
  lookback_days: z.number().int().min(0).max(366).default(7),
});

const fieldName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected a field name (letters, digits, underscore)');

const conversationsSchema = z.strictObject({
  /**
   * List-item fields that move when someone merely opens a conversation; a change
   * in them alone rewrites the conversation row but never costs a thread request.
   * @default ["viewed_at", "viewer_id"]
   */
  view_only_fields: z.array(fieldName).default(['viewed_at', 'viewer_id']),
  /**
   * Fields holding signed URLs whose query string changes on every read; only the
   * URL before `?` counts as a change (in contacts). @default ["avatar"]
   */
  signed_url_fields: z.array(fieldName).default(['avatar']),
  /**
   * How a sync on an empty state reads the conversations: `full` (the whole list,
   * oldest first) or `recent_first` (the last `recent_days` days first, committed,
   * then a resumable backfill of the rest). @default "full"
   */
  first_sync: z.enum(['full', 'recent_first']).default('full'),
  /** recent_first: days of conversations (by created_at) read and committed first. @default 30 */
  recent_days: positiveInt(3650).default(30),
  /**
   * recent_first: new list pages (100 conversations each) the backfill reads per run (plus
   * one page of overlap when it resumes), so each scheduled run also refreshes the recent
   * window. @default no limit (to the end)
   */
  backfill_pages_per_run: positiveInt().optional(),
});

const loadSchema = z.strictObject({
  /**
   * Where `load`, `sync --load` and the daemon (after each sync) load the output:
   * `duckdb:<file>` (or a path ending in `.duckdb` or `.db`) or a `postgres://` connection string (keep its password in the
   * environment: `${HELPDESK_LOAD_URL}`). @default a DuckDB file beside the state, named after it
   * (`.helpdesk-sync/state.duckdb` for the default state)
   */
  into: z
    .string()
    .superRefine((text, ctx) => {
      const parsed = parseLoadTarget(text);
      if ('problem' in parsed) ctx.addIssue({ code: 'custom', message: parsed.problem });
    })
    .optional(),
  /**
   * What `load` does when a warehouse table differs from the schema set it loads:
   * `evolve` adds missing columns and converts a changed type when every stored
   * value converts losslessly, in the manifest's own transaction; `freeze` stops
   * on any difference. Either way anything it cannot do stops before any row, with
   * every difference in one message. @default "evolve"
   */
  schema_contract: z.enum(['evolve', 'freeze']).default('evolve'),
  /**
   * History mode: keep `<table>_history` (every version with valid_from, valid_to,
   * is_current) in the same transaction as each manifest, for every table (`true`)
   * or the tables listed. @default false
   * @example ["conversations", "contacts"]
   */
  history: z.union([z.boolean(), z.array(z.string().min(1))]).default(false),
  /**
   * Keep `<table>_raw` beside each table: every version of every row as it was
   * loaded, tombstones included, appended by every load and never emptied. Off, a
   * load merges each manifest straight into the tables (and `<table>_history`).
   * Unset, a target that already has `_raw` tables (loaded before direct load)
   * keeps being fed, and the load says so. @default false (unset: true where the target has `_raw` tables)
   */
  keep_raw: z.boolean().optional(),
});

/**
 * Column privacy, per output table and column: `hash` (keyed HMAC-SHA-256, key in
 * HELPDESK_HASH_KEY) or `drop`; `_extra: keep | drop` at the top (every table) or
 * in one table. Only the shape is checked here: the config layer does not know the
 * output tables, so tables, columns and the key are checked by the output layer's
 * rule (src/output/privacy/privacy-issues.ts), reported with the other problems.
 * @example { contacts: { email: "hash" }, messages: { html_body: "drop" }, _extra: "drop" }
 */
const privacySchema = z.record(
  z.string(),
  z.union([z.string(), z.record(z.string(), z.string())], {
    error: 'expected keep or drop (for _extra), or a table: { column: hash | drop }',
  }),
);

const configFields = {
  streams: streamList.optional(),
  reports: reportsSchema.prefault({}),
  conversations: conversationsSchema.prefault({}),
  destination: destinationSchema.prefault({ type: 'local' }),
  state: stateSchema.prefault({}),
  schedule: scheduleSchema.prefault({}),
  push: pushSchema.prefault({}),
  metrics: metricsSchema.prefault({}),
  /** Loading into a warehouse; when present, the daemon loads after each successful sync. */
  load: loadSchema.optional(),
  privacy: privacySchema.default({}),
  /** Bounds on one sync run. */
  run: z
    .strictObject({
      /**
       * A sync still running this many seconds after it started stops as on SIGTERM: what is
       * complete is committed, the summary says `interrupted` with a `DEADLINE_REACHED` warning,
       * and the exit code is 0; the next run resumes. A run that keeps meeting 429s waits for the
       * server until then. @default none (a run goes on until it is done)
       * @example 3000
       */
      deadline_seconds: positiveInt(7 * 86_400).optional(),
    })
    .prefault({}),
  /** How often a sync commits what it wrote (smaller = less re-done after a crash, more files). */
  checkpoint: z
    .strictObject({
      /** Commit after this many rows. @default 5000 */
      every_rows: positiveInt().default(5000),
      /** Commit after this many seconds. @default 15 */
      every_seconds: positiveInt().default(15),
    })
    .prefault({}),
  log: z
    .strictObject({ level: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal']).default('info') })
    .prefault({}),
};

/** One account's whole configuration: what every job runs with (a file without `accounts:` is one). */
export const configSchema = z.strictObject({ source: sourceSchema, ...configFields });

/**
 * A config file as written: one account in `source:`, or several in `accounts:`
 * (docs/configuration.md, "Several accounts"), each resolved into its own Config
 * by src/config/accounts.ts.
 */
export const configFileSchema = z.strictObject({
  source: sharedSourceSchema,
  accounts: z.array(accountSchema).min(1, 'list at least one account, or omit the key for one in source:').optional(),
  ...configFields,
});

/** The account a resolved config runs for, when its file lists `accounts:`. */
export interface AccountOf {
  name: string;
  share: number;
}

export type Config = z.infer<typeof configSchema> & { account?: AccountOf };
export type ConfigFile = z.infer<typeof configFileSchema>;
export type AccountConfig = z.infer<typeof accountSchema>;
export type SourceConfig = Config['source'];
export type DestinationConfig = Config['destination'];
