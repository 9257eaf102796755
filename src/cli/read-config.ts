import { loadConfig, loadConfigFile, type ParsedConfigFile } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { parquetEngineConfigRule } from '../output/parquet/parquet-engine-rule.js';
import { HASH_KEY_VARIABLE, privacyConfigRule } from '../output/privacy/privacy-issues.js';
import { historyConfigRule } from '../warehouse/history/history-tables.js';
import { noteConfigRead } from './command-context.js';

/**
 * The config file as every command reads it: the schema, the cross-field rules and
 * the rules of the layers that know more than the config layer (the privacy policy
 * against the output tables), every problem in one ConfigError (exit 64).
 * `writesRows`: the command normalizes rows, so a `hash` policy needs its key now, and
 * Parquet files their engine.
 */
export function readConfig(path: string, options: { writesRows?: boolean } = {}, env = process.env): Config {
  return loadConfig(path, env, rulesFor(options));
}

/** The config file with every account it lists (the commands that run several accounts read it so). */
export function readConfigFile(
  path: string,
  options: { writesRows?: boolean } = {},
  env = process.env,
): ParsedConfigFile {
  const parsed = loadConfigFile(path, env, rulesFor(options));
  noteConfigRead(path, parsed);
  return parsed;
}

function rulesFor(options: { writesRows?: boolean }) {
  const writes = options.writesRows === true;
  return [privacyConfigRule(writes), parquetEngineConfigRule(writes), historyConfigRule];
}

/** The key of the privacy policy's `hash`, from the environment (never from the file). */
export function hashKeyFrom(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env[HASH_KEY_VARIABLE];
}
