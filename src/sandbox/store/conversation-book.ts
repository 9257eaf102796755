import { indexOfId } from '../model/ids.js';
import type { ConversationState } from '../model/model.js';
import { PRIORITIES, STATUSES } from '../model/model.js';
import { FLAG_REMOVED, FLAG_SPAM, FLAG_TRASHED } from '../seed/conversation-table.js';
import { generateConversation } from '../seed/generate-conversation.js';
import type { SeedContext } from '../seed/seed-context.js';

/**
 * Conversations: the compact table answers listing questions; full records are
 * generated from the seed on demand, and a changed conversation is kept whole
 * in the overlay from its first change on. `save` writes the record's listing
 * fields back to the table, so the table is always current.
 */
export class ConversationBook {
  private readonly overlay = new Map<number, ConversationState>();
  /** Indexes of trashed conversations, for the purge. */
  readonly trashed = new Set<number>();

  constructor(
    private readonly ctx: SeedContext,
    private readonly inboxIndex: Map<string, number>,
    private readonly userIndex: Map<string, number>,
  ) {}

  get count(): number {
    return this.ctx.table.count;
  }

  exists(index: number): boolean {
    return index >= 0 && index < this.count && (this.ctx.table.flags[index]! & FLAG_REMOVED) === 0;
  }

  /** Index of a conversation that still exists (live or trashed), from its id. */
  indexOf(id: string): number | undefined {
    const index = indexOfId(this.ctx.seed, 'conversation', id);
    return index !== undefined && this.exists(index) ? index : undefined;
  }

  /** The current record; do not change it (use `edit`). */
  get(index: number): ConversationState {
    return this.overlay.get(index) ?? generateConversation(this.ctx, index);
  }

  /** The changed record, or undefined while the conversation is as seeded. */
  peek(index: number): ConversationState | undefined {
    return this.overlay.get(index);
  }

  get seedContext(): SeedContext {
    return this.ctx;
  }

  /** A record that may be changed; call `save` afterwards. */
  edit(index: number): ConversationState {
    let state = this.overlay.get(index);
    if (!state) {
      state = generateConversation(this.ctx, index);
      this.overlay.set(index, state);
    }
    return state;
  }

  save(state: ConversationState): void {
    const { table } = this.ctx;
    const i = state.index;
    table.inbox[i] = this.inboxIndex.get(state.inboxId) ?? table.inbox[i]!;
    table.status[i] = STATUSES.indexOf(state.status);
    table.priority[i] = PRIORITIES.indexOf(state.priority);
    table.assignee[i] = state.assigneeId === null ? -1 : (this.userIndex.get(state.assigneeId) ?? -1);
    table.contact[i] = state.contactIndex;
    let flags = table.flags[i]! & FLAG_REMOVED;
    if (state.isSpam) flags |= FLAG_SPAM;
    if (state.deletedAt !== null) flags |= FLAG_TRASHED;
    table.flags[i] = flags;
    if (state.deletedAt !== null) this.trashed.add(i);
    else this.trashed.delete(i);
  }

  /** Permanently deleted: thread events, messages, attachments, tag links and values go with the record. */
  remove(index: number): void {
    this.ctx.table.flags[index] = FLAG_REMOVED;
    this.overlay.delete(index);
    this.trashed.delete(index);
  }
}
