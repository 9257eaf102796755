import { type HelpdeskSyncError, LockHeldError } from '../../errors.js';
import { PlanStaleError, PushBlockedError } from '../errors.js';
import type { PlanContext } from './format-plan-markdown.js';
import { cell, code, md } from './markdown-text.js';

/**
 * How an apply ended, for `apply --report FILE`: a short Markdown result a
 * workflow posts where the plan was reviewed. It names steps (their labels hold
 * keys, names and dates) and, for a refusal, what moved; never log lines, the
 * API's address or the token. The run's log has the rest.
 */
export type ApplyOutcome =
  | { result: 'applied'; applied: string[] }
  | { result: 'nothing' }
  | { result: 'stopped'; applied: string[]; notApplied: string[]; reason: string }
  | { result: 'refused'; code: string; exitCode: number; why: string; moved?: string[] };

/** Why an apply that wrote nothing ended, in words a reviewer acts on (by error code, not by message). */
export function refusedOutcome(error: unknown): ApplyOutcome {
  const e = error as Partial<HelpdeskSyncError>;
  const base = { result: 'refused' as const, code: e.code ?? 'ERROR', exitCode: e.exitCode ?? 1 };
  if (error instanceof PlanStaleError) {
    const why = error.moved.length
      ? 'the helpdesk or the state changed since the plan was reviewed'
      : 'the push files or the tool changed since the plan was reviewed';
    return { ...base, why, moved: error.moved };
  }
  if (error instanceof PushBlockedError) return { ...base, why: 'the plan is blocked by a profile outside the config' };
  if (error instanceof LockHeldError) return { ...base, why: 'another run held the state lock; run it again later' };
  if (base.exitCode === 64) return { ...base, why: 'the files or the saved plan are invalid' };
  return { ...base, why: 'it failed before writing anything' };
}

const MOVED_SHOWN = 20;

const list = (items: string[]) => (items.length ? items.map((i) => `- ${cell(i)}`) : ['- (none)']);

export function formatApplyOutcomeMarkdown(outcome: ApplyOutcome, context: PlanContext = {}): string {
  const at = context.commit ? ` at commit ${code(context.commit)}` : '';
  const run = context.runUrl ? ` in [this run](${context.runUrl})` : '';
  const where = at || run ? md(`Applied${at}${run}.`) : '';
  const out: string[] = [];
  switch (outcome.result) {
    case 'applied':
      out.push(`## Applied: ${outcome.applied.length} change(s)`, '', where, '', ...list(outcome.applied));
      break;
    case 'nothing':
      out.push('## Nothing to apply: the helpdesk already matches the configuration', '', where);
      break;
    case 'stopped':
      out.push(
        `## Apply stopped: ${outcome.applied.length} applied, ${outcome.notApplied.length} not applied`,
        '',
        where,
        '',
        md(`Stopped at: ${outcome.reason.replace(/\r?\n/g, ' ')}`),
        '',
        '<details><summary>Applied</summary>',
        '',
        ...list(outcome.applied),
        '',
        '</details>',
        '',
        '<details open><summary>Not applied</summary>',
        '',
        ...list(outcome.notApplied),
        '',
        '</details>',
        '',
        'State records exactly what was applied; fix the cause and run the apply again.',
      );
      break;
    case 'refused': {
      out.push(`## Not applied: ${outcome.why}`, '', where, '', md(`Nothing was written (${code(outcome.code)}).`));
      const moved = outcome.moved ?? [];
      if (moved.length) {
        out.push('', 'Moved since the plan:', '', ...list(moved.slice(0, MOVED_SHOWN)));
        if (moved.length > MOVED_SHOWN) out.push(`- and ${moved.length - MOVED_SHOWN} more`);
      }
      break;
    }
  }
  return `${out
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd()}\n`;
}
