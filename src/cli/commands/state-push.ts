import { type Command, InvalidArgumentError } from 'commander';
import type { Config } from '../../config/schema.js';
import { PUSH_STATE_KINDS } from '../../push/choices.js';
import type { ResourceKind, ResourceStore } from '../../push/index.js';
import { cliLogger } from '../cli-logger.js';
import { configOption } from '../options.js';
import { readConfigFile } from '../read-config.js';
import { runCommand } from '../run-command.js';
import { accountOption, selectAccounts } from '../select-accounts.js';

function kindArgument(value: string): ResourceKind {
  if (!(PUSH_STATE_KINDS as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`expected ${PUSH_STATE_KINDS.join(' or ')}`);
  }
  return value as ResourceKind;
}

type Push = typeof import('../../push/index.js');

function runEdit(
  flags: { config: string; account?: string },
  command: string,
  edit: (store: ResourceStore, push: Push) => string,
): Promise<void> {
  return runCommand(async () => {
    // A mapping is one account's: with several, the account is named.
    const [config] = selectAccounts(readConfigFile(flags.config), flags.account, true) as [Config];
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
    .addOption(accountOption())
    .action((kind: ResourceKind, key: string, flags: { config: string; account?: string }) =>
      runEdit(flags, 'state rm', (store, push) => push.removePushMapping(store, kind, key)),
    );
  state
    .command('mv')
    .description('give the mapping of a business_hours or holiday key a new key (same remote object)')
    .argument('<kind>', PUSH_STATE_KINDS.join(' or '), kindArgument)
    .argument('<from>', 'the key state maps now')
    .argument('<to>', 'the new key')
    .addOption(configOption())
    .addOption(accountOption())
    .action((kind: ResourceKind, from: string, to: string, flags: { config: string; account?: string }) =>
      runEdit(flags, 'state mv', (store, push) => push.movePushMapping(store, kind, from, to)),
    );
}
