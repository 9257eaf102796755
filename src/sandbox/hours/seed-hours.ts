import { todayIn } from './holiday-status.js';
import { type ScheduleEntry, WEEKDAYS } from './hours-model.js';
import type { HoursOrganization, HoursStore, SeedOrganization } from './hours-store.js';

export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

function weekdaysSchedule(start: string, end: string): ScheduleEntry[] {
  return WEEKDAYS.map((day) =>
    day === 'saturday' || day === 'sunday' ? { day, start: null, end: null } : { day, start, end },
  );
}

/**
 * A small, deterministic starting point per organization, dated relative to the
 * reference instant (the sandbox clock when the routes were registered):
 * - the first organization: "Support hours" (business_hours, weekdays, covering
 *   the first inbox's email channel), "Always on" (calendar_24_7, covering the
 *   livechat channel of the second inbox, or of the first when there is one),
 *   and three holidays: one past, one active today, one upcoming;
 * - every other organization: one business_hours profile on its first inbox's
 *   livechat channel and one upcoming holiday.
 */
export function createHoursSeeder(seed: number, reference: Date): SeedOrganization {
  const startHour = 8 + (Math.abs(seed) % 2); // 08:00 or 09:00, so seeds differ visibly
  const open = `0${startHour}:00`;
  const close = `${startHour + 9}:00`;
  return (store: HoursStore, org: HoursOrganization, index: number) => {
    const today = todayIn(org.timezone, reference);
    const at = (daysAgo: number) => new Date(reference.getTime() - daysAgo * 86_400_000).toISOString();
    const profile = (
      name: string,
      daysAgo: number,
      fields: Pick<Parameters<HoursStore['saveProfile']>[0], 'type' | 'weekly_schedule' | 'inbox_channels'>,
    ) =>
      store.saveProfile({
        id: store.newId('business-hours'),
        organizationId: org.id,
        name,
        ...fields,
        created_at: at(daysAgo),
        updated_at: at(daysAgo),
      });
    const holiday = (name: string, start: string, end: string, daysAgo: number) =>
      store.saveHoliday({
        id: store.newId('holiday'),
        organizationId: org.id,
        name,
        start_date: start,
        end_date: end,
        created_at: at(daysAgo),
        updated_at: at(daysAgo),
      });
    const [first, second] = org.inboxIds;
    if (index === 0) {
      profile('Support hours', 30, {
        type: 'business_hours',
        weekly_schedule: weekdaysSchedule(open, close),
        inbox_channels: first ? [{ inbox_id: first, channel: 'email' }] : [],
      });
      const livechatInbox = second ?? first;
      profile('Always on', 20, {
        type: 'calendar_24_7',
        weekly_schedule: null,
        inbox_channels: livechatInbox ? [{ inbox_id: livechatInbox, channel: 'livechat' }] : [],
      });
      holiday('Spring bank holiday', addDays(today, -40), addDays(today, -40), 60);
      holiday('Company offsite', addDays(today, -1), addDays(today, 1), 50);
      holiday('Founders day', addDays(today, 25 + (Math.abs(seed) % 5)), addDays(today, 25 + (Math.abs(seed) % 5)), 40);
      return;
    }
    profile('Office hours', 30, {
      type: 'business_hours',
      weekly_schedule: weekdaysSchedule(open, close),
      inbox_channels: first ? [{ inbox_id: first, channel: 'livechat' }] : [],
    });
    holiday('Summer closing', addDays(today, 60), addDays(today, 74), 30);
  };
}
