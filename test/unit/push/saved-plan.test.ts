import { describe, expect, it } from 'vitest';
import { LockHeldError } from '../../../src/errors.js';
import { PlanStaleError } from '../../../src/push/errors.js';
import {
  describeRemoteMoves,
  fingerprintPlanInputs,
  type PlanInputs,
} from '../../../src/push/plan/plan-fingerprint.js';
import { emptyPlan } from '../../../src/push/plan/plan-types.js';
import { checkSavedPlanStillHolds, savedPlanOf } from '../../../src/push/plan/saved-plan.js';
import { formatApplyOutcomeMarkdown, refusedOutcome } from '../../../src/push/report/apply-outcome-markdown.js';

const plan = emptyPlan({ removed: false, unmanaged: false }, ['holiday']);
const inputs = (name = 'Xmas', applied = 'h1'): PlanInputs => ({
  desired: { holidays: [] },
  remote: { holidays: [{ id: '7', form: { name, start_date: '2027-12-25', end_date: '2027-12-25' } }] },
  inboxes: [{ id: '1', name: 'Support' }],
  mappings: {
    businessHours: [],
    holidays: [{ kind: 'holiday', key: 'xmas', remote_id: '7', applied_hash: applied, applied_at: '2026-01-01' }],
  },
});

describe('plan fingerprints', () => {
  it('names what was added, changed and removed, in order', () => {
    expect(describeRemoteMoves({ 'holiday 1': 'a', 'holiday 2': 'b' }, { 'holiday 2': 'c', 'inbox 3': 'd' })).toEqual([
      'holiday 1 removed',
      'holiday 2 changed',
      'inbox 3 added',
    ]);
  });

  it('ignores when a mapping was last recorded, not what it maps', () => {
    const a = fingerprintPlanInputs(inputs());
    const b = inputs();
    b.mappings.holidays[0]!.applied_at = '2026-06-01';
    expect(fingerprintPlanInputs(b).remote_sha256).toBe(a.remote_sha256);
    expect(fingerprintPlanInputs(inputs('Xmas', 'h2')).remote_sha256).not.toBe(a.remote_sha256);
  });
});

describe('a saved plan still holds only for the same inputs and the same plan', () => {
  const saved = savedPlanOf(plan, fingerprintPlanInputs(inputs()), { now: new Date(0), commit: 'abc123' });

  it('holds for the same inputs', () => {
    expect(() => checkSavedPlanStillHolds(saved, plan, fingerprintPlanInputs(inputs()))).not.toThrow();
  });

  it('is stale when a remote object changed, naming it', () => {
    const moved = fingerprintPlanInputs(inputs('Christmas'));
    expect(() => checkSavedPlanStillHolds(saved, plan, moved)).toThrow(
      /the helpdesk or the state changed since it was made \(planned at commit abc123\) \(holiday 7 changed\)/,
    );
  });

  it('is stale when the desired state differs, said before any remote move', () => {
    const other = { ...inputs('Christmas'), desired: { holidays: undefined } };
    expect(() => checkSavedPlanStillHolds(saved, plan, fingerprintPlanInputs(other))).toThrow(/the push files differ/);
  });

  it('is stale when the same inputs give another plan (another version of the tool)', () => {
    const other = { ...plan, warnings: ['a calendar now has fewer holidays'] };
    expect(() => checkSavedPlanStillHolds(saved, other, fingerprintPlanInputs(inputs()))).toThrow(
      /the plan made now from the same inputs differs/,
    );
  });
});

describe('the Markdown result of an apply', () => {
  it('escapes names and lists steps', () => {
    const text = formatApplyOutcomeMarkdown(
      { result: 'applied', applied: ['create holiday "@team <b>party</b>"'] },
      { commit: 'abc', runUrl: 'https://github.com/a/b/actions/runs/9' },
    );
    expect(text).toBe(
      '## Applied: 1 change(s)\n\nApplied at commit `abc` in [this run](https://github.com/a/b/actions/runs/9).\n\n' +
        '- create holiday "&#64;team &lt;b&gt;party&lt;/b&gt;"\n',
    );
  });

  it('says what was and was not applied when an apply stopped', () => {
    const text = formatApplyOutcomeMarkdown({
      result: 'stopped',
      applied: ['create holiday "a"'],
      notApplied: ['create holiday "b"'],
      reason: 'holidays[1] (key "b"): the API refused the write (403)',
    });
    expect(text).toMatch(/^## Apply stopped: 1 applied, 1 not applied\n/);
    expect(text).toContain('Stopped at: holidays[1] (key "b"): the API refused the write (403)');
    expect(text).toContain('<details open><summary>Not applied</summary>\n\n- create holiday "b"');
  });

  it('gives the reason of a refusal by its code, never the error message', () => {
    const stale = refusedOutcome(new PlanStaleError('x http://secret.example', { moved: ['holiday 7 changed'] }));
    const text = formatApplyOutcomeMarkdown(stale);
    expect(text).toContain('## Not applied: the helpdesk or the state changed since the plan was reviewed');
    expect(text).toContain('Nothing was written (`PUSH_PLAN_STALE`).');
    expect(text).toContain('- holiday 7 changed');
    expect(text).not.toContain('secret.example');
    expect(formatApplyOutcomeMarkdown(refusedOutcome(new LockHeldError('held by me')))).toMatch(
      /^## Not applied: another run held the state lock; run it again later\n/,
    );
    expect(formatApplyOutcomeMarkdown(refusedOutcome(new Error('boom')))).toContain('`ERROR`');
  });
});
