/** Seeded data ends here; conversations spread over the year before it (fixed, so a seed always means the same data). */
export const SEED_END_MS = Date.UTC(2026, 10, 1);
export const SEED_SPAN_MS = 365 * 86_400_000;
