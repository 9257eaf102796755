/**
 * The `permissions:` of a workflow or job, resolved to one access level per scope, as the
 * job's GITHUB_TOKEN gets them ("Controlling permissions for GITHUB_TOKEN"):
 * - a map names scopes; every scope it leaves out is `none` (metadata stays readable);
 * - `read-all` / `write-all` give every scope that level; `{}` gives none;
 * - no `permissions:` anywhere gives the restricted default of a repository created today
 *   (contents and packages read).
 */

export type Access = 'none' | 'read' | 'write';
export type Permissions = Record<string, Access>;

const SCOPES = [
  'actions',
  'attestations',
  'checks',
  'contents',
  'deployments',
  'discussions',
  'id-token',
  'issues',
  'metadata',
  'packages',
  'pages',
  'pull-requests',
  'repository-projects',
  'security-events',
  'statuses',
] as const;

const RESTRICTED_DEFAULT: Permissions = { contents: 'read', packages: 'read', metadata: 'read' };

function everyScope(access: Access): Permissions {
  const permissions: Permissions = {};
  for (const scope of SCOPES) permissions[scope] = access;
  // id-token has no read level: read-all leaves it out.
  if (access === 'read') permissions['id-token'] = 'none';
  return permissions;
}

/** The effective permissions of a job: its own `permissions:`, else the workflow's, else the default. */
export function resolvePermissions(job: unknown, workflow: unknown): Permissions {
  const declared = job ?? workflow;
  if (declared === undefined || declared === null) return { ...RESTRICTED_DEFAULT };
  if (declared === 'read-all') return everyScope('read');
  if (declared === 'write-all') return everyScope('write');
  if (typeof declared !== 'object' || Array.isArray(declared)) {
    throw new Error(`permissions: expected read-all, write-all or a map, got ${JSON.stringify(declared)}`);
  }
  const permissions: Permissions = { ...everyScope('none'), metadata: 'read' };
  for (const [scope, access] of Object.entries(declared as Record<string, unknown>)) {
    if (!(SCOPES as readonly string[]).includes(scope)) throw new Error(`permissions: unknown scope '${scope}'`);
    if (access !== 'none' && access !== 'read' && access !== 'write') {
      throw new Error(`permissions.${scope}: expected read, write or none, got ${JSON.stringify(access)}`);
    }
    permissions[scope] = access;
  }
  return permissions;
}

/** True when `permissions` gives at least `needed` on one of `scopes` (write implies read). */
export function allows(permissions: Permissions, scopes: readonly string[], needed: 'read' | 'write'): boolean {
  return scopes.some((scope) => {
    const access = permissions[scope] ?? 'none';
    return needed === 'read' ? access !== 'none' : access === 'write';
  });
}
