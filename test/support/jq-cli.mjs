/**
 * The `jq` command of the emulated GitHub runner (test/integration/push/actions), whose workflows
 * and deploy/github-actions/hours-and-holidays.sh call jq as GitHub's Ubuntu runners have it.
 * A machine with only Node has none (Node's full image does not carry it), so the runner puts
 * this one first on its PATH: jq itself, compiled to WebAssembly (the devDependency jq-wasm),
 * behind jq's command line: flags, `--arg`/`--argjson`, `--rawfile` (read here and passed as
 * `--arg`: the WebAssembly jq sees no files), the filter, then input files or stdin. Exit codes
 * as jq's: 2 for input it cannot parse or a usage error, 3 for a filter that does not compile,
 * 5 for an error while running.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const jq = createRequire(import.meta.url)('jq-wasm');
const WITH_TWO = new Set(['--arg', '--argjson']);

function usage(message) {
  process.stderr.write(`jq: ${message}\n`);
  process.exit(2);
}

const flags = [];
const files = [];
let filter;
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i++) {
  const arg = args[i];
  if (filter === undefined && WITH_TWO.has(arg)) {
    if (i + 2 >= args.length) usage(`${arg} takes two parameters (e.g. ${arg} name value)`);
    flags.push(arg, args[i + 1], args[i + 2]);
    i += 2;
  } else if (filter === undefined && arg === '--rawfile') {
    if (i + 2 >= args.length) usage('--rawfile takes two parameters (e.g. --rawfile name filename)');
    flags.push('--arg', args[i + 1], readFileSync(args[i + 2], 'utf8'));
    i += 2;
  } else if (filter === undefined && /^--(slurpfile|args|jsonargs|from-file)$|^-f$/.test(arg)) {
    usage(`${arg} is not supported by this jq (test/support/jq-cli.mjs)`);
  } else if (filter === undefined && arg.startsWith('-') && arg !== '-') {
    flags.push(arg);
  } else if (filter === undefined) {
    filter = arg;
  } else {
    files.push(arg);
  }
}
if (filter === undefined) usage('no filter given');
const nullInput = flags.some((f) => f === '-n' || f === '--null-input' || /^-[a-zA-Z]*n[a-zA-Z]*$/.test(f));
const input = nullInput
  ? 'null'
  : files.length > 0
    ? files.map((f) => readFileSync(f, 'utf8')).join('\n')
    : readFileSync(0, 'utf8');
const joined = flags.some((f) => f === '-j' || f === '--join-output');

try {
  const out = await jq.raw(input, filter, flags);
  if (out !== '') process.stdout.write(joined ? out : `${out}\n`);
} catch (error) {
  const message = error.message.replace(/^Failed to execute raw query: /, '');
  process.stderr.write(`${message}\n`);
  process.exit(/compile error/.test(message) ? 3 : /parse error/.test(message) ? 2 : 5);
}
