import { describe, expect, it } from 'vitest';
import { validatePushFiles } from '../../../src/push/files/validate-push-files.js';
import { buildDesiredState } from '../../../src/push/plan/build-desired-state.js';

const inboxes = [
  { id: 'i-1', name: 'Support' },
  { id: 'i-2', name: 'Sales' },
  { id: 'i-3', name: 'Sales' },
];

function build(channels: unknown[], extra: Record<string, unknown> = {}) {
  const { files, issues } = validatePushFiles({
    businessHours: {
      file: 'bh.yaml',
      data: { business_hours: [{ key: 'k', type: 'calendar_24_7', channels, ...extra }] },
    },
  });
  expect(issues).toEqual([]);
  return buildDesiredState(files, inboxes);
}

describe('buildDesiredState', () => {
  it('resolves inboxes by id or unique name and names the profile after its key by default', () => {
    const { desired, issues } = build([
      { inbox: 'Support', channel: 'livechat' },
      { inbox: 'i-3', channel: 'email' },
    ]);
    expect(issues).toEqual([]);
    expect(desired.businessHours?.[0]?.form).toEqual({
      name: 'k',
      type: 'calendar_24_7',
      weekly_schedule: null,
      inbox_channels: [
        { inbox_id: 'i-1', channel: 'livechat' },
        { inbox_id: 'i-3', channel: 'email' },
      ],
    });
    expect(desired.holidays).toBeUndefined();
  });

  it('refuses an ambiguous name', () => {
    const { issues } = build([{ inbox: 'Sales', channel: 'email' }]);
    expect(issues).toEqual([
      {
        path: 'bh.yaml, business_hours[0] (key "k"), channels[0].inbox',
        message: '2 inboxes are named "Sales"; use the inbox id instead',
      },
    ]);
  });

  it('zero-pads times and orders days in the desired form', () => {
    const { files } = validatePushFiles({
      businessHours: {
        file: 'bh.yaml',
        data: {
          business_hours: [
            {
              key: 'k',
              type: 'business_hours',
              schedule: {
                sunday: null,
                saturday: null,
                friday: { start: '22:00', end: '6:00' },
                thursday: null,
                wednesday: null,
                tuesday: null,
                monday: { start: '9:00', end: '17:30' },
              },
            },
          ],
        },
      },
    });
    const form = buildDesiredState(files, inboxes).desired.businessHours?.[0]?.form;
    expect(form?.weekly_schedule?.[0]).toEqual({ day: 'monday', start: '09:00', end: '17:30' });
    expect(form?.weekly_schedule?.[4]).toEqual({ day: 'friday', start: '22:00', end: '06:00' });
  });
});
