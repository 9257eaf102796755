import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Another integration on the same IP that knows nothing of us: a plain loop
 * calling GET /me once every `everyMs`, evenly, counting what it got. Used by
 * the shared-budget test and the pacing benchmark.
 */
export function startCompetingClient(baseUrl: string, everyMs: number) {
  const counts = { ok: 0, limited: 0 };
  const controller = new AbortController();
  const done = (async () => {
    while (!controller.signal.aborted) {
      const started = performance.now();
      const response = await fetch(`${baseUrl}/me`, { headers: { authorization: 'Bearer sandbox-agent' } });
      await response.arrayBuffer();
      if (response.status === 429) counts.limited += 1;
      else counts.ok += 1;
      const wait = Math.max(0, everyMs - (performance.now() - started));
      await sleep(wait, undefined, { signal: controller.signal }).catch(() => undefined);
    }
  })();
  return {
    counts,
    async stop() {
      controller.abort();
      await done;
    },
  };
}
