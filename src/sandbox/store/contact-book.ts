import { idFor, indexOfId } from '../model/ids.js';
import type { Contact } from '../model/model.js';
import { type ContactLayout, organizationOfContact } from '../seed/contact-layout.js';
import { contactIndexOfEmail, generateContact, seededContactEmail } from '../seed/generate-contact.js';

/**
 * Contacts: seeded ones are generated from (seed, index) when read; created or
 * changed ones live in the overlay. conversations_count is kept per contact as
 * conversations are generated, moved between contacts, merged and destroyed.
 */
export class ContactBook {
  private readonly overlay = new Map<number, Contact>();
  private readonly seededCounts: Uint32Array;
  private readonly createdCounts = new Map<number, number>();
  private total: number;

  constructor(
    private readonly seed: number,
    private readonly layout: ContactLayout,
    private readonly organizationIds: string[],
  ) {
    this.seededCounts = new Uint32Array(layout.total);
    this.total = layout.total;
  }

  get(index: number): Contact {
    const changed = this.overlay.get(index);
    if (changed) return changed;
    const org = organizationOfContact(this.layout, index);
    if (org === undefined) throw new RangeError(`no contact ${index}`);
    return generateContact(this.seed, index, this.organizationIds[org]!);
  }

  /** The contact's current email, cheaply (text search reads it for every conversation). */
  email(index: number): string {
    const changed = this.overlay.get(index);
    return changed ? changed.email.toLowerCase() : seededContactEmail(this.seed, index);
  }

  /** The index of the contact with this id in this organization, else undefined (absent and foreign look alike). */
  find(organizationId: string, id: string): number | undefined {
    const index = indexOfId(this.seed, 'contact', id);
    if (index === undefined || index >= this.total) return undefined;
    return this.get(index).organizationId === organizationId ? index : undefined;
  }

  conversationsCount(index: number): number {
    return index < this.layout.total ? this.seededCounts[index]! : (this.createdCounts.get(index) ?? 0);
  }

  adjustCount(index: number, delta: number): void {
    if (index < this.layout.total) this.seededCounts[index] = Math.max(0, this.seededCounts[index]! + delta);
    else this.createdCounts.set(index, Math.max(0, (this.createdCounts.get(index) ?? 0) + delta));
  }

  /** Whether another contact of the organization already uses this address (case-insensitive). */
  emailTaken(organizationId: string, email: string, exceptIndex?: number): boolean {
    const wanted = email.toLowerCase();
    for (const [index, c] of this.overlay) {
      if (index !== exceptIndex && c.organizationId === organizationId && c.email.toLowerCase() === wanted) return true;
    }
    const seeded = contactIndexOfEmail(wanted);
    if (seeded === undefined || seeded >= this.layout.total || seeded === exceptIndex || this.overlay.has(seeded)) {
      return false;
    }
    const contact = this.get(seeded);
    return contact.organizationId === organizationId && contact.email === wanted;
  }

  /** POST /contacts: only the email is kept (API document, Other operations). */
  create(organizationId: string, email: string): number {
    const index = this.total++;
    this.overlay.set(index, {
      id: idFor(this.seed, 'contact', index),
      organizationId,
      name: null,
      email,
      avatar: null,
      company: null,
      website: null,
      job_title: null,
      address: null,
      should_display_image: false,
      notes: null,
    });
    return index;
  }

  update(index: number, fields: Partial<Omit<Contact, 'id' | 'organizationId'>>): Contact {
    const next = { ...this.get(index), ...fields };
    this.overlay.set(index, next);
    return next;
  }
}
