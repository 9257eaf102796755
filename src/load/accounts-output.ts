import { LoadError, LoadNoOutputError } from '../errors.js';
import type { Manifest, ManifestFile } from '../output/manifest.js';
import { accountOfManifest } from '../warehouse/pipeline.js';
import { manifestOrder, type OutputFiles } from './output-files.js';

/** One account's output, as a load reads it: its configured name (none for a config without `accounts:`) and its files. */
export interface AccountOutput {
  account?: string;
  files: OutputFiles;
}

/** The output of every account a load runs, read as one. */
export interface AccountsOutput extends OutputFiles {
  /** The account of a pending manifest's rows (accountOfManifest, knowing the account it was read as). */
  accountOf(manifest: Manifest): string | null;
}

/**
 * The output of the accounts of one config read as one (docs/output.md,
 * "Loading several accounts"): each account's manifests, under its own prefix,
 * merged into one load order (run_id's second, then started_at), each file read
 * through the sink of the account whose manifest lists it. One account reads as
 * its own output does.
 */
export function openAccountsOutput(outputs: readonly AccountOutput[]): AccountsOutput {
  const ownerOfManifest = new WeakMap<Manifest, AccountOutput>();
  const ownerOfFile = new WeakMap<ManifestFile, OutputFiles>();
  const owner = (file: ManifestFile): OutputFiles => {
    const found = ownerOfFile.get(file);
    if (!found)
      throw new LoadError(`file ${file.key} (table ${file.table}) is not listed by a manifest this load read`);
    return found;
  };
  return {
    location: outputs.map((o) => o.files.location).join(', '),
    async pendingManifests(loaded) {
      const all: Manifest[] = [];
      for (const output of outputs) {
        for (const manifest of await output.files.pendingManifests(loaded)) {
          ownerOfManifest.set(manifest, output);
          for (const file of [...manifest.files, ...manifest.rejected_files]) ownerOfFile.set(file, output.files);
          all.push(manifest);
        }
      }
      return all.sort(manifestOrder);
    },
    async requireOutput() {
      const missing: LoadNoOutputError[] = [];
      for (const output of outputs) {
        try {
          await output.files.requireOutput();
          return;
        } catch (error) {
          if (!(error instanceof LoadNoOutputError)) throw error;
          missing.push(error);
        }
      }
      // One account: its own message; several: output of none of them.
      if (missing.length === 1) throw missing[0];
      throw new LoadNoOutputError(
        `no sync output for any of the ${outputs.length} accounts:\n${missing.map((e) => `  ${e.message}`).join('\n')}`,
      );
    },
    accountOf: (manifest) => accountOfManifest(manifest, ownerOfManifest.get(manifest)?.account),
    localFile: (file) => owner(file).localFile(file),
    lineBatches: (file) => owner(file).lineBatches(file),
    async clean() {
      for (const output of outputs) await output.files.clean();
    },
  };
}
