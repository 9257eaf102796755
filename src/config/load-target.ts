import { DEFAULT_TARGET, LOAD_TARGETS, type LoadTarget, targetEngine } from '../warehouse/engines.js';

/**
 * Where `load` writes: a target of one of the engines the registry lists
 * (src/warehouse/engines.ts), named by a text such as `duckdb:<path>` (the
 * embedded default) or a connection string (usually interpolated from the
 * environment so its password stays out of the file).
 */
export type { LoadTarget };

/** Where a load's target came from, said in its summary. */
export type LoadTargetOrigin = '--into' | 'load.into' | 'default';

/** What a target's text looks like, every engine's form (`load.into`, `--into` and their help). */
export const TARGET_FORMS = LOAD_TARGETS.map((t) => t.form).join(' or ');
/** The engines `load` writes into, by the names a person knows them by. */
export const TARGET_TITLES = LOAD_TARGETS.map((t) => t.title).join(' or ');
/** The embedded default, in words (src/config/default-load-target.ts). */
export const DEFAULT_TARGET_WORDS = `a ${DEFAULT_TARGET.title} file beside the state`;

/** The target a `load.into` / `--into` text names, or what is wrong with it. */
export function parseLoadTarget(text: string): { target: LoadTarget } | { problem: string } {
  for (const engine of LOAD_TARGETS) {
    const parsed = engine.parse(text);
    if (parsed !== undefined) return parsed;
  }
  return { problem: `expected ${TARGET_FORMS}` };
}

/** The target for logs and summaries: a connection string without its password. */
export function describeLoadTarget(target: LoadTarget): string {
  return targetEngine(target).describe(target);
}

/** The text naming `target`, which parseLoadTarget reads back. */
export function loadTargetText(target: LoadTarget): string {
  return targetEngine(target).text(target);
}
