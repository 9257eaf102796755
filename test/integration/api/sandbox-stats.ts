/** `GET {origin}/_sandbox/stats` (docs/sandbox.md): read over HTTP, as an operator would. */
export interface SandboxStatsBody {
  total: number;
  by_status: Record<string, number>;
  by_route: Record<string, Record<string, number>>;
  by_ip: Record<string, Record<string, number>>;
}

export async function fetchSandboxStats(origin: string): Promise<SandboxStatsBody> {
  const response = await fetch(`${origin}/_sandbox/stats`);
  if (!response.ok) throw new Error(`GET /_sandbox/stats answered ${response.status}`);
  return (await response.json()) as SandboxStatsBody;
}
