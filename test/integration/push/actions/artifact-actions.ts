import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { ActionCall, ActionResult } from './emulated-actions.js';
import { allows } from './github-permissions.js';

/**
 * actions/upload-artifact@v4 and actions/download-artifact@v4, as their READMEs describe them,
 * on the runner's in-memory ArtifactStore. Paths are exact files or directories (no globs, no
 * `!` exclusions); several paths keep their layout under their least common ancestor.
 */

function filesUnder(path: string): string[] {
  if (statSync(path).isFile()) return [path];
  return readdirSync(path, { withFileTypes: true }).flatMap((entry) => filesUnder(join(path, entry.name)));
}

function commonAncestor(paths: string[]): string {
  const split = paths.map((p) => p.split(sep));
  const first = split[0]!;
  let length = 0;
  while (length < first.length && split.every((parts) => parts[length] === first[length])) length += 1;
  return first.slice(0, length).join(sep) || sep;
}

function searchPaths(call: ActionCall): string[] {
  const lines = (call.inputs.path ?? '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  if (lines.length === 0) throw new Error('upload-artifact: path is required');
  for (const line of lines) {
    if (/[*?[\]]/.test(line) || line.startsWith('!'))
      throw new Error(`upload-artifact: path '${line}' is not emulated`);
  }
  return lines.map((line) => resolve(call.workspace, line));
}

export function uploadArtifact(call: ActionCall): ActionResult {
  const name = call.inputs.name || 'artifact';
  const ifNone = call.inputs['if-no-files-found'] || 'warn';
  if (!['warn', 'error', 'ignore'].includes(ifNone)) throw new Error(`upload-artifact: if-no-files-found '${ifNone}'`);
  const found = searchPaths(call).filter((path) => existsSync(path));
  const files = found.flatMap(filesUnder);
  if (files.length === 0) {
    const message = `No files were found with the provided path: ${call.inputs.path}. No artifacts will be uploaded.`;
    if (ifNone === 'error') return { ok: false, log: `Error: ${message}` };
    return { ok: true, log: ifNone === 'warn' ? `Warning: ${message}` : '' };
  }
  if (call.artifacts.has(call.runId, name) && call.inputs.overwrite !== 'true') {
    return {
      ok: false,
      log: `Error: Failed to CreateArtifact: an artifact with this name already exists on the workflow run (${name})`,
    };
  }
  const root = commonAncestor(found.map((path) => (statSync(path).isFile() ? dirname(path) : path)));
  call.artifacts.put(call.runId, name, new Map(files.map((file) => [relative(root, file), readFileSync(file)])));
  return {
    ok: true,
    log: `Artifact ${name} uploaded: ${files.length} file(s)`,
    outputs: { 'artifact-id': `${call.runId}-${name}` },
  };
}

/** Another run's artifacts are read through the API: the token needs actions: read. */
function tokenProblem(call: ActionCall): string | undefined {
  const token = call.inputs['github-token'];
  if (!token) return 'run-id needs github-token';
  const grant = call.github.grantOf(token);
  if (!grant) return 'Bad credentials';
  if (grant.permissions && !allows(grant.permissions, ['actions'], 'read')) {
    return 'Resource not accessible by integration';
  }
  return undefined;
}

export function downloadArtifact(call: ActionCall): ActionResult {
  const repository = call.inputs.repository;
  if (repository && repository !== call.github.repository)
    throw new Error(`download-artifact: repository ${repository} is not emulated`);
  const runId = call.inputs['run-id'] ? Number(call.inputs['run-id']) : call.runId;
  if (call.inputs['run-id']) {
    if (!Number.isInteger(runId)) return { ok: false, log: `Error: run-id '${call.inputs['run-id']}' is not a number` };
    const problem = tokenProblem(call);
    if (problem) return { ok: false, log: `Error: ${problem}` };
  }
  const target = isAbsolute(call.inputs.path || '.')
    ? call.inputs.path!
    : resolve(call.workspace, call.inputs.path || '.');
  const name = call.inputs.name;
  const wanted = name ? [name] : call.artifacts.names(runId);
  const log: string[] = [];
  for (const artifact of wanted) {
    const files = call.artifacts.get(runId, artifact);
    if (!files) return { ok: false, log: `Error: Artifact not found for name: ${artifact}` };
    // Without a name every artifact goes into a directory of its own name.
    const root = name ? target : join(target, artifact);
    for (const [path, data] of files) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), data);
    }
    log.push(`Artifact ${artifact} downloaded to ${root}`);
  }
  return { ok: true, log: log.join('\n'), outputs: { 'download-path': target } };
}
