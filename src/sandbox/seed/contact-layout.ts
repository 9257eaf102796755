/** Which contact indexes belong to which organization: one contiguous range each. */
export interface ContactLayout {
  ranges: Array<{ start: number; count: number }>;
  /** Seeded contacts; contacts created through the API get indexes from here on. */
  total: number;
}

/** Share of conversations (and so contacts) that belongs to organization 1 when no sizes are given. */
export const FIRST_ORG_SHARE = 0.85;

/** About three conversations per contact, so contacts are shared across conversations. */
export function contactLayout(conversations: number): ContactLayout {
  const first = Math.max(12, Math.ceil((conversations * FIRST_ORG_SHARE) / 3));
  const second = Math.max(6, Math.ceil((conversations * (1 - FIRST_ORG_SHARE)) / 3));
  return {
    ranges: [
      { start: 0, count: first },
      { start: first, count: second },
    ],
    total: first + second,
  };
}

/**
 * With each organization's size given: about three conversations per contact
 * in every organization, and at least six contacts even in an empty one.
 */
export function contactLayoutOfSizes(sizes: readonly number[]): ContactLayout {
  const ranges: ContactLayout['ranges'] = [];
  let start = 0;
  for (const size of sizes) {
    const count = Math.max(6, Math.ceil(size / 3));
    ranges.push({ start, count });
    start += count;
  }
  return { ranges, total: start };
}

export function organizationOfContact(layout: ContactLayout, index: number): number | undefined {
  const found = layout.ranges.findIndex((r) => index >= r.start && index < r.start + r.count);
  return found === -1 ? undefined : found;
}
