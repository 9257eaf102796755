#!/usr/bin/env node
import { enableCompileCache } from './compile-cache.js';
import { tuneGarbageCollector } from './gc-tuning.js';

// Before the command line is loaded (hence the dynamic imports below), so its modules are cached.
enableCompileCache();
tuneGarbageCollector();

const [{ CommanderError }, { ExitCode }, { buildProgram }] = await Promise.all([
  import('commander'),
  import('../errors.js'),
  import('./program.js'),
]);

try {
  await buildProgram().parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // Help and version exit 0; every usage mistake is exit 64 (EX_USAGE; see docs/operations.md).
    process.exitCode = error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
  } else {
    throw error;
  }
}
