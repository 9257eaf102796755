import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { downloadArtifact, uploadArtifact } from './artifact-actions.js';
import type { ArtifactStore } from './artifact-store.js';
import type { FakeGitHub } from './fake-github.js';
import { allows, type Permissions } from './github-permissions.js';

/**
 * The `uses:` actions a workflow under test may call, each emulated by what it leaves behind
 * for later steps (files, outputs, environment). An action or an input missing from this table
 * is refused when the workflow is loaded.
 */

/** What an emulated action sees of its job. */
export interface ActionCall {
  /** The step's `with:`, interpolated. */
  inputs: Record<string, string>;
  workspace: string;
  runId: number;
  /** The checkout at the run's commit: path → content. */
  files: Record<string, string>;
  permissions: Permissions;
  github: FakeGitHub;
  artifacts: ArtifactStore;
  awsRoles: Record<string, Record<string, string>>;
}

export interface ActionResult {
  ok: boolean;
  /** What the action printed (its errors included). */
  log: string;
  outputs?: Record<string, string>;
  /** Environment exported to the rest of the job. */
  env?: Record<string, string>;
}

interface EmulatedAction {
  /** Inputs accepted; those that change nothing here are listed too, so they are not refused. */
  inputs: string[];
  run(call: ActionCall): ActionResult;
}

/** No git history: the workspace holds the files of the commit, nothing else. */
function checkout(call: ActionCall): ActionResult {
  const root = resolve(call.workspace, call.inputs.path || '.');
  for (const [path, content] of Object.entries(call.files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return { ok: true, log: `Checked out ${Object.keys(call.files).length} file(s)` };
}

/**
 * Credentials of a role assumed through GitHub's OIDC provider: the job needs `id-token: write`
 * (else the action finds no ACTIONS_ID_TOKEN_REQUEST_URL), and the role must be one the test
 * set up. The role's env (keys, endpoint) and the region stay for the rest of the job.
 */
function configureAwsCredentials(call: ActionCall): ActionResult {
  const role = call.inputs['role-to-assume'] ?? '';
  const region = call.inputs['aws-region'] ?? '';
  if (region === '') return { ok: false, log: 'Error: Input required and not supplied: aws-region' };
  if (!allows(call.permissions, ['id-token'], 'write')) {
    return {
      ok: false,
      log: 'Error: Credentials could not be loaded, please check your action inputs: id-token: write is missing',
    };
  }
  const env = call.awsRoles[role];
  if (role === '' || !env) {
    return {
      ok: false,
      log: `Error: Could not assume role with OIDC: Not authorized to perform sts:AssumeRoleWithWebIdentity (${role || 'no role'})`,
    };
  }
  return { ok: true, log: `Assumed role ${role}`, env: { ...env, AWS_REGION: region, AWS_DEFAULT_REGION: region } };
}

export const EMULATED_ACTIONS: Record<string, EmulatedAction> = {
  'actions/checkout@v4': { inputs: ['path', 'fetch-depth', 'persist-credentials'], run: checkout },
  'actions/setup-node@v4': {
    inputs: ['node-version', 'cache', 'cache-dependency-path'],
    run: () => ({ ok: true, log: 'node is already on PATH' }),
  },
  'actions/upload-artifact@v4': {
    inputs: ['name', 'path', 'if-no-files-found', 'overwrite', 'retention-days'],
    run: uploadArtifact,
  },
  'actions/download-artifact@v4': {
    inputs: ['name', 'path', 'run-id', 'github-token', 'repository'],
    run: downloadArtifact,
  },
  'aws-actions/configure-aws-credentials@v4': {
    inputs: ['role-to-assume', 'aws-region', 'role-session-name', 'role-duration-seconds'],
    run: configureAwsCredentials,
  },
};
