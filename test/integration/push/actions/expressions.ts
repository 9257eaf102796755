import { ExpressionError, type ExpressionNode, parseExpression } from './expression-parser.js';

/**
 * GitHub Actions expressions, evaluated as GitHub documents them ("Evaluate expressions in
 * workflows and actions"): loose `==` (strings compared case-insensitively, mixed types
 * compared as numbers), `&&`/`||` returning an operand, a missing property read as null.
 */

export type ExpressionValue = string | number | boolean | null | ExpressionValue[] | { [key: string]: ExpressionValue };

/**
 * What status functions see: for a step, the job's status so far; for a job-level `if`, what
 * its needs (and their ancestors) ended with. 'skipped' makes both success() and failure() false.
 */
export type ExpressionStatus = 'success' | 'failure' | 'cancelled' | 'skipped';

export interface ExpressionContext {
  /** The named contexts available where the expression stands (github, env, steps, needs, …). */
  contexts: Record<string, unknown>;
  status: ExpressionStatus;
}

const STATUS_FUNCTIONS = new Set(['success', 'failure', 'always', 'cancelled']);

function lookup(target: unknown, key: ExpressionValue): unknown {
  if (target === null || typeof target !== 'object') return null;
  if (Array.isArray(target)) {
    return typeof key === 'number' && Number.isInteger(key) ? (target[key] ?? null) : null;
  }
  const name = toText(key);
  const record = target as Record<string, unknown>;
  if (Object.hasOwn(record, name)) return record[name] ?? null;
  // Context property names are case-insensitive on GitHub (`secrets.my_token`).
  const match = Object.keys(record).find((k) => k.toLowerCase() === name.toLowerCase());
  return match === undefined ? null : (record[match] ?? null);
}

/** The value as GitHub renders it into text: null is '', objects are 'Object'/'Array'. */
export function toText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return Array.isArray(value) ? 'Array' : 'Object';
}

export function isTruthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === '' || value === 0) return false;
  return !(typeof value === 'number' && Number.isNaN(value));
}

function toNumber(value: unknown): number {
  if (value === null || value === undefined) return 0;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number') return value;
  if (typeof value === 'string') {
    const trimmed = value.trim();
    if (trimmed === '') return 0;
    return /^(?:0x[0-9a-f]+|[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?)$/i.test(trimmed) ? Number(trimmed) : Number.NaN;
  }
  return Number.NaN;
}

function sameKind(a: unknown, b: unknown): boolean {
  const kind = (v: unknown) => (v === null || v === undefined ? 'null' : Array.isArray(v) ? 'array' : typeof v);
  return kind(a) === kind(b);
}

function looseEquals(a: unknown, b: unknown): boolean {
  if (sameKind(a, b)) {
    if (typeof a === 'string') return a.toLowerCase() === (b as string).toLowerCase();
    if (a === null || a === undefined) return true;
    return a === b;
  }
  return toNumber(a) === toNumber(b);
}

function compare(a: unknown, b: unknown): number {
  if (typeof a === 'string' && typeof b === 'string') {
    const x = a.toLowerCase();
    const y = b.toLowerCase();
    return x < y ? -1 : x > y ? 1 : 0;
  }
  const x = toNumber(a);
  const y = toNumber(b);
  if (Number.isNaN(x) || Number.isNaN(y)) return Number.NaN;
  return x - y;
}

function format(args: unknown[], expression: string): string {
  const [template, ...values] = args;
  return toText(template).replace(/\{\{|\}\}|\{(\d+)\}|[{}]/g, (match, index?: string) => {
    if (match === '{{') return '{';
    if (match === '}}') return '}';
    if (index === undefined) throw new ExpressionError(`format: stray '${match}'`, expression);
    if (Number(index) >= values.length) throw new ExpressionError(`format: no argument {${index}}`, expression);
    return toText(values[Number(index)]);
  });
}

function callFunction(name: string, args: unknown[], ctx: ExpressionContext, expression: string): unknown {
  const arity = (n: number, m = n) => {
    if (args.length < n || args.length > m)
      throw new ExpressionError(`${name}() takes ${n}–${m} arguments`, expression);
  };
  switch (name.toLowerCase()) {
    case 'success':
      arity(0);
      return ctx.status === 'success';
    case 'failure':
      arity(0);
      return ctx.status === 'failure';
    case 'cancelled':
      arity(0);
      return ctx.status === 'cancelled';
    case 'always':
      arity(0);
      return true;
    case 'contains': {
      arity(2);
      const [search, item] = args;
      if (Array.isArray(search)) return search.some((element) => looseEquals(element, item));
      return toText(search).toLowerCase().includes(toText(item).toLowerCase());
    }
    case 'startswith':
      arity(2);
      return toText(args[0]).toLowerCase().startsWith(toText(args[1]).toLowerCase());
    case 'endswith':
      arity(2);
      return toText(args[0]).toLowerCase().endsWith(toText(args[1]).toLowerCase());
    case 'format':
      if (args.length === 0) throw new ExpressionError('format() needs a template', expression);
      return format(args, expression);
    case 'join': {
      arity(1, 2);
      const separator = args.length > 1 ? toText(args[1]) : ',';
      return Array.isArray(args[0]) ? args[0].map(toText).join(separator) : toText(args[0]);
    }
    case 'tojson':
      arity(1);
      return JSON.stringify(args[0] ?? null, null, 2);
    case 'fromjson':
      arity(1);
      try {
        return JSON.parse(toText(args[0])) as unknown;
      } catch (error) {
        throw new ExpressionError(`fromJSON: ${(error as Error).message}`, expression);
      }
    default:
      throw new ExpressionError(`Unsupported function ${name}()`, expression);
  }
}

function evaluateNode(node: ExpressionNode, ctx: ExpressionContext, expression: string): unknown {
  switch (node.kind) {
    case 'literal':
      return node.value;
    case 'context':
      if (!Object.hasOwn(ctx.contexts, node.name)) {
        throw new ExpressionError(`Unrecognized named-value: '${node.name}'`, expression);
      }
      return ctx.contexts[node.name] ?? null;
    case 'property':
      return lookup(
        evaluateNode(node.target, ctx, expression),
        evaluateNode(node.key, ctx, expression) as ExpressionValue,
      );
    case 'not':
      return !isTruthy(evaluateNode(node.operand, ctx, expression));
    case 'call':
      return callFunction(
        node.name,
        node.args.map((arg) => evaluateNode(arg, ctx, expression)),
        ctx,
        expression,
      );
    case 'binary': {
      const left = evaluateNode(node.left, ctx, expression);
      if (node.op === '&&') return isTruthy(left) ? evaluateNode(node.right, ctx, expression) : left;
      if (node.op === '||') return isTruthy(left) ? left : evaluateNode(node.right, ctx, expression);
      const right = evaluateNode(node.right, ctx, expression);
      if (node.op === '==') return looseEquals(left, right);
      if (node.op === '!=') return !looseEquals(left, right);
      const order = compare(left, right);
      if (node.op === '<') return order < 0;
      if (node.op === '<=') return order <= 0;
      if (node.op === '>') return order > 0;
      return order >= 0;
    }
  }
}

/** The value of one expression (without its `${{ }}`). */
export function evaluate(expression: string, ctx: ExpressionContext): unknown {
  return evaluateNode(parseExpression(expression), ctx, expression);
}

function usesStatusFunction(node: ExpressionNode): boolean {
  switch (node.kind) {
    case 'call':
      return STATUS_FUNCTIONS.has(node.name.toLowerCase()) || node.args.some(usesStatusFunction);
    case 'not':
      return usesStatusFunction(node.operand);
    case 'binary':
      return usesStatusFunction(node.left) || usesStatusFunction(node.right);
    case 'property':
      return usesStatusFunction(node.target) || usesStatusFunction(node.key);
    default:
      return false;
  }
}

/** Where the `}}` closing an expression that starts at `from` stands (quotes respected). */
function closingBraces(text: string, from: number): number {
  let inString = false;
  for (let i = from; i < text.length; i += 1) {
    if (text[i] === "'") inString = !inString;
    else if (!inString && text.startsWith('}}', i)) return i;
  }
  throw new ExpressionError('Unclosed ${{', text);
}

/** Replaces every `${{ expr }}` in a string by the text of its value. */
export function interpolate(text: string, ctx: ExpressionContext): string {
  let out = '';
  let position = 0;
  for (;;) {
    const start = text.indexOf('${{', position);
    if (start < 0) return out + text.slice(position);
    const end = closingBraces(text, start + 3);
    out += text.slice(position, start) + toText(evaluate(text.slice(start + 3, end), ctx));
    position = end + 2;
  }
}

/**
 * An `if:` condition, written with or without `${{ }}`. Without a status function it means
 * `success() && (…)`, as on GitHub; absent, it is `success()`.
 */
export function evaluateIf(condition: string | boolean | undefined, ctx: ExpressionContext): boolean {
  if (condition === undefined) return ctx.status === 'success';
  if (typeof condition === 'boolean') return condition && ctx.status === 'success';
  let expression = condition.trim();
  const wrapped = /^\$\{\{([\s\S]*)\}\}$/.exec(expression);
  if (wrapped) expression = wrapped[1]!;
  if (expression.includes('${{')) throw new ExpressionError('An if: holds one expression', condition);
  const node = parseExpression(expression);
  if (!usesStatusFunction(node)) {
    return ctx.status === 'success' && isTruthy(evaluateNode(node, ctx, expression));
  }
  return isTruthy(evaluateNode(node, ctx, expression));
}
