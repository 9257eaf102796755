/**
 * The syntax of GitHub Actions expressions (the part between `${{` and `}}`), parsed
 * into a small tree. Only what the workflows under test use is accepted; anything
 * else (the `*` object filter, unknown operators) throws rather than being guessed at.
 */

export type ExpressionNode =
  | { kind: 'literal'; value: string | number | boolean | null }
  | { kind: 'context'; name: string }
  | { kind: 'property'; target: ExpressionNode; key: ExpressionNode }
  | { kind: 'call'; name: string; args: ExpressionNode[] }
  | { kind: 'not'; operand: ExpressionNode }
  | { kind: 'binary'; op: BinaryOperator; left: ExpressionNode; right: ExpressionNode };

export type BinaryOperator = '==' | '!=' | '<' | '<=' | '>' | '>=' | '&&' | '||';

type Token =
  | { type: 'string'; value: string }
  | { type: 'number'; value: number }
  | { type: 'word'; value: string }
  | { type: 'punct'; value: string };

const PUNCTUATION = ['==', '!=', '<=', '>=', '&&', '||', '<', '>', '!', '(', ')', '[', ']', '.', ','];
const NUMBER = /^(?:0x[0-9a-f]+|[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?)/i;
const WORD = /^[A-Za-z_][A-Za-z0-9_-]*/;

/** Thrown for any expression this emulation does not understand. */
export class ExpressionError extends Error {
  readonly code = 'EXPRESSION_UNSUPPORTED';
  constructor(message: string, expression: string) {
    super(`${message} in expression: ${expression}`);
    this.name = 'ExpressionError';
  }
}

function readString(text: string, start: number, expression: string): { value: string; end: number } {
  let value = '';
  let i = start + 1;
  while (i < text.length) {
    if (text[i] === "'") {
      // '' inside a string is one quote (see GitHub's "Literals").
      if (text[i + 1] === "'") {
        value += "'";
        i += 2;
        continue;
      }
      return { value, end: i + 1 };
    }
    value += text[i];
    i += 1;
  }
  throw new ExpressionError('Unterminated string', expression);
}

export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const rest = text.slice(i);
    const space = /^\s+/.exec(rest);
    if (space) {
      i += space[0].length;
      continue;
    }
    if (rest[0] === "'") {
      const read = readString(text, i, text);
      tokens.push({ type: 'string', value: read.value });
      i = read.end;
      continue;
    }
    // A sign belongs to a number only where an operand is expected (not in `a-1`: no such operator exists).
    const number = NUMBER.exec(rest);
    if (number && (/^\d|^\./.test(rest) || /^[-+][\d.]/.test(rest))) {
      tokens.push({ type: 'number', value: Number(number[0]) });
      i += number[0].length;
      continue;
    }
    const word = WORD.exec(rest);
    if (word) {
      tokens.push({ type: 'word', value: word[0] });
      i += word[0].length;
      continue;
    }
    const punct = PUNCTUATION.find((p) => rest.startsWith(p));
    if (!punct) throw new ExpressionError(`Unexpected character '${rest[0]}'`, text);
    tokens.push({ type: 'punct', value: punct });
    i += punct.length;
  }
  return tokens;
}

const PRECEDENCE: Array<BinaryOperator[]> = [['||'], ['&&'], ['==', '!='], ['<', '<=', '>', '>=']];

class Parser {
  private position = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly text: string,
  ) {}

  parse(): ExpressionNode {
    if (this.tokens.length === 0) throw new ExpressionError('Empty expression', this.text);
    const node = this.binary(0);
    const extra = this.tokens[this.position];
    if (extra) throw new ExpressionError(`Unexpected '${String(extra.value)}'`, this.text);
    return node;
  }

  private peekPunct(value: string): boolean {
    const token = this.tokens[this.position];
    return token?.type === 'punct' && token.value === value;
  }

  private expect(value: string): void {
    if (!this.peekPunct(value)) throw new ExpressionError(`Expected '${value}'`, this.text);
    this.position += 1;
  }

  private binary(level: number): ExpressionNode {
    const operators = PRECEDENCE[level];
    if (!operators) return this.unary();
    let left = this.binary(level + 1);
    for (;;) {
      const op = operators.find((o) => this.peekPunct(o));
      if (!op) return left;
      this.position += 1;
      left = { kind: 'binary', op, left, right: this.binary(level + 1) };
    }
  }

  private unary(): ExpressionNode {
    if (this.peekPunct('!')) {
      this.position += 1;
      return { kind: 'not', operand: this.unary() };
    }
    return this.postfix(this.primary());
  }

  private primary(): ExpressionNode {
    const token = this.tokens[this.position];
    if (!token) throw new ExpressionError('Unexpected end', this.text);
    this.position += 1;
    if (token.type === 'string' || token.type === 'number') return { kind: 'literal', value: token.value };
    if (token.type === 'punct') {
      if (token.value !== '(') throw new ExpressionError(`Unexpected '${token.value}'`, this.text);
      const inner = this.binary(0);
      this.expect(')');
      return inner;
    }
    if (token.value === 'true' || token.value === 'false') return { kind: 'literal', value: token.value === 'true' };
    if (token.value === 'null') return { kind: 'literal', value: null };
    if (this.peekPunct('(')) return this.call(token.value);
    return { kind: 'context', name: token.value };
  }

  private call(name: string): ExpressionNode {
    this.expect('(');
    const args: ExpressionNode[] = [];
    if (!this.peekPunct(')')) {
      args.push(this.binary(0));
      while (this.peekPunct(',')) {
        this.position += 1;
        args.push(this.binary(0));
      }
    }
    this.expect(')');
    return { kind: 'call', name, args };
  }

  private postfix(target: ExpressionNode): ExpressionNode {
    let node = target;
    for (;;) {
      if (this.peekPunct('.')) {
        this.position += 1;
        const key = this.tokens[this.position];
        if (key?.type !== 'word') throw new ExpressionError('Expected a property name after "."', this.text);
        this.position += 1;
        node = { kind: 'property', target: node, key: { kind: 'literal', value: key.value } };
      } else if (this.peekPunct('[')) {
        this.position += 1;
        const key = this.binary(0);
        this.expect(']');
        node = { kind: 'property', target: node, key };
      } else {
        return node;
      }
    }
  }
}

export function parseExpression(text: string): ExpressionNode {
  return new Parser(tokenize(text), text).parse();
}
