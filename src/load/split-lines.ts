import { StringDecoder } from 'node:string_decoder';

/** A line ended by CRLF loses its CR too. */
const withoutCr = (line: string) => (line.endsWith('\r') ? line.slice(0, -1) : line);

/**
 * The non-empty lines of a text stream, a batch per chunk read: one await per
 * chunk instead of one per line (readline's), which was most of what reading a
 * file for a load cost. A line split across chunks is joined first, a
 * multi-byte character split across them too.
 */
export async function* splitLines(stream: AsyncIterable<Buffer>): AsyncGenerator<string[]> {
  const decoder = new StringDecoder('utf8');
  let rest = '';
  for await (const chunk of stream) {
    const lines = (rest + decoder.write(chunk)).split('\n');
    rest = lines.pop() ?? '';
    const batch: string[] = [];
    for (const line of lines) if (line !== '' && line !== '\r') batch.push(withoutCr(line));
    if (batch.length > 0) yield batch;
  }
  rest = withoutCr(rest + decoder.end());
  if (rest !== '') yield [rest];
}
