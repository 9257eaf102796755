import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { registerCommands } from '../../../src/cli/commands.js';
import { CONFIG_ENV } from '../../../src/cli/options.js';
import { DEFAULT_CONFIG_PATH } from '../../../src/config/load.js';

/** Every subcommand, `state show` and `state reset` included, with its --config option if it has one. */
function commandsWithConfig(): Array<{ name: string; env?: string; default?: unknown }> {
  const program = new Command();
  registerCommands(program);
  const found: Array<{ name: string; env?: string; default?: unknown }> = [];
  const visit = (command: Command, prefix: string) => {
    for (const sub of command.commands) {
      const name = `${prefix}${sub.name()}`;
      const option = sub.options.find((o) => o.long === '--config');
      if (option) found.push({ name, env: option.envVar, default: option.defaultValue });
      visit(sub, `${name} `);
    }
  };
  visit(program, '');
  return found;
}

describe('--config', () => {
  it(`every command that reads a config by default also reads ${CONFIG_ENV}`, () => {
    const commands = commandsWithConfig();
    const byDefault = commands.filter((c) => c.default !== undefined);
    expect(byDefault.map((c) => c.name).sort()).toEqual(
      [
        'apply',
        'check',
        'daemon',
        'load',
        'query',
        'plan',
        'report',
        'state mv',
        'state reset',
        'state rm',
        'state show',
        'sync',
        'verify',
      ].sort(),
    );
    for (const command of byDefault) {
      expect({ command: command.name, env: command.env, default: command.default }).toEqual({
        command: command.name,
        env: CONFIG_ENV,
        default: DEFAULT_CONFIG_PATH,
      });
    }
    // `schemas` reads a config only when given one (its privacy policy), never by default.
    expect(commands.find((c) => c.name === 'schemas')).toEqual({ name: 'schemas', env: undefined, default: undefined });
  });
});
