import type { ConfigIssue } from '../../errors.js';
import { key as keySchema } from './files-schema.js';
import type { ValidatedEntry } from './validated-entry.js';

/**
 * `moved:` in a push file, old key → new key: renaming a key then carries its
 * state mapping over (an update of the same remote object, never a delete and
 * a create). The old key joins the new entry's aliases; the plan moves the
 * mapping only while the old key is mapped and the new one is not, so the line
 * may stay in the file after the apply.
 */
export function applyMovedKeys<T extends { key: string }>(
  file: string,
  moved: unknown,
  entries: ValidatedEntry<T>[],
  issues: ConfigIssue[],
): void {
  if (moved === undefined || moved === null) return;
  const at = (old?: string) => (old === undefined ? `${file}, moved` : `${file}, moved.${old}`);
  if (typeof moved !== 'object' || Array.isArray(moved)) {
    issues.push({ path: at(), message: 'expected a mapping of old key to new key' });
    return;
  }
  const byKey = new Map(entries.map((e) => [e.entry.key, e]));
  for (const [old, to] of Object.entries(moved)) {
    const problem = (message: string) => issues.push({ path: at(old), message });
    const parsed = keySchema.safeParse(to);
    if (!keySchema.safeParse(old).success) problem(`"${old}" is not a key`);
    else if (!parsed.success) problem(parsed.error.issues[0]!.message);
    else if (byKey.has(old)) problem(`"${old}" is still an entry's key; a moved key must be gone from the file`);
    else if (!byKey.has(parsed.data)) problem(`no entry has the key "${parsed.data}"`);
    else {
      const target = byKey.get(parsed.data)!;
      target.aliases = [...(target.aliases ?? []), old];
    }
  }
}
