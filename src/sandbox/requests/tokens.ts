import type { SandboxStore } from '../store/sandbox-store.js';

/** What a token grants: whose it is and what it may do (API document, Authentication rules 2, 3, 5). */
export interface TokenGrant {
  /** Index into the world's users (`store.world.users`). */
  userIndex: number;
  isPat: boolean;
  scopes: readonly string[];
}

/** The three fixed tokens; all belong to organization 1. */
export const SANDBOX_TOKENS: Readonly<Record<string, TokenGrant>> = {
  'sandbox-admin': { userIndex: 0, isPat: true, scopes: ['users:read'] },
  'sandbox-agent': { userIndex: 2, isPat: true, scopes: [] },
  'sandbox-partner': { userIndex: 1, isPat: false, scopes: ['users:read'] },
};

/** The two tokens every organization answers to, named after its slug. */
export function organizationTokenNames(slug: string): { admin: string; agent: string } {
  return { admin: `${slug}-admin`, agent: `${slug}-agent` };
}

/**
 * Every token the world answers to: the fixed three, and per organization
 * `<slug>-admin` (a personal access token of its Account Owner, users:read) and
 * `<slug>-agent` (a personal access token of its first active User, no scope).
 * For acme these are the users of sandbox-admin and sandbox-agent.
 */
function buildTokenTable({ world }: SandboxStore): ReadonlyMap<string, TokenGrant> {
  const table = new Map<string, TokenGrant>(Object.entries(SANDBOX_TOKENS));
  for (const org of world.organizations) {
    const names = organizationTokenNames(org.slug);
    const index = (role: string) =>
      world.users.findIndex((u) => u.organizationId === org.id && u.role === role && u.status === 'active');
    const owner = index('Account Owner');
    const agent = index('User');
    if (owner >= 0) table.set(names.admin, { userIndex: owner, isPat: true, scopes: ['users:read'] });
    if (agent >= 0) table.set(names.agent, { userIndex: agent, isPat: true, scopes: [] });
  }
  return table;
}

/** Built on first use: the organizations and their teammates never change while a sandbox runs. */
const tables = new WeakMap<SandboxStore, ReadonlyMap<string, TokenGrant>>();

/** The grant of `token` in this store's world, or undefined for a token nobody issued. */
export function grantOf(store: SandboxStore, token: string): TokenGrant | undefined {
  let table = tables.get(store);
  if (!table) {
    table = buildTokenTable(store);
    tables.set(store, table);
  }
  return table.get(token);
}
