/**
 * A `load` process for the crash and lock tests: the real load job, with the
 * config file HARNESS_CONFIG, into HARNESS_INTO. With CRASH_AT=<label>:<n> it
 * SIGKILLs itself the n-th time it reaches that step (load-locked, manifest-read,
 * file-staged, table-merged, before-commit, manifest-loaded). With HOLD_AT=<label>
 * it writes HOLD_FILE when it first reaches the step and waits there, holding the
 * target's lock, until RELEASE_FILE exists. TRANSACTION_ROWS, when set, is the
 * load's transaction budget (1: one manifest per transaction). Prints the summary as JSON.
 *
 *   HARNESS_CONFIG=c.json HARNESS_INTO=duckdb:/tmp/x.duckdb CRASH_AT=table-merged:2 node --import tsx load-harness.ts
 *
 * (By hand, from the sources; the tests run it as plain JavaScript against dist/: builtHarness.)
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseConfig } from '../../../src/config/load.js';
import { loadJob } from '../../../src/load/load-job.js';
import { silentLogger } from '../../../src/log.js';
import { crashPoint } from '../output/support/crash-point.js';

const crash = crashPoint(process.env.CRASH_AT);
const hold = process.env.HOLD_AT;

async function faultPoint(label: string): Promise<void> {
  crash(label);
  if (label !== hold || existsSync(process.env.HOLD_FILE!)) return;
  writeFileSync(process.env.HOLD_FILE!, label);
  while (!existsSync(process.env.RELEASE_FILE!)) await sleep(20);
}

const config = parseConfig(JSON.parse(readFileSync(process.env.HARNESS_CONFIG!, 'utf8')), 'harness', {});
const transactionRows = process.env.TRANSACTION_ROWS ? Number(process.env.TRANSACTION_ROWS) : undefined;
const summary = await loadJob(config, {
  into: process.env.HARNESS_INTO,
  logger: silentLogger(),
  faultPoint,
  transactionRows,
});
process.stdout.write(`${JSON.stringify(summary)}\n`);
