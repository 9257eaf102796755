import type { FastifyInstance } from 'fastify';
import { STATUSES } from '../../model/model.js';
import { conflict, forbidden, notFound } from '../../protocol/errors.js';
import { BodyReader } from '../../protocol/validate.js';
import { callerOf } from '../../requests/auth.js';
import {
  actorOf,
  changeAssignee,
  changeStatus,
  changeTags,
  commit,
  conversationIndex,
  editLive,
  reachable,
  systemEvent,
} from '../../store/conversation-edits.js';
import { cutShort, cutThisOnce } from '../../store/cut-body.js';
import { conversationViewWire, threadEventWire } from '../../store/wire.js';
import { answerWrongShape, stuckThreadId, WRONG_SHAPE_BODY } from '../../store/wrong-shape.js';
import type { IdParams, RouteContext } from '../route-context.js';

type ConversationParams = IdParams<'conversation_id'>;
const PAT_ONLY = { patOnly: true };

/**
 * GET/PATCH/DELETE /conversation/:conversation_id and GET …/messages
 * (API document, Endpoints, Conversations). Trashed conversations stay readable;
 * other writes on them answer 409 until restored.
 */
export function registerConversationRoutes(app: FastifyInstance, { store }: RouteContext): void {
  /** trash-hidden: a trashed conversation reads as absent (404) until restored. */
  const readable = (index: number) => {
    if (store.quirks.has('trash-hidden') && store.conversations.get(index).deletedAt !== null) throw notFound();
    return index;
  };

  app.get<ConversationParams>('/conversation/:conversation_id', async (request) => {
    const caller = callerOf(request);
    const index = readable(conversationIndex(store, caller, request.params.conversation_id));
    if (store.quirks.has('volatile-views')) {
      // volatile-views: opening a conversation records who viewed it and when,
      // without any change to the conversation itself (updated_at stays).
      const state = store.conversations.edit(index);
      state.viewerId = caller.user.id;
      state.viewedAt = new Date(store.now()).toISOString();
      store.conversations.save(state);
    }
    return { data: conversationViewWire(store, store.conversations.get(index)) };
  });

  app.get<ConversationParams & { Querystring: { event_id?: string } }>(
    '/conversation/:conversation_id/messages',
    async (request, reply) => {
      const index = readable(conversationIndex(store, callerOf(request), request.params.conversation_id));
      const state = store.conversations.get(index);
      // forbidden-threads: one inbox the token cannot see (API document, Authentication rule 7).
      if (state.inboxId === store.forbiddenInboxId()) throw forbidden();
      const events = state.events;
      const eventId = request.query.event_id;
      if (eventId === undefined) {
        const thread = events.map((e) => threadEventWire(e, store));
        // wrong-shape, stuck-wrong-shape: a 200 whose JSON holds no thread.
        const stuck = state.id === stuckThreadId(store) ? `thread:${state.id}` : undefined;
        if (answerWrongShape(store, { once: `thread:${state.id}:${events.length}`, stuck })) return WRONG_SHAPE_BODY;
        // cut-body: the first answer for each version of a thread is a 200 cut short.
        if (!cutThisOnce(store, `${state.id}:${events.length}`)) return thread;
        return reply.type('application/json; charset=utf-8').send(cutShort(thread));
      }
      // event_id: only the thread event with that message id (API document, Endpoints).
      const found = events.find((e) => e.event?.id === eventId);
      if (!found) throw notFound();
      return [threadEventWire(found, store)];
    },
  );

  app.patch<ConversationParams>('/conversation/:conversation_id', async (request) => {
    const caller = callerOf(request);
    const state = editLive(store, caller, request.params.conversation_id);
    const body = new BodyReader(request.body, ['status', 'assign_to', 'tags', 'subject'], { required: true });
    if (Object.keys(body.body).length === 0) body.add('body', 'Send at least one of status, assign_to, tags, subject.');
    const status = body.oneOf('status', STATUSES);
    const subject = body.string('subject', { max: 255 });
    if (subject === '') body.add('subject', 'The subject field must not be empty.');
    const assignTo = body.has('assign_to') ? body.body.assign_to : undefined;
    if (assignTo !== undefined && assignTo !== null && !store.user(caller.organization.id, assignTo)) {
      body.add('assign_to', 'The selected assign to is invalid.');
    }
    const tags = body.stringArray('tags');
    const inboxTags = new Set(store.tags(state.inboxId).map((t) => t.id));
    if (tags?.some((id) => !inboxTags.has(id))) body.add('tags', "The tags must be tags of the conversation's inbox.");
    body.done();
    if (status && !reachable(state.status, status)) {
      throw conflict(`The status ${status} cannot be reached from ${state.status}.`);
    }
    const actor = actorOf(caller);
    if (typeof subject === 'string') state.updatedSubject = subject;
    if (assignTo !== undefined) changeAssignee(store, state, assignTo as string | null, actor);
    if (tags) changeTags(store, state, tags, actor);
    if (status) changeStatus(store, state, status, actor);
    commit(store, state);
    return { message: 'Conversation updated.' };
  });

  app.delete<ConversationParams>('/conversation/:conversation_id', { config: PAT_ONLY }, async (request) => {
    const caller = callerOf(request);
    const index = conversationIndex(store, caller, request.params.conversation_id);
    if (store.conversations.get(index).deletedAt !== null) throw conflict('The conversation is already in the trash.');
    const state = store.conversations.edit(index);
    systemEvent(store, state, 'trashed', actorOf(caller), {});
    state.deletedAt = store.now();
    commit(store, state);
    return { message: 'Conversation moved to the trash.' };
  });

  app.patch<ConversationParams>('/conversation/:conversation_id/restore', { config: PAT_ONLY }, async (request) => {
    const caller = callerOf(request);
    new BodyReader(request.body, []).done();
    const index = conversationIndex(store, caller, request.params.conversation_id);
    if (store.conversations.get(index).deletedAt === null) throw notFound();
    const state = store.conversations.edit(index);
    state.deletedAt = null;
    systemEvent(store, state, 'restored', actorOf(caller), {});
    commit(store, state);
    return { message: 'Conversation restored.' };
  });

  app.delete<ConversationParams>(
    '/conversation/:conversation_id/force-delete',
    { config: PAT_ONLY },
    async (request) => {
      const index = conversationIndex(store, callerOf(request), request.params.conversation_id);
      // Only a trashed conversation can be destroyed; a live one is a 404 (API document, States).
      if (store.conversations.get(index).deletedAt === null) throw notFound();
      store.destroy(index);
      return { message: 'Conversation permanently deleted.' };
    },
  );
}
