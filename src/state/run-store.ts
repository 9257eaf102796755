import type { StoredFile } from './checkpoint-store.js';
import type { StateDb } from './database.js';

export type RunStatus = 'running' | 'finished' | 'failed' | 'aborted' | 'crashed';

export interface RunRecord {
  run_id: string;
  started_at: string;
  finished_at: string | null;
  status: RunStatus;
  manifest_state: 'writing' | 'written' | null;
  summary_json: string | null;
}

/**
 * Runs and their manifests. A manifest lists every committed file that no
 * manifest listed yet. To never list a file twice, even across a crash, the files
 * are claimed (manifest_run_id set, run marked `writing`) BEFORE the manifest is
 * uploaded; after the upload the run is marked `written`. Recovery resolves a run
 * left `writing` by looking for its manifest in the sink: present → written,
 * absent → the claim is released and the next manifest lists those files.
 */
export function createRunStore(state: StateDb) {
  const { db } = state;
  const insert = db.prepare("INSERT INTO runs (run_id, started_at, status) VALUES (?, ?, 'running')");
  const get = db.prepare<[string], RunRecord>('SELECT * FROM runs WHERE run_id = ?');
  const setStatus = db.prepare('UPDATE runs SET status = ?, finished_at = ?, summary_json = ? WHERE run_id = ?');
  const setManifest = db.prepare('UPDATE runs SET manifest_state = ? WHERE run_id = ?');
  const claim = db.prepare(
    "UPDATE files SET manifest_run_id = ? WHERE status = 'committed' AND manifest_run_id IS NULL",
  );
  const claimed = db.prepare<[string], StoredFile>(
    "SELECT * FROM files WHERE manifest_run_id = ? AND status = 'committed' ORDER BY key",
  );
  const release = db.prepare('UPDATE files SET manifest_run_id = NULL WHERE manifest_run_id = ?');
  const writing = db.prepare<[], RunRecord>("SELECT * FROM runs WHERE manifest_state = 'writing' ORDER BY run_id");
  const running = db.prepare<[string], RunRecord>(
    "SELECT * FROM runs WHERE status = 'running' AND run_id <> ? ORDER BY run_id",
  );

  return {
    begin: (runId: string, startedAt: string): void => {
      insert.run(runId, startedAt);
    },
    get: (runId: string): RunRecord | undefined => get.get(runId),
    end: (runId: string, status: RunStatus, finishedAt: string, summary?: unknown): void => {
      setStatus.run(status, finishedAt, summary === undefined ? null : JSON.stringify(summary), runId);
    },
    /** Claims every committed, unlisted file for this run's manifest and returns them. */
    claimForManifest: db.transaction((runId: string): StoredFile[] => {
      setManifest.run('writing', runId);
      claim.run(runId);
      return claimed.all(runId);
    }),
    /** The manifest is in the sink: the run is finished. */
    confirmManifest: db.transaction((runId: string, finishedAt: string, summary?: unknown): void => {
      setManifest.run('written', runId);
      setStatus.run('finished', finishedAt, summary === undefined ? null : JSON.stringify(summary), runId);
    }),
    /** The manifest is not in the sink: its files go back to "unlisted". */
    releaseClaim: db.transaction((runId: string): void => {
      release.run(runId);
      setManifest.run(null, runId);
    }),
    writingManifest: (): RunRecord[] => writing.all(),
    /** Runs left `running` by a process that died (the run lock guarantees they are not live). */
    staleRunning: (currentRunId = ''): RunRecord[] => running.all(currentRunId),
  };
}

export type RunStore = ReturnType<typeof createRunStore>;
