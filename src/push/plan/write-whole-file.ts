import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { explainPathError } from '../../path-problem.js';
import { PushFileWriteError } from '../errors.js';

/**
 * Writes `text` to `path` whole or not at all (a temporary file beside it, renamed over it), so a
 * reader (a workflow step, a reviewer) never finds half a plan or half a report. `what` names the
 * file in the error: "the plan", "the apply report".
 */
export function writeWholeFile(path: string, text: string, what: string): void {
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, text, { mode: 0o644 });
    renameSync(tmp, path);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw new PushFileWriteError(`cannot write ${what} to ${path}: ${explainPathError(error, path)}`, {
      cause: error,
    });
  }
}
