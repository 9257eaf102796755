import type { FastifyInstance } from 'fastify';
import type { Contact } from '../model/model.js';
import { invalidField, notFound } from '../protocol/errors.js';
import { BodyReader, isEmail } from '../protocol/validate.js';
import { callerOf } from '../requests/auth.js';
import { contactWire } from '../store/wire.js';
import type { IdParams, RouteContext } from './route-context.js';

const TEXT_FIELDS = ['name', 'avatar', 'company', 'website', 'job_title', 'address', 'notes'] as const;
const PROFILE_FIELDS = ['email', ...TEXT_FIELDS, 'should_display_image'];

/**
 * POST /contacts: only email is kept; the other profile fields are accepted and
 * ignored (API document: "it is the only field persisted on create").
 * PATCH /contacts/:contact_id: omitted fields keep their value, null clears a
 * text field; the change shows in every conversation of that contact.
 */
export function registerContactRoutes(app: FastifyInstance, { store }: RouteContext): void {
  app.post('/contacts', async (request) => {
    const { organization } = callerOf(request);
    const body = new BodyReader(request.body, PROFILE_FIELDS, { required: true });
    const email = body.string('email', { required: true, max: 254 });
    if (typeof email === 'string' && !isEmail(email))
      body.add('email', 'The email field must be a valid email address.');
    body.done();
    if (store.contacts.emailTaken(organization.id, email!))
      throw invalidField('email', 'The email has already been taken.');
    const index = store.contacts.create(organization.id, email!);
    return { message: 'Contact created.', contact: contactWire(store.contacts.get(index), 0) };
  });

  app.patch<IdParams<'contact_id'>>('/contacts/:contact_id', async (request) => {
    const { organization } = callerOf(request);
    const index = store.contacts.find(organization.id, request.params.contact_id);
    if (index === undefined) throw notFound();
    const body = new BodyReader(request.body, PROFILE_FIELDS, { required: true });
    if (Object.keys(body.body).length === 0) body.add('body', 'Send at least one profile field.');
    const changes: Partial<Contact> = {};
    const email = body.string('email', { max: 254 });
    if (typeof email === 'string') {
      if (!isEmail(email)) body.add('email', 'The email field must be a valid email address.');
      else if (store.contacts.emailTaken(organization.id, email, index))
        body.add('email', 'The email has already been taken.');
      else changes.email = email;
    }
    for (const field of TEXT_FIELDS) {
      const value = body.string(field, { nullable: true, max: field === 'notes' ? 5000 : 255 });
      if (value !== undefined) changes[field] = value;
    }
    const display = body.boolean('should_display_image');
    if (display !== undefined) changes.should_display_image = display;
    body.done();
    store.contacts.update(index, changes);
    return { message: 'Contact updated.' };
  });
}
