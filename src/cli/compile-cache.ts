import nodeModule from 'node:module';

/** What `enableCompileCache` needs of node:module (Node 22.1 and later; @types/node 20 lacks it). */
interface CompileCacheHost {
  enableCompileCache?: () => unknown;
}

/**
 * Keeps V8's compiled code of the CLI's modules on disk between runs (Node's compile cache, in
 * `node-compile-cache` under the temp directory, as npm does for its own CLI): every command
 * starts by loading a few hundred modules, and a run that finds them compiled spends about a
 * fifth less CPU on it (`--version` on Node 24: 0.45 against 0.36 CPU-s). Node 20 has no such
 * cache: there it does nothing. A cache that cannot be written (a read-only disk) only means
 * compiling as before; NODE_DISABLE_COMPILE_CACHE=1 turns it off. Returns whether it was asked.
 */
export function enableCompileCache(host: CompileCacheHost = nodeModule as CompileCacheHost): boolean {
  if (typeof host.enableCompileCache !== 'function') return false;
  try {
    host.enableCompileCache();
  } catch {
    // Node reports an unusable directory in its return value; a throw is no reason to stop a run either.
  }
  return true;
}
