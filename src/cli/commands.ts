import type { Command } from 'commander';
import { registerApplyCommand } from './commands/apply.js';
import { registerCheckCommand } from './commands/check.js';
import { registerDaemonCommand } from './commands/daemon.js';
import { registerLoadCommand } from './commands/load.js';
import { registerPlanCommand } from './commands/plan.js';
import { registerQueryCommand } from './commands/query.js';
import { registerReportCommand } from './commands/report.js';
import { registerSandboxCommand } from './commands/sandbox.js';
import { registerSchemasCommand } from './commands/schemas.js';
import { registerStateCommand } from './commands/state.js';
import { registerSyncCommand } from './commands/sync.js';
import { registerVerifyCommand } from './commands/verify.js';

/** One place that adds every command; each lives in its own file (README.md). */
export function registerCommands(program: Command): void {
  registerSyncCommand(program);
  registerLoadCommand(program);
  registerQueryCommand(program);
  registerPlanCommand(program);
  registerApplyCommand(program);
  registerCheckCommand(program);
  registerVerifyCommand(program);
  registerDaemonCommand(program);
  registerSchemasCommand(program);
  registerStateCommand(program);
  registerReportCommand(program);
  registerSandboxCommand(program);
}
