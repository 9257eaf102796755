import type { InboxNames } from '../apply/describe-write-failure.js';
import type { ResourceKind } from '../mappings/resource-store.js';
import { countActions, type Plan, type PlanAction, planHasChanges, type RemoteSummary } from '../plan/plan-types.js';
import { describeForm, fieldChange, moveCount, pruneNote } from './format-plan.js';
import { cell, code, md } from './markdown-text.js';

/**
 * The plan as a Markdown comment for a pull request: one table per resource
 * kind, then drift, blockers, objects outside the config and skipped inputs.
 * It holds what the text plan holds (names, dates, ids, inbox names, every
 * updated field before and after) and never a token or the API's address.
 * Names come from people: HTML and `@` are escaped, so a holiday called
 * "<img src=x>" or "@team party" neither renders nor notifies anyone.
 */

/** GitHub refuses a comment body longer than this (characters). */
export const GITHUB_COMMENT_LIMIT = 65_536;

/** Room left under the limit for the lines a workflow adds around the plan (its marker, the saved plan's hash). */
export const WORKFLOW_LINES_ROOM = 1_024;

/** Where the plan was made, shown under the headline (a CI run's commit and its link). */
export interface PlanContext {
  commit?: string;
  runUrl?: string;
}

const TITLES: Record<ResourceKind, string> = { business_hours: 'Business hours', holiday: 'Holidays' };

function row(a: PlanAction, names: InboxNames): string[] | undefined {
  const key = 'key' in a && a.key ? code(a.key) : '(unmanaged)';
  const from = 'ref' in a && a.ref?.origin ? a.ref.origin : '';
  switch (a.op) {
    case 'create':
      return ['create', key, '', describeForm(a.after, names), a.drift ? 'deleted in the UI: re-created' : '', from];
    case 'update': {
      const note = a.release
        ? 'removed from the config; gives up channels the config claims'
        : a.adopted
          ? 'adopted through `adopt:`'
          : a.drift
            ? '**drift**: changed in the UI, restored'
            : '';
      const changes = a.fields
        .map((f) => fieldChange(f, a.before, a.after, names).replaceAll(' -> ', ' → '))
        .join('; ');
      return ['update', key, a.remote_id, `${describeForm(a.after, names)} (${changes})`, note, from];
    }
    case 'delete':
      return [
        'delete',
        key,
        a.remote_id,
        describeForm(a.before, names),
        a.reason === 'removed' ? 'removed from the config; --prune' : 'unmanaged; --prune-unmanaged',
        '',
      ];
    case 'adopt':
      return ['adopt', key, a.remote_id, describeForm(a.form, names), 'identical remote object; state only', from];
    case 'forget':
      return ['forget', key, a.remote_id, '', 'gone remotely and from the config; state only', ''];
    case 'move':
      return ['move', key, a.remote_id, '', `key renamed from ${code(a.from)}; state only`, ''];
    case 'refresh':
      return undefined;
  }
}

function table(header: string[], rows: string[][]): string[] {
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`),
  ];
}

function remoteList(title: string, items: RemoteSummary[], names: InboxNames): string[] {
  if (items.length === 0) return [];
  return [
    `### ${title}`,
    '',
    ...table(
      ['Kind', 'Key', 'Remote id', 'Object'],
      items.map((u) => [TITLES[u.kind], u.key ? code(u.key) : '', u.remote_id, describeForm(u.form, names)]),
    ),
    '',
  ];
}

/** The headline, and where the plan was made when known. */
function head(plan: Plan, context: PlanContext): string[] {
  const c = countActions(plan);
  const out = [
    planHasChanges(plan)
      ? `## Plan: ${c.create} to create, ${c.update} to update, ${c.delete} to delete, ${c.adopt} to adopt, ${c.forget} to forget${moveCount(c.move)}`
      : '## No changes: the remote business hours and holidays match the configuration',
    '',
  ];
  const at = context.commit ? ` at commit ${code(context.commit)}` : '';
  const run = context.runUrl ? ` in [this run](${context.runUrl})` : '';
  if (at || run) out.push(md(`Planned${at}${run}.`), '');
  return out;
}

/** One kind's changes, folded under a summary line that counts them. */
function kindSection(kind: ResourceKind, rows: string[][]): string[] {
  if (rows.length === 0) return [`### ${TITLES[kind]}`, '', 'No changes.', ''];
  const counts = new Map<string, number>();
  for (const r of rows) counts.set(r[0]!, (counts.get(r[0]!) ?? 0) + 1);
  const summary = [...counts].map(([op, n]) => `${n} to ${op}`).join(', ');
  return [
    `### ${TITLES[kind]}`,
    '',
    `<details open><summary>${summary}</summary>`,
    '',
    ...table(['Change', 'Key', 'Remote id', 'Object', 'Note', 'From'], rows),
    '',
    '</details>',
    '',
  ];
}

/** What a reviewer must see first: what blocks apply, and what changed in the UI. */
function blockersAndDrift(plan: Plan, names: InboxNames): string[] {
  const out: string[] = [];
  if (plan.blockers.length > 0) {
    out.push(
      '> [!CAUTION]',
      '> **Blocked**: apply refuses until each of these is resolved (adopt the holder with `adopt:`, run apply --prune-unmanaged, or leave the channel out).',
      '',
      ...table(
        ['Key', 'Channel', 'Held by'],
        plan.blockers.map((b) => [
          code(b.key),
          `${names.get(b.channel.inbox_id) ?? b.channel.inbox_id} ${b.channel.channel}`,
          `"${b.holder_name}" [${b.holder_id}]`,
        ]),
      ),
      '',
    );
  }
  if (plan.drift.length > 0) {
    out.push(
      '> [!WARNING]',
      '> **Drift**: changed in the UI since the last apply; this plan restores the configuration.',
      '',
      ...table(
        ['Kind', 'Key', 'Remote id', 'What'],
        plan.drift.map((d) => [
          TITLES[d.kind],
          code(d.key),
          d.remote_id,
          d.what === 'deleted' ? 'deleted' : `changed: ${d.fields.join(', ')}`,
        ]),
      ),
      '',
    );
  }
  return out;
}

/**
 * The plan as a pull-request comment. A plan longer than GitHub's comment limit
 * is cut to its headline, blockers, drift and counts, with where the whole plan is.
 */
export function formatPlanMarkdown(plan: Plan, names: InboxNames = new Map(), context: PlanContext = {}): string {
  const full = fullPlanMarkdown(plan, names, context);
  if (full.length <= GITHUB_COMMENT_LIMIT - WORKFLOW_LINES_ROOM) return full;
  const c = countActions(plan);
  const summary = [
    ...head(plan, context),
    ...blockersAndDrift(plan, names),
    `The whole plan is ${full.length} characters, more than fits in a comment (GitHub's limit is ${GITHUB_COMMENT_LIMIT}): ` +
      `${c.create} to create, ${c.update} to update, ${c.delete} to delete. ` +
      (context.runUrl
        ? `Read it in [this run](${context.runUrl}) (\`helpdesk-sync plan\` prints it as text).`
        : 'Run `helpdesk-sync plan` to read it as text.'),
  ];
  return `${summary.join('\n').trimEnd()}\n`;
}

function fullPlanMarkdown(plan: Plan, names: InboxNames, context: PlanContext): string {
  const out: string[] = [...head(plan, context), ...blockersAndDrift(plan, names)];
  for (const kind of plan.kinds) {
    const rows = plan.actions
      .filter((a) => a.kind === kind)
      .map((a) => row(a, names))
      .filter((r): r is string[] => r !== undefined);
    out.push(...kindSection(kind, rows));
  }
  for (const h of plan.adopt_hints) {
    out.push(
      md(
        `Adopt instead of create: every channel of ${code(h.key)} is held by unmanaged profile "${h.remote_name.replace(/\r?\n/g, ' ')}" [${h.remote_id}]. Add to that entry:`,
      ),
      '',
      '```yaml',
      h.line,
      '```',
      '',
    );
  }
  out.push(...remoteList(`Unmanaged remote objects (${pruneNote(plan, 'unmanaged')})`, plan.unmanaged, names));
  out.push(...remoteList(`Removed from the config (${pruneNote(plan, 'removed')})`, plan.removed, names));
  if (plan.warnings?.length) out.push('### Skipped', '', ...plan.warnings.map((w) => `- ${cell(w)}`), '');
  return `${out.join('\n').trimEnd()}\n`;
}
