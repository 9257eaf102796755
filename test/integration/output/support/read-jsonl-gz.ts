import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

/** Reads every line of a gzip JSONL file as parsed JSON. */
export function readJsonlGz(path: string): Record<string, unknown>[] {
  const text = gunzipSync(readFileSync(path)).toString('utf8');
  if (text !== '' && !text.endsWith('\n')) throw new Error(`${path}: last line has no newline`);
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
