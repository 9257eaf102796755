import type { Contact } from '../model/model.js';
import type { ConversationTable } from './conversation-table.js';
import type { World } from './world.js';

/** What generating a conversation's full record needs. */
export interface SeedContext {
  seed: number;
  /** The world as seeded, never changed (so generation is a pure function of (seed, index)). */
  world: World;
  table: ConversationTable;
  /** The contact with that index, as it is now (overlay included). */
  contact(index: number): Contact;
}
