/**
 * Text from people (names, API messages) made safe for a GitHub comment: HTML and
 * `@` become entities, so nothing renders as a tag and no one is mentioned.
 */

// code() marks its span with this character, never found in names, so escaping can tell a
// code span from a name that happens to hold a backtick.
const CODE_MARK = '\u0001';

/** HTML entities for `&`, `<`, `>`, `@` and a stray backtick: no tag renders, no one is mentioned. */
const inert = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/@/g, '&#64;').replace(/`/g, '&#96;');

/** Markdown from text with code() spans: the text escaped, the spans kept as code (rendered as is). */
export const md = (text: string) =>
  text
    .split(CODE_MARK)
    .map((part, i) => (i % 2 === 0 ? inert(part) : `\`${part}\``))
    .join('');

/** A table cell: pipes escaped, line breaks flattened, so a name cannot break the table. */
export const cell = (text: string) => md(text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, ' '));
/** A code span around text (rendered as is, so it needs no escaping); use inside md() or cell(). */
export const code = (text: string) => `${CODE_MARK}${text.replace(/`/g, "'").replaceAll(CODE_MARK, '')}${CODE_MARK}`;
