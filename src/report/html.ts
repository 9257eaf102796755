import { scrubSecrets } from '../redact.js';

/** Text made safe inside HTML (element content and attribute values). */
export function esc(value: unknown): string {
  return String(value)
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

/** Whole numbers with thin grouping, as a person reads them: 12 345. */
export function num(n: number): string {
  return Math.round(n)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, '\u202f');
}

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;

/**
 * The last pass over a page before it is served or written: a registered secret
 * (the token) and anything shaped like an e-mail address are removed, whatever
 * text (a warning, a URL) carried them in.
 */
export function scrubPage(html: string): string {
  return scrubSecrets(html).replace(EMAIL, '[e-mail]');
}

/** A URL without credentials, query or fragment: what the page may say about where the API is. */
export function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '(not a URL)';
  }
}
