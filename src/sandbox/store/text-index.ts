import { excerptOf } from '../seed/build-message.js';
import type { ConversationTable } from '../seed/conversation-table.js';
import { SUBJECTS } from '../seed/names.js';
import { seededText } from '../seed/thread-outline.js';
import type { ContactBook } from './contact-book.js';
import type { ConversationBook } from './conversation-book.js';

/** The parts of the store the index reads (SandboxStore has them; it builds the index). */
export interface IndexedStore {
  readonly table: ConversationTable;
  readonly contacts: ContactBook;
  readonly conversations: ConversationBook;
}

/**
 * Text search over seeded conversations without rebuilding 200 000 threads per
 * query: the first query records, per conversation, which subject and which
 * last-message text it was seeded with (a few distinct strings, interned), and
 * later queries test each distinct string once. Changed conversations are
 * matched from their overlay record instead.
 */
export class TextIndex {
  private subjects?: Uint8Array;
  private lastTexts?: Uint16Array;
  private readonly texts: string[] = [];

  constructor(private readonly store: IndexedStore) {}

  private build(): { subjects: Uint8Array; lastTexts: Uint16Array } {
    if (this.subjects && this.lastTexts) return { subjects: this.subjects, lastTexts: this.lastTexts };
    const { count } = this.store.table;
    const subjects = new Uint8Array(count);
    const lastTexts = new Uint16Array(count);
    const codes = new Map<string, number>();
    const ctx = this.store.conversations.seedContext;
    for (let i = 0; i < count; i++) {
      const { subject, lastText } = seededText(ctx, i);
      subjects[i] = SUBJECTS.indexOf(subject as (typeof SUBJECTS)[number]);
      const excerpt = excerptOf(lastText).toLowerCase();
      let code = codes.get(excerpt);
      if (code === undefined) {
        code = this.texts.push(excerpt) - 1;
        codes.set(excerpt, code);
      }
      lastTexts[i] = code;
    }
    this.subjects = subjects;
    this.lastTexts = lastTexts;
    return { subjects, lastTexts };
  }

  /** A predicate: does conversation i mention `query` (lower-case) in subject, excerpt or contact email? */
  matcher(query: string): (i: number) => boolean {
    const { subjects, lastTexts } = this.build();
    const subjectHit = SUBJECTS.map((s) => s.toLowerCase().includes(query));
    const textHit = this.texts.map((t) => t.includes(query));
    const contactHit = new Map<number, boolean>();
    const { store } = this;
    return (i) => {
      const contact = store.table.contact[i]!;
      let hit = contactHit.get(contact);
      if (hit === undefined) {
        hit = store.contacts.email(contact).includes(query);
        contactHit.set(contact, hit);
      }
      if (hit) return true;
      const changed = store.conversations.peek(i);
      if (!changed) return subjectHit[subjects[i]!] === true || textHit[lastTexts[i]!] === true;
      if (`${changed.subject}\n${changed.updatedSubject}`.toLowerCase().includes(query)) return true;
      const messages = changed.events.filter((e) => e.event !== null);
      return (messages[messages.length - 1]?.event?.excerpt ?? '').toLowerCase().includes(query);
    };
  }
}
