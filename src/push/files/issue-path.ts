/**
 * How a push-file problem names its place: file, entry (index and key) and field,
 * e.g. `config/holidays.yaml, holidays[1] (key "xmas"), end_date`.
 */
export interface EntryRef {
  file: string;
  /** Top-level list: `holidays` or `business_hours`, or the source an entry was expanded from (`calendar`, `ics`). */
  list: 'holidays' | 'business_hours' | 'calendar' | 'ics';
  index: number;
  /** The source was written as one mapping, not a list: it is named without an index. */
  single?: boolean;
  key?: string;
  /** Where an expanded entry came from, as the plan shows it (`calendar DE-BY 2026`). */
  origin?: string;
}

export function entryLabel(ref: EntryRef): string {
  return `${ref.list}${ref.single ? '' : `[${ref.index}]`}${ref.key ? ` (key "${ref.key}")` : ''}`;
}

/** Joins a field path: numbers become `[n]`, names are dotted (`channels[0].inbox`). */
export function fieldPath(parts: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const p of parts) {
    if (typeof p === 'number') out += `[${p}]`;
    else out += out === '' ? String(p) : `.${String(p)}`;
  }
  return out;
}

export function issuePath(ref: EntryRef, field?: ReadonlyArray<PropertyKey>): string {
  const base = `${ref.file}, ${entryLabel(ref)}`;
  return field && field.length > 0 ? `${base}, ${fieldPath(field)}` : base;
}
