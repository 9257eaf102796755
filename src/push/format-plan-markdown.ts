import type { InboxNames } from './describe-write-failure.js';
import { describeForm, moveCount } from './format-plan.js';
import { countActions, type Plan, type PlanAction, planHasChanges, type RemoteSummary } from './plan-types.js';
import type { ResourceKind } from './resource-store.js';

/**
 * The plan as a Markdown comment for a pull request: one table per resource
 * kind, then drift, blockers, objects outside the config and skipped inputs.
 * It holds what the text plan holds (names, dates, ids, inbox names) and never
 * a token or the API's address.
 */

const TITLES: Record<ResourceKind, string> = { business_hours: 'Business hours', holiday: 'Holidays' };

/** A table cell: pipes escaped, line breaks flattened, so a name cannot break the table. */
const cell = (text: string) => text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
const code = (text: string) => `\`${text.replace(/`/g, "'")}\``;

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
      return ['update', key, a.remote_id, `${describeForm(a.after, names)} (${a.fields.join(', ')})`, note, from];
    }
    case 'delete':
      return [
        'delete',
        key,
        a.remote_id,
        describeForm(a.before, names),
        `${a.reason === 'removed' ? 'removed from the config' : 'unmanaged'}; --prune`,
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

export function formatPlanMarkdown(plan: Plan, names: InboxNames = new Map()): string {
  const c = countActions(plan);
  const out: string[] = [
    planHasChanges(plan)
      ? `## Plan: ${c.create} to create, ${c.update} to update, ${c.delete} to delete, ${c.adopt} to adopt, ${c.forget} to forget${moveCount(c.move)}`
      : '## No changes: the remote business hours and holidays match the configuration',
    '',
  ];
  if (plan.blockers.length > 0) {
    out.push(
      '> [!CAUTION]',
      '> **Blocked**: apply refuses until each of these is resolved (adopt the holder with `adopt:`, run apply --prune, or leave the channel out).',
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
  for (const kind of plan.kinds) {
    const rows = plan.actions
      .filter((a) => a.kind === kind)
      .map((a) => row(a, names))
      .filter((r): r is string[] => r !== undefined);
    out.push(`### ${TITLES[kind]}`, '');
    if (rows.length === 0) out.push('No changes.', '');
    else out.push(...table(['Change', 'Key', 'Remote id', 'Object', 'Note', 'From'], rows), '');
  }
  for (const h of plan.adopt_hints) {
    out.push(
      `Adopt instead of create: every channel of ${code(h.key)} is held by unmanaged profile "${cell(h.remote_name)}" [${h.remote_id}]. Add to that entry:`,
      '',
      '```yaml',
      h.line,
      '```',
      '',
    );
  }
  const pruneNote = plan.prune ? 'deleted by this plan (--prune)' : 'left alone; apply --prune deletes them';
  out.push(...remoteList(`Unmanaged remote objects (${pruneNote})`, plan.unmanaged, names));
  out.push(...remoteList(`Removed from the config (${pruneNote})`, plan.removed, names));
  if (plan.warnings?.length) out.push('### Skipped', '', ...plan.warnings.map((w) => `- ${cell(w)}`), '');
  return `${out.join('\n').trimEnd()}\n`;
}
