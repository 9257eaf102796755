import { formatDuration } from '../format-duration.js';
import type { AccountRun, JobResult, RunOutcome } from './job-result.js';

/** What a job's runs did: rows written (tombstones included) and requests, over every run that reached its summary. */
export function jobFigures(result: JobResult): { rows: number; requests: number } | undefined {
  const summaries = result.runs.flatMap((r) => (r.summary ? [r.summary] : []));
  if (summaries.length === 0) return undefined;
  let rows = 0;
  let requests = 0;
  for (const s of summaries) {
    for (const table of Object.values(s.tables)) rows += table.rows;
    requests += s.requests.requests;
  }
  return { rows, requests };
}

const accountWords = (r: AccountRun) => `${r.account} ${r.outcome}${r.failure ? ` (${r.failure.code})` : ''}`;

/**
 * The daemon's one line per run, for a person reading its log: the job, how it ended, how long it
 * took, the rows it wrote and the requests it made; with several accounts each account's outcome,
 * and the load that followed. `sync succeeded in 1m00s: 4681 rows written, 565 requests`.
 */
export function jobLine(job: 'sync' | 'push', outcome: RunOutcome, durationMs: number, result: JobResult): string {
  const figures = jobFigures(result);
  const several = result.runs.some((r) => r.account !== undefined);
  const load = result.load;
  return (
    `${job} ${outcome} in ${formatDuration(durationMs)}` +
    (figures ? `: ${figures.rows} rows written, ${figures.requests} requests` : '') +
    (several ? `; accounts: ${result.runs.map(accountWords).join(', ')}` : '') +
    (load
      ? `; loaded ${load.manifests_loaded} manifest${load.manifests_loaded === 1 ? '' : 's'} into ${load.target}`
      : '')
  );
}
