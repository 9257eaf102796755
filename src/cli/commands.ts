import type { Command } from 'commander';

/** One place that adds every command; each lives in its own file. */
export function registerCommands(program: Command): void {
  void program;
}
