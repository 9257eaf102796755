import { type Command, Option } from 'commander';
import { DEFAULT_TARGET_WORDS, TARGET_TITLES } from '../../config/load-target.js';
import { QUERY_FORMATS, type QueryFormat } from '../../load/format-query-result.js';
import { configOption } from '../options.js';
import { readConfigFile } from '../read-config.js';
import { runCommand } from '../run-command.js';

interface QueryFlags {
  config: string;
  into?: string;
  format: QueryFormat;
}

/**
 * `helpdesk-sync query "SQL"`: the step after `load`, on a machine with nothing
 * but `npm ci`: DuckDB through the package the load uses, PostgreSQL through pg.
 * It reads only (docs/loading.md, "Query the warehouse").
 */
export function registerQueryCommand(program: Command): void {
  program
    .command('query')
    .description(`run SQL on the load target (read-only: ${TARGET_TITLES}) and print the rows`)
    .argument('<sql>', 'the query, e.g. "SELECT status, count(*) FROM conversations GROUP BY status"')
    .addOption(configOption())
    .option(
      '--into <target>',
      `the target to query, as load takes it (default: load.into, else ${DEFAULT_TARGET_WORDS}); no config is read then`,
    )
    .addOption(
      new Option('--format <format>', 'table (aligned, for a person), json or csv (for programs)')
        .choices(QUERY_FORMATS)
        .default('table'),
    )
    .action((sql: string, flags: QueryFlags) =>
      runCommand(async () => {
        const [{ queryJob }, { intoTarget, loadOfConfigFile, resolveLoadTarget }, { formatQueryResult }] =
          await Promise.all([
            import('../../load/query-job.js'),
            import('../../load/load-job.js'),
            import('../../load/format-query-result.js'),
          ]);
        // --into names the target whole: the config (which may not exist here) is not needed.
        const target =
          flags.into === undefined
            ? resolveLoadTarget(loadOfConfigFile(readConfigFile(flags.config)).config)
            : intoTarget(flags.into);
        const { result } = await queryJob(target, { sql });
        process.stdout.write(formatQueryResult(result, flags.format));
        return 0;
      }),
    );
}
