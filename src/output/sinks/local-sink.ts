import { randomBytes } from 'node:crypto';
import type { Dirent } from 'node:fs';
import { copyFile, mkdir, open, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { SinkError } from '../../errors.js';
import { explainPathError } from '../../path-problem.js';
import { fileSha256 } from '../file-sha256.js';
import type { FaultPoint, HeadResult, PutMeta, Sink } from './sink.js';

export interface LocalSinkOptions {
  /** Directory that keys are relative to (destination path joined with the prefix). */
  root: string;
  /** The config key the root comes from, named in every error. @default 'destination.path' */
  setting?: string;
  faultPoint?: FaultPoint;
}

/** Temporary names end in `.tmp-<random>`: never matched by `*.jsonl.gz` or `*.json`, never listed. */
const TEMP_MARK = '.tmp-';

async function fsyncPath(path: string, flags: string): Promise<void> {
  const handle = await open(path, flags);
  try {
    await handle.sync();
  } catch (error) {
    // Some platforms cannot fsync a directory; the file itself was synced.
    if (flags !== 'r') throw error;
  } finally {
    await handle.close();
  }
}

/**
 * The embedded default sink: a local directory with the same key layout as S3.
 * A file is written under a temporary name, fsync'd, renamed into place and its
 * directory fsync'd, so a crash leaves either the whole file or no file.
 */
export function createLocalSink(options: LocalSinkOptions): Sink {
  const root = resolve(options.root);
  const where = `${root} (${options.setting ?? 'destination.path'})`;
  const fault = options.faultPoint ?? (() => undefined);

  function pathOf(key: string): string {
    const path = resolve(root, key);
    if (key.startsWith('/') || !path.startsWith(root + sep)) throw new SinkError(`key ${key} leaves ${root}`);
    return path;
  }

  const cannotRead = (key: string, error: unknown) =>
    new SinkError(`could not read ${key} under ${where}: ${explainPathError(error, pathOf(key))}`, { cause: error });

  async function place(key: string, label: string, write: (tmp: string) => Promise<void>): Promise<void> {
    const path = pathOf(key);
    const tmp = `${path}${TEMP_MARK}${randomBytes(4).toString('hex')}`;
    try {
      await mkdir(dirname(path), { recursive: true });
      await write(tmp);
      await fsyncPath(tmp, 'r+');
      await fault(label);
      await rename(tmp, path);
      await fsyncPath(dirname(path), 'r');
    } catch (error) {
      await rm(tmp, { force: true }).catch(() => undefined);
      // The real cause (read-only file system, a file in the way, no space left), not the errno
      // a recursive mkdir happens to return.
      throw new SinkError(`could not write ${key} under ${where}: ${explainPathError(error, dirname(path), true)}`, {
        cause: error,
      });
    }
  }

  async function* walk(dir: string): AsyncGenerator<string> {
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    for (const entry of entries) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) yield* walk(full);
      else if (entry.isFile() && !entry.name.includes(TEMP_MARK))
        yield full
          .slice(root.length + 1)
          .split(sep)
          .join('/');
    }
  }

  return {
    put: (key: string, localPath: string, meta: PutMeta) =>
      place(key, 'local-file-temp-written', async (tmp) => {
        await copyFile(localPath, tmp);
        const size = (await stat(tmp)).size;
        if (size !== meta.bytes) throw new SinkError(`copied ${size} bytes to ${tmp}, expected ${meta.bytes}`);
      }),
    putBytes: (key: string, body: Uint8Array | string) =>
      place(key, 'local-bytes-temp-written', (tmp) => writeFile(tmp, body, { mode: 0o600 })),
    async head(key: string): Promise<HeadResult | null> {
      try {
        const info = await stat(pathOf(key));
        return { bytes: info.size, sha256: await fileSha256(pathOf(key)) };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw cannotRead(key, error);
      }
    },
    async read(key: string): Promise<Readable> {
      const path = pathOf(key);
      // Opened before it is returned, so a missing file fails here and not mid-stream.
      const handle = await open(path, 'r').catch((error: unknown) => {
        throw cannotRead(key, error);
      });
      return handle.createReadStream();
    },
    async delete(key: string): Promise<void> {
      await rm(pathOf(key), { force: true });
    },
    async *list(prefix: string): AsyncIterable<string> {
      const slash = prefix.lastIndexOf('/');
      const start = slash < 0 ? root : join(root, prefix.slice(0, slash));
      for await (const key of walk(start)) if (key.startsWith(prefix)) yield key;
    },
    describe: () => `local directory ${root}`,
    localPath: pathOf,
  };
}
