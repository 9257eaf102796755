/**
 * Request counts of the sandbox, shape fixed by docs/sandbox.md:
 * `{total, by_status: {"200": n}, by_route: {"GET /v1/me": {"200": n}}, by_ip: {"127.0.0.1": {total, "429": n}}}`.
 * Statuses are strings; a connection reset by fault injection counts as "reset".
 * Every by_ip entry carries "429" (0 when none) next to the statuses it saw.
 */
export interface SandboxStats {
  total: number;
  by_status: Record<string, number>;
  by_route: Record<string, Record<string, number>>;
  by_ip: Record<string, Record<string, number> & { total: number; '429': number }>;
}

function bump(map: Record<string, number>, key: string): void {
  map[key] = (map[key] ?? 0) + 1;
}

export class StatsRecorder {
  private stats: SandboxStats = StatsRecorder.empty();

  private static empty(): SandboxStats {
    return { total: 0, by_status: {}, by_route: {}, by_ip: {} };
  }

  /** `route` is "METHOD /v1/template", e.g. "GET /v1/conversation/:conversation_id/messages". */
  record(route: string, status: string, ip: string): void {
    const s = this.stats;
    s.total += 1;
    bump(s.by_status, status);
    const perRoute = s.by_route[route] ?? {};
    s.by_route[route] = perRoute;
    bump(perRoute, status);
    const perIp = s.by_ip[ip] ?? { total: 0, '429': 0 };
    s.by_ip[ip] = perIp;
    perIp.total += 1;
    bump(perIp, status);
  }

  /** A deep copy, so callers can keep it while counting goes on. */
  snapshot(): SandboxStats {
    return structuredClone(this.stats);
  }

  reset(): void {
    this.stats = StatsRecorder.empty();
  }
}
