import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The repository's root. */
export const ROOT = resolve(import.meta.dirname, '..', '..', '..');

/** README.md and every page of docs/, as paths relative to the root. */
export const DOC_FILES: readonly string[] = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];

/** Lines outside fenced code blocks: links and headings inside code are not links and headings. */
export function proseLines(text: string): string[] {
  let fenced = false;
  return text.split('\n').filter((line) => {
    if (line.startsWith('```')) {
      fenced = !fenced;
      return false;
    }
    return !fenced;
  });
}

/**
 * A heading's anchor as GitHub makes it: the text as rendered (a link's text, not its target),
 * lower-cased, every character that is not a letter, a digit, a space, `-` or `_` dropped,
 * spaces to `-`.
 */
export function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

/** Every heading anchor of a Markdown file; a repeated heading gets `-1`, `-2`… as on GitHub. */
export function anchorsOf(path: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of proseLines(readFileSync(path, 'utf8'))) {
    const m = /^#{1,6} (.+)$/.exec(line);
    if (!m?.[1]) continue;
    const base = slug(m[1].trim());
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The relative link targets of a Markdown file's prose (inline code and code blocks left out). */
export function relativeLinks(path: string): string[] {
  const out: string[] = [];
  for (const line of proseLines(readFileSync(path, 'utf8'))) {
    for (const m of line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g)) {
      if (m[1] && !/^[a-z]+:/i.test(m[1])) out.push(m[1]);
    }
  }
  return out;
}
