import { WEEKDAYS } from '../../api/index.js';
import type { ConfigIssue } from '../../errors.js';
import type { BusinessHoursEntry } from '../files/files-schema.js';
import { type EntryRef, entryLabel, issuePath } from '../files/issue-path.js';
import type { ValidatedPushFiles } from '../files/validate-push-files.js';
import { type ChannelRef, type HolidayForm, normalizeSchedule, type ProfileForm, sortChannels } from './normalize.js';

export interface InboxInfo {
  id: string;
  name: string;
}

export interface DesiredProfile {
  key: string;
  ref: EntryRef;
  /** Remote id to take over when the key has no live mapping yet. */
  adopt?: string;
  form: ProfileForm;
  /** Older keys whose mapping moves to `key` (`moved:`). */
  aliases?: string[];
}

export interface DesiredHoliday {
  key: string;
  ref: EntryRef;
  form: HolidayForm;
  /** Older keys whose mapping moves to `key` (see ValidatedEntry.aliases). */
  aliases?: string[];
}

/** What the files ask for. A kind whose file is not configured is undefined: not managed at all. */
export interface DesiredState {
  businessHours?: DesiredProfile[];
  holidays?: DesiredHoliday[];
}

/** An inbox reference is an id, else a unique name (exact, case-sensitive). */
function resolveInbox(reference: string, inboxes: InboxInfo[]): { id?: string; problem?: string } {
  if (inboxes.some((i) => i.id === reference)) return { id: reference };
  const named = inboxes.filter((i) => i.name === reference);
  if (named.length === 1) return { id: named[0]!.id };
  if (named.length > 1)
    return { problem: `${named.length} inboxes are named "${reference}"; use the inbox id instead` };
  const known = inboxes.map((i) => `"${i.name}"`).slice(0, 20);
  return { problem: `no inbox with this name or id: "${reference}" (inboxes: ${known.join(', ') || 'none'})` };
}

function profileForm(entry: BusinessHoursEntry, channels: ChannelRef[]): ProfileForm {
  const schedule = entry.type === 'business_hours' && entry.schedule ? entry.schedule : null;
  return {
    name: entry.name ?? entry.key,
    type: entry.type,
    weekly_schedule: schedule ? normalizeSchedule(WEEKDAYS.map((day) => ({ day, ...(schedule[day] ?? {}) }))) : null,
    inbox_channels: sortChannels(channels),
  };
}

function resolveProfiles(
  entries: NonNullable<ValidatedPushFiles['businessHours']>['entries'],
  inboxes: InboxInfo[],
  issues: ConfigIssue[],
): DesiredProfile[] {
  const owner = new Map<string, EntryRef>();
  return entries.map(({ ref, entry, aliases }) => {
    const channels: ChannelRef[] = [];
    entry.channels.forEach((c, i) => {
      const resolved = resolveInbox(c.inbox, inboxes);
      if (!resolved.id) {
        issues.push({ path: issuePath(ref, ['channels', i, 'inbox']), message: resolved.problem! });
        return;
      }
      const id = `${resolved.id}\u0000${c.channel}`;
      const first = owner.get(id);
      if (first && first.index !== ref.index) {
        issues.push({
          path: issuePath(ref, ['channels', i]),
          message: `inbox ${resolved.id} ${c.channel} is already covered by ${entryLabel(first)} (named differently there)`,
        });
      }
      owner.set(id, first ?? ref);
      channels.push({ inbox_id: resolved.id, channel: c.channel });
    });
    return {
      key: entry.key,
      ref,
      ...(entry.adopt ? { adopt: entry.adopt } : {}),
      form: profileForm(entry, channels),
      ...(aliases ? { aliases } : {}),
    };
  });
}

/**
 * Turns validated files into normalized desired forms, resolving inbox names to
 * ids with the inbox list (the one read validation needs). Problems found here
 * (unknown or ambiguous inbox, one channel reached twice through a name and an
 * id) are returned for the caller to report before any write.
 */
export function buildDesiredState(
  files: ValidatedPushFiles,
  inboxes: InboxInfo[],
): { desired: DesiredState; issues: ConfigIssue[] } {
  const issues: ConfigIssue[] = [];
  const desired: DesiredState = {};
  if (files.holidays) {
    desired.holidays = files.holidays.entries.map(({ ref, entry, aliases }) => ({
      key: entry.key,
      ref,
      form: { name: entry.name, start_date: entry.start_date, end_date: entry.end_date },
      ...(aliases ? { aliases } : {}),
    }));
  }
  if (files.businessHours) desired.businessHours = resolveProfiles(files.businessHours.entries, inboxes, issues);
  return { desired, issues };
}
