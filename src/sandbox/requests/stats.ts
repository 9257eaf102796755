/** Requests of one client IP or one organization: `total` and `"429"` (0 when none) next to the statuses seen. */
export type CountsOf = Record<string, number> & { total: number; '429': number };

/**
 * Request counts of the sandbox, shape fixed by docs/sandbox.md:
 * `{total, by_status: {"200": n}, by_route: {"GET /v1/me": {"200": n}}, by_ip: {"127.0.0.1": {total, "429": n}},
 * by_organization: {"acme": {total, "429": n}}}`.
 * Statuses are strings; a connection reset by fault injection counts as "reset".
 * by_organization counts requests by the organization of their token, refused
 * ones included; a request without a valid token is not in it.
 */
export interface SandboxStats {
  total: number;
  by_status: Record<string, number>;
  by_route: Record<string, Record<string, number>>;
  by_ip: Record<string, CountsOf>;
  by_organization: Record<string, CountsOf>;
}

function bump(map: Record<string, number>, key: string): void {
  map[key] = (map[key] ?? 0) + 1;
}

function count(map: Record<string, CountsOf>, key: string, status: string): void {
  const counts = map[key] ?? { total: 0, '429': 0 };
  map[key] = counts;
  counts.total += 1;
  bump(counts, status);
}

export class StatsRecorder {
  private stats: SandboxStats = StatsRecorder.empty();

  private static empty(): SandboxStats {
    return { total: 0, by_status: {}, by_route: {}, by_ip: {}, by_organization: {} };
  }

  /**
   * `route` is "METHOD /v1/template", e.g. "GET /v1/conversation/:conversation_id/messages";
   * `organization` the slug of the token's organization, when the request carried a valid token.
   */
  record(route: string, status: string, ip: string, organization?: string): void {
    const s = this.stats;
    s.total += 1;
    bump(s.by_status, status);
    const perRoute = s.by_route[route] ?? {};
    s.by_route[route] = perRoute;
    bump(perRoute, status);
    count(s.by_ip, ip, status);
    if (organization !== undefined) count(s.by_organization, organization, status);
  }

  /** A deep copy, so callers can keep it while counting goes on. */
  snapshot(): SandboxStats {
    return structuredClone(this.stats);
  }

  reset(): void {
    this.stats = StatsRecorder.empty();
  }
}
