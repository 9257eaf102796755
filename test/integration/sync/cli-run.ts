import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
// The built entry point, as the package's bin runs it (the integration project's global setup
// builds dist/ first when a source is newer).
const main = `${root}dist/cli/main.js`;

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built CLI in a child process, as a user would run the binary.
 * `onStart` gets the child, e.g. to send it a signal later.
 */
export function runCli(
  args: string[],
  options: {
    env?: NodeJS.ProcessEnv;
    onStart?: (child: ReturnType<typeof spawn>) => void;
    /** Working directory of the child. @default this process's */
    cwd?: string;
  } = {},
): Promise<CliResult> {
  return runProcess(process.execPath, [main, ...args], options);
}

/** Runs a command in a child process and collects its output and how it ended. */
export function runProcess(
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; onStart?: (child: ReturnType<typeof spawn>) => void; cwd?: string } = {},
): Promise<CliResult> {
  const child = spawn(command, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => {
    stdout += c;
  });
  child.stderr.on('data', (c) => {
    stderr += c;
  });
  options.onStart?.(child);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}
