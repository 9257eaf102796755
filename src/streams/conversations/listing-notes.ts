import type { Emit } from '../types.js';
import type { ConversationListing } from './conversation-listing.js';
import type { ScanSettings } from './process-conversation.js';

/** Warning code of a conversation list page skipped, or a pass ended, for a body that stayed unreadable. */
export const PAGE_UNREADABLE = 'PAGE_UNREADABLE';

/**
 * What one pass over the conversation list did beyond reading its pages, told
 * once the pass is over: the ranges it re-read (counted in the summary's
 * `listing_repairs` and `listing_recovered`) and the pages it could not read
 * (`unreadable_skipped`, a `PAGE_UNREADABLE` warning each). A skipped page's
 * conversations keep their rows: no deletion is looked for in that run.
 */
export function* listingNotes(s: ScanSettings, listing: ConversationListing): Generator<Emit> {
  const metrics = s.ctx.metrics;
  for (const repair of listing.repairs) {
    metrics?.count('listing_repairs');
    metrics?.count('listing_recovered', repair.recovered);
    s.ctx.log.info(
      { event: 'listing.repair', ...repair },
      `conversation listing: positions ${repair.from}-${repair.to} were in no page read; re-read, ${repair.recovered} found`,
    );
  }
  for (const skip of listing.skipped) {
    metrics?.count('unreadable_skipped');
    const message =
      `conversation list page ${skip.page} (${skip.items} conversations) stayed unreadable after the retries ` +
      `(${reasonOf(skip.error)}); skipped, read by the next run; nothing is tombstoned this run`;
    s.ctx.log.warn({ code: PAGE_UNREADABLE, page: skip.page }, message);
    yield { kind: 'warning', code: PAGE_UNREADABLE, message };
  }
  if (listing.unreadableEnd !== undefined) {
    metrics?.count('unreadable_skipped');
    const message =
      `the conversation listing stopped at page ${listing.currentPage + (listing.page ? 1 : 0)}, whose body stayed ` +
      `unreadable after the retries (${reasonOf(listing.unreadableEnd)}); the next run reads the list again; ` +
      'nothing is tombstoned this run';
    s.ctx.log.warn({ code: PAGE_UNREADABLE }, message);
    yield { kind: 'warning', code: PAGE_UNREADABLE, message };
  }
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
