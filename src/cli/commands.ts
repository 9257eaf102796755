import type { Command } from 'commander';
import { registerApplyCommand } from './apply.js';
import { registerCheckCommand } from './check.js';
import { registerDaemonCommand } from './daemon.js';
import { registerLoadCommand } from './load.js';
import { registerPlanCommand } from './plan.js';
import { registerReportCommand } from './report.js';
import { registerSandboxCommand } from './sandbox.js';
import { registerSchemasCommand } from './schemas.js';
import { registerStateCommand } from './state.js';
import { registerSyncCommand } from './sync.js';
import { registerVerifyCommand } from './verify.js';

/** One place that adds every command; each lives in its own file (README.md). */
export function registerCommands(program: Command): void {
  registerSyncCommand(program);
  registerLoadCommand(program);
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
