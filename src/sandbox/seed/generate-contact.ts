import { idFor } from '../model/ids.js';
import type { Contact } from '../model/model.js';
import { rngFor } from '../model/random.js';
import { CITIES, COMPANIES, FIRST_NAMES, JOB_TITLES, LAST_NAMES } from './names.js';

const MAIL_DOMAINS = ['mail.example', 'post.example', 'inbox.example'];

/** The first draws of a seeded contact: enough for its email (text search reads only that). */
function contactBasics(seed: number, index: number) {
  const rng = rngFor(seed, 'contact', index);
  const first = rng.pick(FIRST_NAMES);
  const last = rng.pick(LAST_NAMES);
  const company = rng.chance(0.6) ? rng.pick(COMPANIES) : null;
  const domain = company ? `${company.toLowerCase().replace(/[^a-z]+/g, '')}.example` : rng.pick(MAIL_DOMAINS);
  // The index makes every seeded address unique.
  const email = `${first}.${last}.${index}@${domain}`.toLowerCase();
  return { rng, first, last, company, domain, email };
}

export function seededContactEmail(seed: number, index: number): string {
  return contactBasics(seed, index).email;
}

/** The seeded contact number `index` of organization `organizationId`. */
export function generateContact(seed: number, index: number, organizationId: string): Contact {
  const { rng, first, last, company, domain, email } = contactBasics(seed, index);
  const hasAvatar = rng.chance(0.4);
  return {
    id: idFor(seed, 'contact', index),
    organizationId,
    name: `${first} ${last}`,
    email,
    avatar: hasAvatar ? `https://avatars.example/contacts/${index}.png` : null,
    company,
    website: company ? `https://www.${domain}` : null,
    job_title: company ? rng.pick(JOB_TITLES) : null,
    address: rng.chance(0.5) ? `${rng.int(1, 120)} Main Street, ${rng.pick(CITIES)}` : null,
    should_display_image: hasAvatar,
    notes: rng.chance(0.2) ? 'Prefers email over phone.' : null,
  };
}

/** The index encoded in a seeded contact's email address, if it looks like one. */
export function contactIndexOfEmail(email: string): number | undefined {
  const match = /^[a-z]+\.[a-z]+\.(\d+)@/.exec(email);
  return match ? Number(match[1]) : undefined;
}
