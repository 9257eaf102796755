import type { FastifyInstance } from 'fastify';
import { BodyReader, isDateTime } from '../../protocol/validate.js';
import { callerOf } from '../../requests/auth.js';
import { actorOf, commit, editLive, systemEvent } from '../../store/conversation-edits.js';
import { validateFieldValues } from '../custom-field-values.js';
import type { IdParams, RouteContext } from '../route-context.js';

type ConversationParams = IdParams<'conversation_id'>;

/** change-contact, custom-fields, move, snooze and spam on one conversation (API document, Endpoints). */
export function registerActionRoutes(app: FastifyInstance, { store }: RouteContext): void {
  app.patch<ConversationParams>(
    '/conversation/:conversation_id/change-contact',
    { config: { patOnly: true } },
    async (request) => {
      const caller = callerOf(request);
      const state = editLive(store, caller, request.params.conversation_id);
      const body = new BodyReader(request.body, ['contact_id'], { required: true });
      const contactId = body.string('contact_id', { required: true });
      const index = typeof contactId === 'string' ? store.contacts.find(caller.organization.id, contactId) : undefined;
      if (typeof contactId === 'string' && index === undefined)
        body.add('contact_id', 'The selected contact id is invalid.');
      body.done();
      if (index !== state.contactIndex) {
        const from = store.contacts.get(state.contactIndex).id;
        store.contacts.adjustCount(state.contactIndex, -1);
        store.contacts.adjustCount(index!, 1);
        state.contactIndex = index!;
        systemEvent(store, state, 'contact_changed', actorOf(caller), {
          from_contact_id: from,
          to_contact_id: contactId,
        });
      }
      commit(store, state);
      return { message: 'Contact changed.' };
    },
  );

  app.patch<ConversationParams>('/conversation/:conversation_id/custom-fields', async (request) => {
    const state = editLive(store, callerOf(request), request.params.conversation_id);
    const values = validateFieldValues(request.body, store.customFields(state.inboxId));
    for (const [key, value] of Object.entries(values)) {
      if (value === null) delete state.customFieldValues[key];
      else state.customFieldValues[key] = value;
    }
    commit(store, state);
    return { message: 'Custom fields updated.' };
  });

  app.post<ConversationParams>('/conversation/:conversation_id/move', async (request) => {
    const caller = callerOf(request);
    const state = editLive(store, caller, request.params.conversation_id);
    const body = new BodyReader(request.body, ['inbox_id'], { required: true });
    const inboxId = body.string('inbox_id', { required: true });
    if (typeof inboxId === 'string' && !store.inbox(caller.organization.id, inboxId)) {
      body.add('inbox_id', 'The selected inbox id is invalid.');
    } else if (inboxId === state.inboxId) {
      body.add('inbox_id', 'The conversation is already in this inbox.');
    }
    body.done();
    const from = state.inboxId;
    state.inboxId = inboxId!;
    // A conversation carries only its own inbox's tags and custom fields.
    const tags = new Set(store.tags(state.inboxId).map((t) => t.id));
    state.tags = state.tags.filter((id) => tags.has(id));
    const keys = new Set(store.customFields(state.inboxId).map((f) => f.key));
    state.customFieldValues = Object.fromEntries(Object.entries(state.customFieldValues).filter(([k]) => keys.has(k)));
    systemEvent(store, state, 'moved', actorOf(caller), { from_inbox_id: from, to_inbox_id: state.inboxId });
    commit(store, state);
    return { message: 'Conversation moved.' };
  });

  app.put<ConversationParams>('/conversation/:conversation_id/snooze', async (request) => {
    const caller = callerOf(request);
    const state = editLive(store, caller, request.params.conversation_id);
    const body = new BodyReader(request.body, ['snoozed_until', 'type'], { required: true });
    const until = body.string('snoozed_until', { required: true });
    const type = body.string('type', { required: true, max: 64 });
    if (typeof until === 'string' && !isDateTime(until))
      body.add('snoozed_until', 'The snoozed until must be a date-time.');
    else if (typeof until === 'string' && Date.parse(until) <= store.now()) {
      body.add('snoozed_until', 'The snoozed until must be a date-time in the future.');
    }
    body.done();
    state.snoozedUntil = Date.parse(until!);
    const iso = new Date(state.snoozedUntil).toISOString();
    systemEvent(store, state, 'snoozed', actorOf(caller), { snoozed_until: iso, type });
    commit(store, state);
    return { message: 'Conversation snoozed.' };
  });

  app.post<ConversationParams>('/conversation/:conversation_id/spam', async (request) => {
    const caller = callerOf(request);
    const state = editLive(store, caller, request.params.conversation_id);
    new BodyReader(request.body, []).done();
    if (!state.isSpam) {
      state.isSpam = true;
      systemEvent(store, state, 'spam', actorOf(caller), {});
      commit(store, state);
    }
    return { message: 'Conversation marked as spam.' };
  });
}
