/**
 * One error hierarchy for the whole connector, named by how a caller handles it.
 * Every error has a stable `code`; `cause` is always kept.
 * Messages never contain secrets: API errors redact in their own constructor
 * (src/api/errors/errors.ts), config errors only name paths.
 */
export abstract class HelpdeskSyncError extends Error {
  abstract readonly code: string;
  /** Process exit code when this error ends a command (docs/operations.md). */
  readonly exitCode: number = 1;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** One problem of a configuration, with the path where it was found. */
export interface ConfigIssue {
  path: string;
  message: string;
}

/** Invalid configuration or usage: lists every problem at once; exit 64. */
export class ConfigError extends HelpdeskSyncError {
  readonly code: string = 'CONFIG_INVALID';
  override readonly exitCode = 64;
  readonly issues: ConfigIssue[];

  constructor(source: string, issues: ConfigIssue[], options?: { cause?: unknown }) {
    const lines = issues.map((i) => `  - ${i.path ? `${i.path}: ` : ''}${i.message}`);
    super(`Invalid configuration in ${source}:\n${lines.join('\n')}`, options);
    this.issues = issues;
  }
}

/** The config file is not there: a command that needs one says where it looked (exit 64). */
export class ConfigNotFoundError extends ConfigError {
  override readonly code = 'CONFIG_NOT_FOUND';
  /** The path looked at, as given (relative to the working directory). */
  readonly path: string;

  constructor(path: string, options?: { cause?: unknown }) {
    super(path, [{ path: '', message: 'file not found' }], options);
    this.message = `no config file at ${path}`;
    this.path = path;
  }
}

/** Bad command-line usage (unknown stream name, conflicting flags); exit 64. */
export class UsageError extends HelpdeskSyncError {
  readonly code = 'USAGE';
  override readonly exitCode = 64;
}

/** A row or payload that does not match its schema. */
export class SchemaError extends HelpdeskSyncError {
  readonly code = 'SCHEMA_INVALID';
}

/** The state database is unusable (corrupt, newer schema than this binary, locked). */
export class StateError extends HelpdeskSyncError {
  readonly code: string = 'STATE_ERROR';
}

/** The state database file is damaged (SQLite says corrupt, or not a database at all). */
export class StateCorruptError extends StateError {
  override readonly code = 'STATE_CORRUPT';
}

/** The state's file or directory cannot be written or read: disk full, read-only, a file in the way, I/O error. */
export class StateStorageError extends StateError {
  override readonly code = 'STATE_STORAGE';
}

/** Another run holds the lock; exit 75 (EX_TEMPFAIL) so schedulers retry later. */
export class LockHeldError extends StateError {
  override readonly code = 'STATE_LOCKED';
  override readonly exitCode = 75;
}

/**
 * The state in object storage changed under this run (its ETag is not the one
 * this run last saw) or this run's lock was taken over: another run owns the
 * state now, so this one stops without writing it. Exit 1.
 */
export class StateConflictError extends StateError {
  override readonly code = 'STATE_CONFLICT';
}

/**
 * A flush of the state to object storage ended without an upload covering it
 * and without an error to report (a failure that threw nothing). The state in
 * the bucket may be behind, so the run must not go on as if it were saved.
 */
export class StateUploadNotRunError extends StateError {
  override readonly code = 'STATE_UPLOAD_NOT_RUN';
}

/** A sink could not store or read a file. */
export class SinkError extends HelpdeskSyncError {
  readonly code = 'SINK_ERROR';
}

/** An output session used after it was finished, aborted or failed at a checkpoint (a bug in the caller). */
export class OutputSessionError extends HelpdeskSyncError {
  readonly code = 'OUTPUT_SESSION_UNUSABLE';
}

/** An option handed to a component in code is out of its range (a bug in the caller; config is checked earlier). */
export class InvalidOptionError extends HelpdeskSyncError {
  readonly code = 'INVALID_OPTION';
}

/**
 * A load into a warehouse failed: a file of a manifest is missing or not the one the
 * manifest lists, or the warehouse refused a statement. The manifest's transaction
 * was rolled back, so nothing of it is loaded; the next load tries it again.
 */
export class LoadError extends HelpdeskSyncError {
  readonly code: string = 'LOAD_FAILED';
}

/** The driver of the load target is not installed (`@duckdb/node-api` is an optional dependency). */
export class LoadDriverMissingError extends LoadError {
  override readonly code = 'LOAD_DRIVER_MISSING';
}

/** The target is not a warehouse `load` can keep (a file that is not a DuckDB database, a directory). */
export class LoadTargetError extends LoadError {
  override readonly code = 'LOAD_TARGET_INVALID';
}

/** The destination holds no sync output at all (no manifest): nothing to load, and likely the wrong place. */
export class LoadNoOutputError extends LoadError {
  override readonly code = 'LOAD_NO_OUTPUT';
}

/**
 * The output to load comes from another pipeline (source, destination or privacy
 * policy) than the one the warehouse holds; refused before any row.
 */
export class LoadPipelineMismatchError extends LoadError {
  override readonly code = 'LOAD_PIPELINE_MISMATCH';
}

/** A warehouse table differs from the schema set in a way the schema contract does not allow; nothing was loaded. */
export class LoadSchemaError extends LoadError {
  override readonly code = 'LOAD_SCHEMA_MISMATCH';
}

/** `query` could not answer: the warehouse refused the SQL (its own message says why). */
export class QueryError extends HelpdeskSyncError {
  readonly code: string = 'QUERY_FAILED';
}

/** `query` found no warehouse at its target: nothing was loaded there yet (or the target is another). */
export class QueryNoWarehouseError extends QueryError {
  override readonly code = 'QUERY_NO_WAREHOUSE';
}

/** Exit codes of docs/operations.md, plus the signal conventions (128 + signal number). */
export const ExitCode = {
  ok: 0,
  failure: 1,
  planHasChanges: 2,
  /**
   * The run committed what it could, but some part failed (a stream: the summary's
   * `failed_streams`); the next run retries it. More causes may end a run so.
   */
  partial: 3,
  usage: 64,
  locked: 75,
  sigint: 130,
  sigterm: 143,
} as const;
