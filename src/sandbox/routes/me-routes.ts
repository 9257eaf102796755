import type { FastifyInstance } from 'fastify';
import { callerOf } from '../requests/auth.js';
import { FLAG_REMOVED, FLAG_SPAM, FLAG_TRASHED, STATUS_ACTIVE } from '../seed/conversation-table.js';
import type { SandboxStore } from '../store/sandbox-store.js';
import { userWire } from '../store/wire.js';
import type { RouteContext } from './route-context.js';

/** Badge counts (fields not shown by the API document): live, non-spam Active conversations. */
function badgeCounts(store: SandboxStore, organizationId: string, userId: string) {
  const { table, world } = store;
  const inOrg = world.inboxes.map((b) => b.organizationId === organizationId);
  const me = world.users.findIndex((u) => u.id === userId);
  const counts = { mine: 0, unassigned: 0, active: 0, spam: 0, drafts: 0 };
  for (let i = 0; i < table.count; i++) {
    const flags = table.flags[i]!;
    if (!inOrg[table.inbox[i]!] || flags & (FLAG_REMOVED | FLAG_TRASHED)) continue;
    if (flags & FLAG_SPAM) {
      counts.spam++;
      continue;
    }
    if (table.status[i] !== STATUS_ACTIVE) continue;
    counts.active++;
    if (table.assignee[i] === me) counts.mine++;
    if (table.assignee[i] === -1) counts.unassigned++;
  }
  for (const key of store.drafts.keys()) if (key.endsWith(`:${userId}`)) counts.drafts++;
  return counts;
}

/** GET /me: current user, organization (company, slug...) and badge counts (API document, Other operations). */
export function registerMeRoutes(app: FastifyInstance, { store }: RouteContext): void {
  app.get('/me', async (request) => {
    const { user, organization } = callerOf(request);
    return {
      data: {
        ...userWire(user),
        organization: { ...organization },
        badge_counts: badgeCounts(store, organization.id, user.id),
      },
    };
  });
}
