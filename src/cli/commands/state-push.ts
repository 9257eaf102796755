import { type Command, InvalidArgumentError } from 'commander';
import { PUSH_STATE_KINDS } from '../../push/choices.js';
import type { ResourceKind, ResourceStore } from '../../push/index.js';
import { cliLogger } from '../cli-logger.js';
import { configOption } from '../options.js';
import { readConfig } from '../read-config.js';
import { runCommand } from '../run-command.js';

function kindArgument(value: string): ResourceKind {
  if (!(PUSH_STATE_KINDS as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`expected ${PUSH_STATE_KINDS.join(' or ')}`);
  }
  return value as ResourceKind;
}

type Push = typeof import('../../push/index.js');

function runEdit(
  configPath: string,
  command: string,
  edit: (store: ResourceStore, push: Push) => string,
): Promise<void> {
  return runCommand(async () => {
    const config = readConfig(configPath);
    const push = await import('../../push/index.js');
    const message = await push.editPushStateJob(config, cliLogger(config.log.level), command, (store) =>
      edit(store, push),
    );
    process.stdout.write(`${message}\n`);
    return 0;
  });
}

/** `state rm` and `state mv`: the key → remote id mappings of business hours and holidays. */
export function registerPushStateCommands(state: Command): void {
  state
    .command('rm')
    .description('forget the mapping of a business_hours or holiday key; the remote object is left as it is')
    .argument('<kind>', PUSH_STATE_KINDS.join(' or '), kindArgument)
    .argument('<key>', 'the key in the push file')
    .addOption(configOption())
    .action((kind: ResourceKind, key: string, flags: { config: string }) =>
      runEdit(flags.config, 'state rm', (store, push) => push.removePushMapping(store, kind, key)),
    );
  state
    .command('mv')
    .description('give the mapping of a business_hours or holiday key a new key (same remote object)')
    .argument('<kind>', PUSH_STATE_KINDS.join(' or '), kindArgument)
    .argument('<from>', 'the key state maps now')
    .argument('<to>', 'the new key')
    .addOption(configOption())
    .action((kind: ResourceKind, from: string, to: string, flags: { config: string }) =>
      runEdit(flags.config, 'state mv', (store, push) => push.movePushMapping(store, kind, from, to)),
    );
}
