import type { Emit } from '../types.js';
import type { ConversationListing } from './conversation-listing.js';
import type { ScanSettings } from './process-conversation.js';
import type { ScanFacts } from './scan-completeness.js';

/**
 * What a pass over a listing needs of the run's scan (ConversationScan in
 * conversation-scan.ts): its settings, the listed conversations as
 * emits, and what the listing showed. A type of its own, so the scan and
 * recent-first-scan.ts, which it calls, do not import each other.
 */
export interface ListingScan {
  readonly s: ScanSettings;
  listed(
    listing: ConversationListing,
    onPageEnd?: (page: number) => Emit[],
    role?: 'listing' | 'holes',
  ): AsyncIterable<Emit>;
  facts(backfill?: Pick<ScanFacts, 'backfill'>): ScanFacts;
}
