import { readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { gunzipSync } from 'node:zlib';

export interface BadLine {
  line: string;
  error: string;
}

/** Reads a file of lines with the warehouse's own reader: the error it gives, or undefined when it reads. */
export type ReadProbe = (path: string) => Promise<string | undefined>;

/**
 * A file the warehouse refused, split into the lines it reads and the lines it
 * refuses, each with the reader's error. The halves are probed with the very
 * reader the load uses (no second parser that could disagree with it): k bad
 * lines of n cost about 2·k·log2(n) probes, and only a refused file pays them.
 * Returns a file of the good lines (`<name>.good.jsonl` in `workDir`, never beside
 * the file, which may be the output itself; undefined when none is good) and the bad ones.
 */
export async function separateBadLines(
  path: string,
  probe: ReadProbe,
  workDir: string,
): Promise<{ path: string | undefined; bad: BadLine[] }> {
  const name = join(workDir, basename(path));
  const text = gunzipSync(await readFile(path)).toString('utf8');
  const lines = text.split('\n').filter((line) => line !== '');
  let probes = 0;
  const write = async (part: string[]) => {
    const target = `${name}.probe-${++probes}.jsonl`;
    await writeFile(target, `${part.join('\n')}\n`, { mode: 0o600 });
    return target;
  };
  const split = async (part: string[]): Promise<{ good: string[]; bad: BadLine[] }> => {
    if (part.length === 0) return { good: [], bad: [] };
    const error = await probe(await write(part));
    if (error === undefined) return { good: part, bad: [] };
    if (part.length === 1) return { good: [], bad: [{ line: part[0]!, error }] };
    const middle = part.length >> 1;
    const left = await split(part.slice(0, middle));
    const right = await split(part.slice(middle));
    return { good: [...left.good, ...right.good], bad: [...left.bad, ...right.bad] };
  };
  const { good, bad } = await split(lines);
  if (good.length === 0) return { path: undefined, bad };
  const goodPath = `${name}.good.jsonl`;
  await writeFile(goodPath, `${good.join('\n')}\n`, { mode: 0o600 });
  return { path: goodPath, bad };
}
