import type { Emit } from '../types.js';
import { ConversationListing, PAGE_SIZE } from './conversation-listing.js';
import type { ConversationScan } from './conversation-scan.js';
import { readHoles } from './listing-holes.js';

/**
 * Before the listing, the holes the last complete listing left (positions no
 * page and no re-read served; ./listing-holes.ts) are read again: the pages
 * holding each, in the order they were counted in. What they hold now is
 * handled like any listed conversation (unchanged ones cost nothing more), so
 * a hole that has closed since is filled first, before anything else of the
 * run (an interruption, the deadline) can stop it. The listing that follows
 * lists them again; they are counted as repeats that prove no shift.
 */
export async function* rereadHoles(scan: ConversationScan): AsyncIterable<Emit> {
  const { ctx } = scan.s;
  const record = readHoles(ctx.state);
  if (!record) return;
  for (const hole of record.holes) {
    if (scan.s.signal.aborted) return;
    const startPage = Math.floor((hole.from - 1) / PAGE_SIZE) + 1;
    const maxPages = Math.floor((hole.to - 1) / PAGE_SIZE) + 1 - startPage + 1;
    const listing = new ConversationListing(ctx.api, scan.s.signal, { sort: record.sort, startPage, maxPages });
    yield* scan.listed(listing, undefined, 'holes');
    ctx.log.info(
      { event: 'listing.holes_reread', ...hole, pages: listing.pagesRead, listed: listing.served },
      `conversation listing: re-read first positions ${hole.from}-${hole.to}, where the last run missed ${hole.missing}: ` +
        `${listing.pagesRead} pages, ${listing.served} conversations`,
    );
  }
}
