import type { SandboxClock } from '../model/clock.js';
import type { SandboxStore } from '../store/sandbox-store.js';

/** What every route module receives. */
export interface RouteContext {
  store: SandboxStore;
  clock: SandboxClock;
}

export type IdParams<K extends string> = { Params: Record<K, string> };
