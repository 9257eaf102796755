import type { Rng } from '../model/random.js';

export type ThreadPlanStep = 'inbound' | 'outbound' | 'note' | 'assigned' | 'tagged' | 'closed' | 'pending' | 'spam';

export interface ThreadShape {
  assigned: boolean;
  tagged: boolean;
  closed: boolean;
  pending: boolean;
  spam: boolean;
}

/** At most this many events per seeded thread (message ids reserve 64 slots per conversation). */
const MAX_STEPS = 24;

/**
 * The order of a seeded thread: the customer writes first, then assignment and
 * tagging, then rounds of replies (with an occasional note), and the status
 * change that explains the conversation's current status last. `gaps[k]` is the
 * time in ms between step k-1 and step k.
 */
export function planThread(rng: Rng, shape: ThreadShape): { steps: ThreadPlanStep[]; gaps: number[] } {
  const steps: ThreadPlanStep[] = ['inbound'];
  if (shape.assigned) steps.push('assigned');
  if (shape.tagged) steps.push('tagged');
  if (shape.spam) {
    steps.push('spam');
  } else {
    const rounds = shape.closed ? (rng.chance(0.45) ? 1 : rng.int(2, 4)) : rng.int(0, 3);
    for (let r = 0; r < rounds && steps.length < MAX_STEPS - 3; r++) {
      if (rng.chance(0.2)) steps.push('note');
      steps.push('outbound');
      const last = r === rounds - 1;
      if (!last || (!shape.closed && rng.chance(0.5))) steps.push('inbound');
    }
  }
  if (shape.closed) steps.push('closed');
  else if (shape.pending) steps.push('pending');
  const gaps = steps.map((step, k) => {
    if (k === 0) return 0;
    if (step === 'assigned' || step === 'tagged') return rng.int(1, 20) * 60_000;
    return rng.int(5, 600) * 60_000;
  });
  return { steps, gaps };
}
