import { spreadStartAt } from './window-math.js';
import type { Window } from './window-types.js';

/** What startInWindow weighs (see WindowBudget). */
export interface RoomInput {
  now: number;
  win: Window;
  /** The window's latest end, when its length is known. */
  end: number | undefined;
  /** Our share of one window. */
  share: number;
  /** Our last sequence number handed out, and when our last request started. */
  seq: number;
  lastStartAt: number | undefined;
  /** The other clients' pace, in requests per ms. */
  othersRatePerMs: number;
  /** Others are seen (or looked for): spread our starts and keep `reserve` for them. */
  shared: boolean;
  reserve: number;
}

/**
 * When the next request may start in a window a reply showed: now while both
 * our share and the server's room last (spread over the rest of the window
 * while others are seen, so their requests keep finding room and their pace
 * stays measured); else the window's end, when known; 'spent' when the
 * server's room is gone and nothing says when it comes back.
 */
export function startInWindow(i: RoomInput): number | 'spent' {
  const { now, win, end } = i;
  const until = end ?? win.shareUntil;
  const shareLeft = i.share - (i.seq - win.shareFromSeq + 1);
  const othersToCome = i.othersRatePerMs * Math.max(0, until - now);
  const reserve = i.shared ? i.reserve : 0;
  const serverLeft = win.remaining - win.uncertain - (i.seq - win.seq) - othersToCome - reserve;
  if (shareLeft >= 1 && serverLeft >= 1) {
    if (!i.shared || i.lastStartAt === undefined) return now;
    return spreadStartAt(now, i.lastStartAt, until, Math.min(shareLeft, serverLeft));
  }
  if (end !== undefined) return end;
  return serverLeft >= 1 ? win.shareUntil : 'spent';
}
