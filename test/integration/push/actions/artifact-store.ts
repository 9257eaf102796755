/**
 * Artifacts kept by run id, as GitHub keeps them for actions/upload-artifact@v4 and
 * download-artifact@v4: a name is unique within a run, and an artifact is immutable once
 * uploaded (replaced only by an upload with `overwrite: true`).
 */

/** One artifact: its files by path relative to the artifact's root. */
export type ArtifactFiles = Map<string, Buffer>;

export class ArtifactStore {
  private readonly runs = new Map<number, Map<string, ArtifactFiles>>();

  get(runId: number, name: string): ArtifactFiles | undefined {
    return this.runs.get(runId)?.get(name);
  }

  names(runId: number): string[] {
    return [...(this.runs.get(runId)?.keys() ?? [])];
  }

  has(runId: number, name: string): boolean {
    return this.get(runId, name) !== undefined;
  }

  put(runId: number, name: string, files: ArtifactFiles): void {
    const run = this.runs.get(runId) ?? new Map<string, ArtifactFiles>();
    run.set(name, files);
    this.runs.set(runId, run);
  }

  /** A run's artifacts as text, for assertions: name → path → content. */
  asText(runId: number): Record<string, Record<string, string>> {
    const out: Record<string, Record<string, string>> = {};
    for (const name of this.names(runId)) {
      out[name] = Object.fromEntries([...this.get(runId, name)!].map(([path, data]) => [path, data.toString('utf8')]));
    }
    return out;
  }
}
