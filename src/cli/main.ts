#!/usr/bin/env node
import { CommanderError } from 'commander';
import { ExitCode } from '../errors.js';
import { tuneGarbageCollector } from './gc-tuning.js';
import { buildProgram } from './program.js';

tuneGarbageCollector();

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
