import type { FastifyInstance } from 'fastify';
import { STATUSES } from '../../model/model.js';
import { invalidField } from '../../protocol/errors.js';
import { BodyReader } from '../../protocol/validate.js';
import { callerOf } from '../../requests/auth.js';
import { messageRecord } from '../../seed/build-message.js';
import {
  actorOf,
  appendEvent,
  changeAssignee,
  changeStatus,
  commit,
  editLive,
} from '../../store/conversation-edits.js';
import type { IdParams, RouteContext } from '../route-context.js';

type ConversationParams = IdParams<'conversation_id'>;

function textOf(html: string): string {
  return html
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * POST …/note (field `message`), POST …/draft (one draft per user per
 * conversation, returns draft_id) and POST …/reply, whose text comes from the
 * caller's saved draft, not from the body (API document, Endpoints, Conversations).
 */
export function registerThreadRoutes(app: FastifyInstance, { store }: RouteContext): void {
  const inboxOf = (id: string) => store.world.inboxes.find((b) => b.id === id)!;

  app.post<ConversationParams>('/conversation/:conversation_id/note', async (request) => {
    const caller = callerOf(request);
    const state = editLive(store, caller, request.params.conversation_id);
    const body = new BodyReader(request.body, ['message', 'mentioned_ids'], { required: true });
    const text = body.string('message', { required: true, max: 65_535 });
    const mentioned = body.stringArray('mentioned_ids') ?? [];
    if (mentioned.some((id) => !store.user(caller.organization.id, id))) {
      body.add('mentioned_ids', 'The mentioned ids must be teammates of the organization.');
    }
    body.done();
    const now = store.now();
    const message = messageRecord({
      id: store.newId('message'),
      kind: 'note',
      text: text!,
      at: now,
      inbox: inboxOf(state.inboxId),
      extra: { mentioned_ids: mentioned },
    });
    appendEvent(store, state, { event_type: 'note', event: message, actor: actorOf(caller), extra: {} });
    commit(store, state);
    return { message: 'Note added.' };
  });

  app.post<ConversationParams>('/conversation/:conversation_id/draft', async (request) => {
    const caller = callerOf(request);
    const state = editLive(store, caller, request.params.conversation_id);
    const body = new BodyReader(request.body, ['message', 'cc'], { required: true });
    const html = body.string('message', { required: true, max: 65_535 });
    const cc = body.stringArray('cc', { email: true });
    body.done();
    const key = `${state.id}:${caller.user.id}`;
    const existing = store.drafts.get(key);
    const draft = {
      draft_id: existing?.draft_id ?? store.newId('draft'),
      message: html!,
      cc: cc ?? existing?.cc ?? [],
      updated_at: store.now(),
    };
    store.drafts.set(key, draft);
    return { message: 'Draft saved.', draft_id: draft.draft_id };
  });

  app.post<ConversationParams>('/conversation/:conversation_id/reply', async (request) => {
    const caller = callerOf(request);
    const state = editLive(store, caller, request.params.conversation_id);
    const body = new BodyReader(request.body, ['status', 'assign_to', 'action', 'cc'], { required: true });
    const status = body.oneOf('status', STATUSES, { required: true });
    const action = body.string('action', { max: 64 });
    const cc = body.stringArray('cc', { email: true });
    const assignTo = body.body.assign_to;
    if (assignTo !== undefined && assignTo !== null && !store.user(caller.organization.id, assignTo)) {
      body.add('assign_to', 'The selected assign to is invalid.');
    }
    body.done();
    const key = `${state.id}:${caller.user.id}`;
    const draft = store.drafts.get(key);
    if (!draft) throw invalidField('draft', 'Save a draft for this conversation before replying.');
    const actor = actorOf(caller);
    const message = messageRecord({
      id: store.newId('message'),
      kind: 'outbound',
      text: textOf(draft.message),
      at: store.now(),
      inbox: inboxOf(state.inboxId),
      cc: cc ?? draft.cc,
      extra: { channel: 'email', draft_id: draft.draft_id, ...(action ? { action } : {}) },
    });
    message.html_body = draft.message;
    appendEvent(store, state, { event_type: 'message', event: message, actor, extra: {} });
    store.drafts.delete(key);
    if (assignTo !== undefined) changeAssignee(store, state, assignTo as string | null, actor);
    changeStatus(store, state, status!, actor);
    commit(store, state);
    return { message: 'Reply sent.' };
  });
}
