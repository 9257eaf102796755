/** What one response tells the WindowBudget (see window-budget.ts). */
export interface BudgetObservation {
  /** Sequence number from noteStart(). */
  seq: number;
  /** X-RateLimit-Remaining; undefined when the response had none. */
  remaining: number | undefined;
  /** X-RateLimit-Limit, a count per window. */
  limit: number | undefined;
  sentAt: number;
  receivedAt: number;
}
