import type { Warehouse } from './warehouse.js';

/**
 * What `load` needs of an engine it writes into, in the engine's folder
 * (`src/warehouse/<name>/<name>-target.ts`): the text that names a target
 * (`load.into`, `--into`), how it is shown, and how it is opened. The config
 * reads the targets to check `load.into`, so a target file imports nothing
 * heavy: `open` loads the engine's connection and driver when a load runs.
 */
export interface EngineTarget<T extends { readonly kind: string }, Drivers> {
  /** The engine's name (its key in the registry, src/warehouse/engines.ts). */
  readonly kind: T['kind'];
  /** The engine as a person names it, in messages. */
  readonly title: string;
  /** What a text naming such a target looks like, in messages and help (`duckdb:<file>`). */
  readonly form: string;
  /** The target `text` names, what is wrong with it, or undefined when the text is not this engine's. */
  parse(text: string): { target: T } | { problem: string } | undefined;
  /** The text naming `target`, which parse reads back. */
  text(target: T): string;
  /** The target for logs and summaries: a connection string without its password. */
  describe(target: T): string;
  /** Opens the target and takes its load lock (a LockHeldError when another load holds it). */
  open(target: T, drivers: Drivers): Promise<Warehouse>;
  /** An embedded engine's database file in `dir`, named `stem` (the registry's default target); absent elsewhere. */
  fileBeside?(dir: string, stem: string): T;
}
