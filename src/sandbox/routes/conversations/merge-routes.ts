import type { FastifyInstance } from 'fastify';
import type { ConversationState, ThreadEvent } from '../../model/model.js';
import { BodyReader } from '../../protocol/validate.js';
import { callerOf } from '../../requests/auth.js';
import { messageRecord } from '../../seed/build-message.js';
import { ticketNumber } from '../../store/big-integers.js';
import { actorOf, appendEvent, commit, editLive, systemEvent } from '../../store/conversation-edits.js';
import type { SandboxStore } from '../../store/sandbox-store.js';
import type { IdParams, RouteContext } from '../route-context.js';

/** Live conversations of the caller's organization, other than the target, each named once. */
function sourcesOf(store: SandboxStore, organizationId: string, target: ConversationState, body: BodyReader) {
  const ids = body.stringArray('mergeable_conversation_ids', { required: true });
  if (ids === undefined) return [];
  if (ids.length === 0) body.add('mergeable_conversation_ids', 'Name at least one conversation to merge.');
  const indexes: number[] = [];
  for (const id of ids) {
    const index = store.findConversation(organizationId, id);
    const live = index !== undefined && store.conversations.get(index).deletedAt === null;
    if (!live || index === target.index || indexes.includes(index)) {
      body.add('mergeable_conversation_ids', `The conversation ${id} cannot be merged into this one.`);
    } else indexes.push(index);
  }
  return indexes;
}

/**
 * POST …/merge (PAT only): the listed conversations' thread events move into
 * this one (notes only with include_notes, default true), a `merged` event is
 * added, and the sources are removed for good (they answer 404 afterwards).
 */
export function registerMergeRoutes(app: FastifyInstance, { store }: RouteContext): void {
  app.post<IdParams<'conversation_id'>>(
    '/conversation/:conversation_id/merge',
    { config: { patOnly: true } },
    async (request) => {
      const caller = callerOf(request);
      const target = editLive(store, caller, request.params.conversation_id);
      const body = new BodyReader(
        request.body,
        ['mergeable_conversation_ids', 'include_notes', 'include_merge_summary'],
        {
          required: true,
        },
      );
      const sources = sourcesOf(store, caller.organization.id, target, body);
      const includeNotes = body.boolean('include_notes') ?? true;
      const summary = body.boolean('include_merge_summary') ?? false;
      body.done();
      const merged = sources.map((i) => store.conversations.get(i));
      const moved: ThreadEvent[] = merged.flatMap((s) =>
        s.events.filter((e) => includeNotes || e.event_type !== 'note'),
      );
      target.events = [...target.events, ...moved].sort((a, b) => a.at - b.at);
      for (const index of sources) store.destroy(index);
      const actor = actorOf(caller);
      const ids = merged.map((s) => s.id);
      systemEvent(store, target, 'merged', actor, { merged_conversation_ids: ids, include_notes: includeNotes });
      if (summary) {
        const text = `Merged ${merged.map((s) => `#${ticketNumber(store, s)} (${s.updatedSubject})`).join(', ')} into this conversation.`;
        const inbox = store.world.inboxes.find((b) => b.id === target.inboxId)!;
        const note = messageRecord({ id: store.newId('message'), kind: 'note', text, at: store.now(), inbox });
        appendEvent(store, target, { event_type: 'note', event: note, actor, extra: { merge_summary: true } });
      }
      commit(store, target);
      return { message: `${ids.length} conversation(s) merged.` };
    },
  );
}
