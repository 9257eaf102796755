import type { DesiredProfile } from './build-desired-state.js';
import type { ChannelRef, ProfileForm } from './normalize.js';
import type { AdoptHint, Blocker, PlanAction, Prune, RemoteObject, RemoteSummary } from './plan-types.js';

const channelId = (c: ChannelRef) => `${c.inbox_id}\u0000${c.channel}`;

/**
 * Who holds each channel the config claims, and what that means for apply
 * (a channel belongs to at most one profile: API document, Business-hours profile):
 * - a profile of the config: it gives the channel up in apply's first phase;
 * - a profile removed from the config: deleted with --prune, else a `release`
 *   update that drops just the claimed channels;
 * - an unmanaged profile: deleted with --prune-unmanaged, else a blocker. When every
 *   channel of a new config profile sits in one unmanaged profile, the plan
 *   shows the `adopt:` line that takes that profile over instead.
 */
export function planChannelMoves(
  desired: DesiredProfile[],
  remote: RemoteObject<ProfileForm>[],
  kindPlan: { actions: PlanAction[]; unmanaged: RemoteSummary[]; removed: RemoteSummary[] },
  prune: Prune,
): { releases: PlanAction[]; blockers: Blocker[]; hints: AdoptHint[] } {
  const holder = new Map<string, RemoteObject<ProfileForm>>();
  for (const r of remote) for (const c of r.form.inbox_channels) holder.set(channelId(c), r);
  const unmanaged = new Set(kindPlan.unmanaged.map((u) => u.remote_id));
  const removed = new Map(kindPlan.removed.map((r) => [r.remote_id, r]));
  const creates = new Set(kindPlan.actions.filter((a) => a.op === 'create').map((a) => a.key));
  const releases = new Map<string, Set<string>>();
  const blockers: Blocker[] = [];
  const hints: AdoptHint[] = [];

  for (const d of desired) {
    const holders = new Set<string>();
    for (const c of d.form.inbox_channels) {
      const h = holder.get(channelId(c));
      holders.add(h?.id ?? '');
      if (!h) continue;
      if (removed.has(h.id)) {
        if (prune.removed) continue;
        const set = releases.get(h.id) ?? new Set<string>();
        set.add(channelId(c));
        releases.set(h.id, set);
      } else if (unmanaged.has(h.id) && !prune.unmanaged) {
        blockers.push({ key: d.key, ref: d.ref, channel: c, holder_id: h.id, holder_name: h.form.name });
      }
    }
    const [only] = [...holders];
    if (creates.has(d.key) && holders.size === 1 && only && unmanaged.has(only)) {
      const name = remote.find((r) => r.id === only)!.form.name;
      hints.push({ key: d.key, ref: d.ref, remote_id: only, remote_name: name, line: `adopt: "${only}"` });
    }
  }

  const releaseActions: PlanAction[] = [...releases].map(([id, gone]) => {
    const r = removed.get(id)!;
    const before = r.form as ProfileForm;
    const after: ProfileForm = {
      ...before,
      inbox_channels: before.inbox_channels.filter((c) => !gone.has(channelId(c))),
    };
    return {
      op: 'update',
      kind: 'business_hours',
      key: r.key!,
      remote_id: id,
      before,
      after,
      fields: ['channels'],
      release: true,
    };
  });
  return { releases: releaseActions, blockers, hints };
}
