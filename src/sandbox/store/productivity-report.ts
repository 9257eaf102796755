import { localDate, nextDate, startOfLocalDay } from '../model/time-zone.js';
import { FLAG_REMOVED, FLAG_TRASHED } from '../seed/conversation-table.js';
import type { SandboxStore } from './sandbox-store.js';

/** First index whose created_at is at or after `ms` (the table is in created_at order). */
function lowerBound(createdAt: Float64Array, ms: number): number {
  let lo = 0;
  let hi = createdAt.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (createdAt[mid]! < ms) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Duration as H:MM:SS (hours may pass 24). */
function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${Math.floor(s / 3600)}:${pad(Math.floor((s % 3600) / 60))}:${pad(s % 60)}`;
}

/**
 * The Productivity report (API document, Resources) over the live conversations
 * of one inbox created between start_date and end_date inclusive, as calendar
 * days in the organization's time zone. Replies are outbound messages; a
 * resolved conversation is one whose status is Closed.
 */
export function productivityReport(store: SandboxStore, inboxId: string, startDate: string, endDate: string) {
  const inboxIndex = store.world.inboxes.findIndex((b) => b.id === inboxId);
  const org = store.organization(store.world.inboxes[inboxIndex]!.organizationId)!;
  const from = startOfLocalDay(startDate, org.timezone);
  const to = startOfLocalDay(nextDate(endDate), org.timezone);
  const { table } = store;
  const report = {
    resolved_conversations_with_multiple_reply: 0,
    resolved_conversations_with_one_reply: 0,
    assigned_conversations: 0,
    created_conversations: 0,
    conversations_with_responses: [] as Array<{ id: string; created_at: string; messages: unknown[] }>,
    resolutions_with_time: [] as Array<{ date: string; resolution_time: string }>,
    avg_replies_to_resolution: 0,
  };
  let resolved = 0;
  let repliesToResolution = 0;
  for (let i = lowerBound(table.createdAt, from); i < table.count && table.createdAt[i]! < to; i++) {
    if (table.inbox[i] !== inboxIndex || table.flags[i]! & (FLAG_REMOVED | FLAG_TRASHED)) continue;
    const s = store.conversations.get(i);
    const createdAt = new Date(s.createdAt).toISOString();
    const replies = s.events.filter((e) => e.event?.direction === 'outbound').map((e) => e.event!);
    report.created_conversations++;
    if (s.assigneeId !== null) report.assigned_conversations++;
    if (replies.length > 0) {
      const messages = replies.map((m) => ({ id: m.id, created_at: m.created_at, conversation_id: s.id }));
      report.conversations_with_responses.push({ id: s.id, created_at: createdAt, messages });
    }
    if (s.status !== 'Closed' || s.closedAt === null) continue;
    resolved++;
    repliesToResolution += replies.length;
    if (replies.length === 1) report.resolved_conversations_with_one_reply++;
    if (replies.length > 1) report.resolved_conversations_with_multiple_reply++;
    const date = localDate(s.closedAt, org.timezone);
    report.resolutions_with_time.push({ date, resolution_time: duration(s.closedAt - s.createdAt) });
  }
  report.avg_replies_to_resolution = resolved === 0 ? 0 : Math.round((repliesToResolution / resolved) * 100) / 100;
  return report;
}
