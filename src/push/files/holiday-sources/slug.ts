/**
 * A key fragment from free text: accents dropped (ö → o, é → e), lowercase,
 * every run of other characters one "-". Text in a script without Latin
 * letters gives "" (the caller then falls back to something else).
 */
export function slug(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/ß/g, 'ss')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}
