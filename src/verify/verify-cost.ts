/** What a verify run will spend, stated before it spends it. */
export interface VerifyCost {
  /** Conversation list pages: the held conversations, 100 a page. */
  listPages: number;
  /** The full-refresh lists verify reads again: one request each, one per held inbox for a list per inbox. */
  lists: number;
  /** One thread request per sampled conversation. */
  sampleThreads: number;
  requests: number;
  /** Committed data files read back from the destination (with --output). */
  files: number;
  bytes: number;
}

export function estimateCost(input: {
  heldConversations: number;
  /** Requests of the full-refresh lists (listingRequests). */
  lists: number;
  sample: number;
  files?: ReadonlyArray<{ bytes: number }>;
}): VerifyCost {
  const listPages = Math.max(1, Math.ceil(input.heldConversations / 100));
  const { lists } = input;
  const files = input.files ?? [];
  return {
    listPages,
    lists,
    sampleThreads: input.sample,
    requests: listPages + lists + input.sample,
    files: files.length,
    bytes: files.reduce((n, f) => n + f.bytes, 0),
  };
}

/** The cost in one sentence: requests and their time at the configured rate, and what is read from the destination. */
export function describeCost(cost: VerifyCost, requestsPerMinute: number): string {
  const seconds = Math.ceil((cost.requests / requestsPerMinute) * 60);
  const time = seconds < 120 ? `${seconds}s` : `${Math.ceil(seconds / 60)} min`;
  const parts = [`${cost.listPages} conversation list pages`, `${cost.lists} dimension and tag lists`];
  if (cost.sampleThreads > 0) parts.push(`${cost.sampleThreads} threads of the sample`);
  let text =
    `verify costs about ${cost.requests} requests (~${time} at ${requestsPerMinute}/min): ${parts.join(', ')}; ` +
    'plus one request per held conversation the listing lacks';
  if (cost.files > 0)
    text += `; it reads ${cost.files} committed files (${(cost.bytes / 1e6).toFixed(1)} MB) back from the destination`;
  return text;
}
