import type { Config } from './schema.js';

/** Where `state.path` points: a local SQLite file or an object in S3 (or an S3-compatible store). */
export type StateLocation = { kind: 'local'; path: string } | { kind: 's3'; bucket: string; key: string; url: string };

/** S3 client settings of the state object: `state.s3`, else the S3 destination's, else the SDK defaults. */
export interface StateS3Settings {
  region: string;
  endpoint?: string;
  forcePathStyle: boolean;
  checksum: 'when_supported' | 'when_required';
}

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** Problems of an `s3://bucket/key` state path, as config messages; [] when it is fine or not a URL. */
export function statePathProblems(path: string): string[] {
  if (!SCHEME.test(path)) return [];
  if (!path.toLowerCase().startsWith('s3://')) return ['must be a local file path or s3://bucket/key'];
  const rest = path.slice('s3://'.length);
  const slash = rest.indexOf('/');
  const bucket = slash < 0 ? rest : rest.slice(0, slash);
  const key = slash < 0 ? '' : rest.slice(slash + 1);
  const problems: string[] = [];
  if (!BUCKET.test(bucket)) problems.push(`"${bucket}" is not an S3 bucket name (s3://bucket/key)`);
  if (key === '' || key.endsWith('/'))
    problems.push('needs an object key after the bucket, e.g. s3://bucket/helpdesk/state.sqlite');
  return problems;
}

export function stateLocation(path: string): StateLocation {
  if (!path.toLowerCase().startsWith('s3://')) return { kind: 'local', path };
  const rest = path.slice('s3://'.length);
  const slash = rest.indexOf('/');
  return { kind: 's3', bucket: rest.slice(0, slash), key: rest.slice(slash + 1), url: path };
}

/**
 * What the state layer and the run lock need of the config, and nothing more
 * (built once, by a command's composition root, with stateSettingsOf).
 */
export interface StateSettings {
  /** Local SQLite file, or `s3://bucket/key`. */
  path: string;
  /** The S3 client settings of an `s3://` state. */
  s3: StateS3Settings;
  /** An `s3://` state: change files kept after its base before a new base is written. */
  maxChangeFiles: number;
  /** An `s3://` state: where a run keeps its copy for the next run, in any process. */
  cacheDir?: string;
}

/** The state's slice of the config. */
export function stateSettingsOf(config: Pick<Config, 'state' | 'destination'>): StateSettings {
  return {
    path: config.state.path,
    s3: stateS3Settings(config),
    maxChangeFiles: config.state.max_change_files,
    ...(config.state.cache_dir === undefined ? {} : { cacheDir: config.state.cache_dir }),
  };
}

export function stateS3Settings(config: Pick<Config, 'state' | 'destination'>): StateS3Settings {
  const own = config.state.s3;
  if (own) {
    return {
      region: own.region,
      endpoint: own.endpoint,
      forcePathStyle: own.force_path_style,
      checksum: own.checksum,
    };
  }
  const d = config.destination;
  if (d.type === 's3') {
    return { region: d.region, endpoint: d.endpoint, forcePathStyle: d.force_path_style, checksum: d.checksum };
  }
  return { region: 'us-east-1', forcePathStyle: false, checksum: 'when_supported' };
}
