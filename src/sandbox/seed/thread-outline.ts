import type { Inbox } from '../model/model.js';
import { type Rng, rngFor } from '../model/random.js';
import { messageText } from './build-message.js';
import { FLAG_SPAM, STATUS_CLOSED, STATUS_PENDING } from './conversation-table.js';
import { SUBJECTS } from './names.js';
import { planThread, type ThreadPlanStep } from './plan-thread.js';
import type { SeedContext } from './seed-context.js';

/** The cheap first part of a seeded conversation: enough for text search without building the thread. */
export interface ThreadOutline {
  rng: Rng;
  inbox: Inbox;
  subject: string;
  channel: 'email' | 'livechat';
  tags: string[];
  steps: ThreadPlanStep[];
  gaps: number[];
}

export function threadOutline(ctx: SeedContext, index: number): ThreadOutline {
  const { seed, world, table } = ctx;
  const rng = rngFor(seed, 'thread', index);
  const inbox = world.inboxes[table.inbox[index]!]!;
  const subject = rng.pick(SUBJECTS);
  const channel = rng.chance(0.7) ? 'email' : 'livechat';
  const tags = world.tags.filter((t) => t.inbox_id === inbox.id && rng.chance(0.2)).map((t) => t.id);
  const status = table.status[index]!;
  const { steps, gaps } = planThread(rng, {
    assigned: table.assignee[index]! >= 0,
    tagged: tags.length > 0,
    closed: status === STATUS_CLOSED,
    pending: status === STATUS_PENDING,
    spam: (table.flags[index]! & FLAG_SPAM) !== 0,
  });
  return { rng, inbox, subject, channel, tags, steps, gaps };
}

/** Subject and last message text of a seeded conversation, without generating its thread. */
export function seededText(ctx: SeedContext, index: number): { subject: string; lastText: string } {
  const { steps, subject } = threadOutline(ctx, index);
  for (let k = steps.length - 1; k >= 0; k--) {
    const step = steps[k];
    if (step === 'inbound' || step === 'outbound' || step === 'note') {
      return { subject, lastText: messageText(ctx.seed, step, index * 64 + k) };
    }
  }
  return { subject, lastText: '' };
}
