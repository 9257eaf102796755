import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliDecompressSync } from 'node:zlib';
import { packageDir } from './package-dir.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PACKAGE = '@sparticuz/chromium';

/** A browser to launch: its executable and what its environment needs beside the test's. */
export interface ChromiumExecutable {
  executablePath: string;
  env: Record<string, string>;
  /** What it is, for messages. */
  origin: string;
}

/**
 * Another Chromium to use instead of the npm one (e.g. Debian's /usr/bin/chromium). The launch
 * flags are the same; its environment is the test's own.
 */
export const CHROMIUM_ENV = 'HELPDESK_SYNC_CHROMIUM';

/**
 * The headless Chromium of the devDependency @sparticuz/chromium (chrome-headless-shell built for
 * Linux x64, shipped brotli-compressed inside the package, so `npm ci` fetches it like any file).
 * Decompressed once into node_modules/.cache (about 200 MB, 2 s), with the NSS and expat libraries
 * the package ships (the only ones it needs beyond glibc, absent from a bare Debian) and its fonts,
 * so rendering does not depend on the machine's fonts. The package's own `executablePath()` is not
 * used: it writes a single /tmp/chromium, private to whoever wrote it first, and hands out a file
 * that another process may still be writing. Here a copy is made in a private folder and renamed
 * into place whole.
 */
export function npmChromium(): ChromiumExecutable {
  const given = process.env[CHROMIUM_ENV];
  if (given) {
    if (!existsSync(given)) throw new Error(`${CHROMIUM_ENV}=${given}: no such file`);
    return { executablePath: given, env: {}, origin: given };
  }
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(`${PACKAGE} ships Chromium for Linux x64 only; set ${CHROMIUM_ENV} to a Chromium on this machine`);
  }
  let found: { dir: string; version: string };
  try {
    found = packageDir(PACKAGE);
  } catch (error) {
    throw new Error(`${PACKAGE} is not installed (a devDependency: run npm ci)`, { cause: error });
  }
  const home = join(ROOT, 'node_modules', '.cache', `helpdesk-sync-chromium-${found.version}`);
  if (!existsSync(join(home, 'chromium'))) unpack(join(found.dir, 'bin'), home);
  return {
    executablePath: join(home, 'chromium'),
    env: { LD_LIBRARY_PATH: join(home, 'lib'), FONTCONFIG_PATH: home },
    origin: `${PACKAGE}@${found.version}`,
  };
}

function unpack(bin: string, home: string): void {
  mkdirSync(join(home, '..'), { recursive: true });
  const staging = mkdtempSync(`${home}.tmp-`);
  try {
    writeFileSync(join(staging, 'chromium'), brotliDecompressSync(readFileSync(join(bin, 'chromium.br'))), {
      mode: 0o755,
    });
    // The tarballs hold lib/ (NSS, NSPR, expat), and fonts/ (Open Sans) with a fonts.conf for Lambda's paths.
    for (const tarball of ['al2023.tar.br', 'fonts.tar.br']) {
      const untar = spawnSync('tar', ['-x', '-C', staging], {
        input: brotliDecompressSync(readFileSync(join(bin, tarball))),
      });
      if (untar.status !== 0) throw new Error(`tar could not unpack ${tarball}: ${untar.stderr}`);
    }
    writeFileSync(
      join(staging, 'fonts.conf'),
      `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n  <dir>${join(home, 'fonts')}</dir>\n  <cachedir>${join(home, 'fonts-cache')}</cachedir>\n</fontconfig>\n`,
    );
    renameSync(staging, home);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    // Another process unpacked it first: theirs is whole.
    if (existsSync(join(home, 'chromium'))) return;
    throw error;
  }
}
