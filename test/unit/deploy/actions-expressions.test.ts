import { describe, expect, it } from 'vitest';
import {
  type ExpressionContext,
  type ExpressionStatus,
  evaluate,
  evaluateIf,
  interpolate,
} from '../../integration/push/actions/expressions.js';

function context(status: ExpressionStatus = 'success'): ExpressionContext {
  return {
    status,
    contexts: {
      github: {
        event_name: 'pull_request',
        event: { pull_request: { number: 7, head: { sha: 'abc' } } },
        token: 'ghs_x',
      },
      steps: { plan: { outputs: { exitcode: '2', sha256: '' } } },
      needs: { plan: { result: 'success', outputs: { sha256: 'f00' } } },
      env: { 'MY-VAR': 'dashed', NAME: 'World' },
      vars: { REGION: 'eu-west-1' },
      secrets: { HELPDESK_TOKEN: 'pat' },
    },
  };
}

describe('GitHub Actions expressions', () => {
  it('reads literals, with doubled quotes escaping a quote', () => {
    const ctx = context();
    expect(evaluate("'it''s'", ctx)).toBe("it's");
    expect(evaluate('42', ctx)).toBe(42);
    expect(evaluate('-1.5', ctx)).toBe(-1.5);
    expect(evaluate('0xff', ctx)).toBe(255);
    expect(evaluate('true', ctx)).toBe(true);
    expect(evaluate('null', ctx)).toBe(null);
  });

  it('reads context paths, index syntax and case-insensitive names; a missing path is null', () => {
    const ctx = context();
    expect(evaluate('github.event.pull_request.number', ctx)).toBe(7);
    expect(evaluate('steps.plan.outputs.exitcode', ctx)).toBe('2');
    expect(evaluate('needs.plan.outputs.sha256', ctx)).toBe('f00');
    expect(evaluate('needs.plan.result', ctx)).toBe('success');
    expect(evaluate("env['MY-VAR']", ctx)).toBe('dashed');
    expect(evaluate('secrets.helpdesk_token', ctx)).toBe('pat');
    expect(evaluate('github.token', ctx)).toBe('ghs_x');
    expect(evaluate('github.event.pull_request.base.ref', ctx)).toBe(null);
    expect(evaluate('steps.missing.outputs.x', ctx)).toBe(null);
    expect(evaluate('vars.NOT_SET', ctx)).toBe(null);
  });

  it('compares loosely: strings ignore case, mixed types compare as numbers', () => {
    const ctx = context();
    expect(evaluate("'ABC' == 'abc'", ctx)).toBe(true);
    expect(evaluate('steps.plan.outputs.exitcode == 2', ctx)).toBe(true);
    expect(evaluate("steps.plan.outputs.exitcode != '2'", ctx)).toBe(false);
    expect(evaluate("'' == 0", ctx)).toBe(true);
    expect(evaluate('null == 0', ctx)).toBe(true);
    expect(evaluate("steps.plan.outputs.sha256 == ''", ctx)).toBe(true);
    expect(evaluate("steps.nothing.outputs.x == ''", ctx)).toBe(true);
    expect(evaluate("'abc' == 0", ctx)).toBe(false);
    expect(evaluate("true == '1'", ctx)).toBe(true);
    expect(evaluate("2 > '10'", ctx)).toBe(false);
    expect(evaluate("'b' > 'A'", ctx)).toBe(true);
  });

  it('returns operand values from && and ||, and negates with !', () => {
    const ctx = context();
    expect(evaluate("github.event.pull_request.number && 'yes'", ctx)).toBe('yes');
    expect(evaluate("steps.plan.outputs.sha256 || 'fallback'", ctx)).toBe('fallback');
    expect(evaluate("steps.plan.outputs.sha256 && 'never'", ctx)).toBe('');
    expect(evaluate('!steps.plan.outputs.sha256', ctx)).toBe(true);
    expect(evaluate("!(1 == 1) || ('a' == 'A' && 'b' == 'c')", ctx)).toBe(false);
  });

  it('calls contains, startsWith, endsWith, format, join, fromJSON and toJSON', () => {
    const ctx = context();
    expect(evaluate("contains('Hello World', 'WORLD')", ctx)).toBe(true);
    expect(evaluate('contains(fromJSON(\'["a","B"]\'), \'b\')', ctx)).toBe(true);
    expect(evaluate("startsWith(github.event_name, 'PULL')", ctx)).toBe(true);
    expect(evaluate("endsWith('plan.json', '.JSON')", ctx)).toBe(true);
    expect(evaluate("format('{0}-{1}-{{literal}}', 'plan', github.event.pull_request.number)", ctx)).toBe(
      'plan-7-{literal}',
    );
    expect(evaluate("join(fromJSON('[1,2]'), '+')", ctx)).toBe('1+2');
    expect(evaluate('fromJSON(\'{"a":{"b":3}}\').a.b', ctx)).toBe(3);
    expect(evaluate('toJSON(needs.plan.outputs)', ctx)).toBe('{\n  "sha256": "f00"\n}');
  });

  it('answers status functions from the status it is given', () => {
    expect(evaluate('success()', context('success'))).toBe(true);
    expect(evaluate('failure()', context('failure'))).toBe(true);
    expect(evaluate('success() || failure()', context('skipped'))).toBe(false);
    expect(evaluate('always()', context('failure'))).toBe(true);
    expect(evaluate('cancelled()', context('success'))).toBe(false);
  });

  it('interpolates every ${{ }} in a string, braces inside quotes included', () => {
    const ctx = context();
    expect(interpolate('plan-${{ github.event.pull_request.number }}', ctx)).toBe('plan-7');
    expect(interpolate("${{ vars.REGION }}/${{ format('{0}}}', env.NAME) }}", ctx)).toBe('eu-west-1/World}');
    expect(interpolate('missing:${{ vars.NOPE }}:', ctx)).toBe('missing::');
    expect(interpolate('${{ github.event }}', ctx)).toBe('Object');
    expect(interpolate('${{ 1 == 1 }}', ctx)).toBe('true');
    expect(interpolate('no expression', ctx)).toBe('no expression');
  });

  it('reads an if: with or without ${{ }}, implying success() when no status function is named', () => {
    expect(evaluateIf("github.event_name == 'pull_request'", context())).toBe(true);
    expect(evaluateIf("${{ github.event_name == 'push' }}", context())).toBe(false);
    // No status function: the step after a failure is skipped even when the condition holds.
    expect(evaluateIf("github.event_name == 'pull_request'", context('failure'))).toBe(false);
    expect(evaluateIf(undefined, context('failure'))).toBe(false);
    expect(evaluateIf(undefined, context('success'))).toBe(true);
    expect(evaluateIf("always() && steps.plan.outputs.exitcode != ''", context('failure'))).toBe(true);
    expect(evaluateIf("failure() && github.event_name == 'pull_request'", context('failure'))).toBe(true);
    expect(evaluateIf('failure()', context('success'))).toBe(false);
  });

  it('throws on what it does not emulate instead of guessing', () => {
    const ctx = context();
    expect(() => evaluate('github.event.*.number', ctx)).toThrow(/Unexpected character '\*'/);
    expect(() => evaluate("hashFiles('**/package-lock.json')", ctx)).toThrow(/Unsupported function hashFiles/);
    expect(() => evaluate('matrix.node', ctx)).toThrow(/Unrecognized named-value: 'matrix'/);
    expect(() => evaluate("'open", ctx)).toThrow(/Unterminated string/);
    expect(() => evaluate('1 ==', ctx)).toThrow(/Unexpected end/);
    expect(() => evaluate("format('{1}', 'a')", ctx)).toThrow(/no argument \{1\}/);
    expect(() => evaluate('success(1)', ctx)).toThrow(/takes 0/);
    expect(() => interpolate('${{ github.sha ', ctx)).toThrow(/Unclosed/);
    expect(() => evaluateIf('${{ true }} && ${{ false }}', ctx)).toThrow(/one expression/);
  });

  it('refuses secrets in an if: when the caller leaves them out, as GitHub does', () => {
    const { secrets: _secrets, ...withoutSecrets } = context().contexts;
    const ctx = { status: 'success' as const, contexts: withoutSecrets };
    expect(() => evaluateIf("secrets.HELPDESK_TOKEN != ''", ctx)).toThrow(/Unrecognized named-value: 'secrets'/);
  });
});
