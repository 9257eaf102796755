import type { ReadKind, StreamDefinition } from './stream-definition.js';
import { account } from './streams/account.js';
import { businessHours } from './streams/business-hours.js';
import { contacts } from './streams/contacts.js';
import { conversations } from './streams/conversations.js';
import { holidays } from './streams/holidays.js';
import { inboxes } from './streams/inboxes.js';
import { messages } from './streams/messages.js';
import { reports } from './streams/reports.js';
import { tags } from './streams/tags.js';
import { users } from './streams/users.js';

/**
 * Every stream, one declaration each (src/catalog/streams/). The order is the order
 * of the stream names (`streams:`, `state show`, `check`) and, stream by stream, of
 * the output tables (schemas, DDL, summaries, the schema set version): a new stream
 * goes at the end.
 */
export const CATALOG = [
  conversations,
  messages,
  contacts,
  tags,
  inboxes,
  users,
  businessHours,
  holidays,
  reports,
  account,
] as const;

export type CatalogStream = (typeof CATALOG)[number];
export type StreamName = CatalogStream['name'];
export type CatalogTable = CatalogStream['tables'][number];
export type TableName = CatalogTable['name'];

/** Stream names accepted in `streams:` and `--streams` (docs/streams.md). */
export const STREAM_NAMES: readonly StreamName[] = CATALOG.map((s) => s.name);

/** Every output table, stream by stream. */
export const CATALOG_TABLES: readonly CatalogTable[] = CATALOG.flatMap((s): readonly CatalogTable[] => s.tables);

/** The declaration of a stream. */
export function streamDefinition(name: StreamName): CatalogStream {
  return CATALOG.find((s) => s.name === name) as CatalogStream;
}

/** The stream that writes a table. */
export function streamOfTable(table: TableName): CatalogStream {
  return CATALOG.find((s) => s.tables.some((t) => t.name === table)) as CatalogStream;
}

/** The streams read by one kind of read, in catalog order. */
export function streamsRead(kind: ReadKind): StreamDefinition[] {
  return CATALOG.filter((s) => s.read.kind === kind);
}
