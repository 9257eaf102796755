import type { Command } from 'commander';
import { registerSandboxCommand } from './sandbox.js';

/** One place that adds every command; each lives in its own file. */
export function registerCommands(program: Command): void {
  registerSandboxCommand(program);
}
