import { DUCKDB_TARGET } from './duckdb/duckdb-target.js';
import { POSTGRES_TARGET } from './postgres/postgres-target.js';
import type { EngineTarget } from './target.js';

/**
 * The registry of warehouse engines, the one place outside their folders
 * (`src/warehouse/<name>/`) that names them: each engine's line here, with the
 * target `load` writes into where it has one (the others are printed scripts
 * only), and its dialect's line in `DIALECTS` (dialects.ts, which the compiler
 * holds to these names). The code above asks these for what an engine can do,
 * never for its name. Light on purpose: the config reads it to check
 * `load.into`, and a target loads its driver only when a load opens it.
 */
export const ENGINES = {
  duckdb: DUCKDB_TARGET,
  bigquery: undefined,
  snowflake: undefined,
  postgres: POSTGRES_TARGET,
} as const;

export type EngineName = keyof typeof ENGINES;
/** Every engine, in the order `schemas --format` offers them. */
export const ENGINE_NAMES = Object.keys(ENGINES) as EngineName[];

type Loadable = NonNullable<(typeof ENGINES)[EngineName]>;
type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/** A place `load` writes into, as its engine parsed it; `kind` is the engine's name. */
export type LoadTarget = TargetOf<Loadable>;
type TargetOf<E> = E extends { describe(target: infer T): string } ? T : never;
/** How the engines are reached (each target's drivers, all optional); tests replace a driver. */
export type WarehouseDrivers = Intersection<Parameters<Loadable['open']>[1]>;
type AnyTarget = EngineTarget<LoadTarget, WarehouseDrivers>;

/** The engines `load` writes into, in the order a target's text is tried. */
export const LOAD_TARGETS: readonly AnyTarget[] = Object.values(ENGINES).filter(
  (target): target is NonNullable<typeof target> => target !== undefined,
) as readonly AnyTarget[];

/** The embedded default (src/config/default-load-target.ts): a file of this engine beside the local state. */
export const DEFAULT_TARGET = DUCKDB_TARGET;

/** The engine of a target: a kind the registry does not hold is a bug, never another engine's target. */
export function targetEngine(target: LoadTarget): AnyTarget {
  const engine = LOAD_TARGETS.find((t) => t.kind === target.kind);
  if (engine === undefined) throw new Error(`no engine in the registry loads a target of kind ${target.kind}`);
  return engine;
}
