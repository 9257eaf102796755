import type { FastifyInstance } from 'fastify';
import { PRIORITIES, STATUSES } from '../../model/model.js';
import { conflict, notFound, SandboxHttpError } from '../../protocol/errors.js';
import { BodyReader } from '../../protocol/validate.js';
import { callerOf } from '../../requests/auth.js';
import { actorOf, changeAssignee, changeStatus, commit, reachable } from '../../store/conversation-edits.js';
import type { IdParams, RouteContext } from '../route-context.js';

const UPDATE_FIELDS = ['status', 'assign_to', 'priority'];

/**
 * POST /inboxes/:inbox_id/batch/update: `conversations` (ids of live
 * conversations of that inbox) plus at least one update field (status,
 * assign_to, priority). No update field: 400 `Nothing to update`; a status not
 * reachable from one conversation's status: 409 and nothing changes (API
 * document, Endpoints and States).
 */
export function registerBatchRoutes(app: FastifyInstance, { store }: RouteContext): void {
  app.post<IdParams<'inbox_id'>>('/inboxes/:inbox_id/batch/update', async (request) => {
    const caller = callerOf(request);
    const inbox = store.inbox(caller.organization.id, request.params.inbox_id);
    if (!inbox) throw notFound();
    const body = new BodyReader(request.body, ['conversations', ...UPDATE_FIELDS], { required: true });
    const ids = body.stringArray('conversations', { required: true }) ?? [];
    const status = body.oneOf('status', STATUSES);
    const priority = body.oneOf('priority', PRIORITIES);
    const assignTo = body.body.assign_to;
    if (assignTo !== undefined && assignTo !== null && !store.user(caller.organization.id, assignTo)) {
      body.add('assign_to', 'The selected assign to is invalid.');
    }
    const indexes = ids.map((id) => store.findConversation(caller.organization.id, id));
    const bad = ids.filter((_, k) => {
      const i = indexes[k];
      return (
        i === undefined ||
        store.table.inbox[i] !== store.world.inboxes.indexOf(inbox) ||
        store.conversations.get(i).deletedAt !== null
      );
    });
    if (bad.length > 0) body.add('conversations', `Not live conversations of this inbox: ${bad.join(', ')}.`);
    body.done();
    if (!UPDATE_FIELDS.some((f) => body.has(f))) throw new SandboxHttpError(400, 'Nothing to update');
    const states = (indexes as number[]).map((i) => store.conversations.get(i));
    const stuck = status ? states.find((s) => !reachable(s.status, status)) : undefined;
    if (stuck)
      throw conflict(`The status ${status} cannot be reached from ${stuck.status} (conversation ${stuck.id}).`);
    const actor = actorOf(caller);
    for (const index of new Set(indexes as number[])) {
      const state = store.conversations.edit(index);
      if (priority) state.priority = priority;
      if (assignTo !== undefined) changeAssignee(store, state, assignTo as string | null, actor);
      if (status) changeStatus(store, state, status, actor);
      commit(store, state);
    }
    return { message: `${new Set(indexes).size} conversation(s) updated.` };
  });
}
