import { fieldPath } from '../issue-path.js';

/** Where a `calendar:` or `ics:` source sits in its holidays file: one source, or the index-th of a list. */
export interface SourcePlace {
  file: string;
  index: number;
  single: boolean;
}

const sourceLabel = (p: SourcePlace, list: 'calendar' | 'ics') => `${p.file}, ${list}${p.single ? '' : `[${p.index}]`}`;

/** How a problem of a source names its place: file, source and field. */
export const sourcePath = (p: SourcePlace, list: 'calendar' | 'ics', field: ReadonlyArray<PropertyKey> = []) =>
  field.length > 0 ? `${sourceLabel(p, list)}, ${fieldPath(field)}` : sourceLabel(p, list);
