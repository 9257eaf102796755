import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * One `run:` step: the script written to a file and run by bash as GitHub runs it
 * ("Workflow syntax", jobs.<job_id>.steps[*].shell): `bash -e {0}` when no shell is named,
 * `bash --noprofile --norc -eo pipefail {0}` for `shell: bash`. Asynchronous, so servers in
 * the test's own process (the fake GitHub) answer the script's requests meanwhile.
 */

export interface ScriptRun {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export function runScript(options: {
  script: string;
  /** The shell named by the step or the defaults; undefined when none is. */
  shell: string | undefined;
  cwd: string;
  env: Record<string, string>;
  scriptPath: string;
  timeoutMs?: number;
}): Promise<ScriptRun> {
  writeFileSync(options.scriptPath, options.script);
  const args =
    options.shell === 'bash'
      ? ['--noprofile', '--norc', '-eo', 'pipefail', options.scriptPath]
      : ['-e', options.scriptPath];
  if (!existsSync(options.cwd)) {
    return Promise.resolve({ exitCode: 1, stdout: '', stderr: `working-directory ${options.cwd} does not exist\n` });
  }
  return new Promise((resolve, reject) => {
    const child = spawn('bash', args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const timer =
      options.timeoutMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      if (signal && options.timeoutMs !== undefined) stderr += `The step timed out after ${options.timeoutMs} ms\n`;
      resolve({ exitCode: code ?? 128, stdout, stderr });
    });
  });
}

/**
 * A file command (GITHUB_OUTPUT, GITHUB_ENV) as GitHub reads it: `name=value` lines and
 * `name<<DELIMITER` … `DELIMITER` blocks. A line of neither form fails the step, as on GitHub.
 */
export function parseFileCommand(text: string, file: string): Record<string, string> {
  const values: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i]!.replace(/\r$/, '');
    if (line === '') continue;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const end = lines.findIndex((l, at) => at > i && l.replace(/\r$/, '') === heredoc[2]);
      if (end < 0) throw new Error(`Unable to process file command '${file}': no closing delimiter ${heredoc[2]}`);
      values[heredoc[1]!] = lines.slice(i + 1, end).join('\n');
      i = end;
      continue;
    }
    const at = line.indexOf('=');
    if (at <= 0) throw new Error(`Unable to process file command '${file}': invalid format '${line}'`);
    values[line.slice(0, at)] = line.slice(at + 1);
  }
  return values;
}

/** The files a step writes its outputs, environment, PATH and summary into. */
export interface CommandFiles {
  GITHUB_OUTPUT: string;
  GITHUB_ENV: string;
  GITHUB_PATH: string;
  GITHUB_STEP_SUMMARY: string;
}

export function createCommandFiles(dir: string, index: number): CommandFiles {
  const files = {
    GITHUB_OUTPUT: join(dir, `output-${index}`),
    GITHUB_ENV: join(dir, `env-${index}`),
    GITHUB_PATH: join(dir, `path-${index}`),
    GITHUB_STEP_SUMMARY: join(dir, `summary-${index}`),
  };
  for (const path of Object.values(files)) writeFileSync(path, '');
  return files;
}

export function readCommandFiles(files: CommandFiles): {
  outputs: Record<string, string>;
  env: Record<string, string>;
  path: string[];
  summary: string;
} {
  return {
    outputs: parseFileCommand(readFileSync(files.GITHUB_OUTPUT, 'utf8'), 'output'),
    env: parseFileCommand(readFileSync(files.GITHUB_ENV, 'utf8'), 'env'),
    path: readFileSync(files.GITHUB_PATH, 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== ''),
    summary: readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8'),
  };
}
