import { describe, expect, it } from 'vitest';
import { isTriggered, patternToRegExp } from './workflow-triggers.js';

const push = (ref: string, changedFiles?: string[]) => ({ event: 'push' as const, payload: {}, ref, changedFiles });

describe('workflow triggers', () => {
  it('matches * within a path segment, ** across them, and a leading **/ at the root too', () => {
    expect(patternToRegExp('helpdesk/**').test('helpdesk/a/b.yaml')).toBe(true);
    expect(patternToRegExp('helpdesk/*').test('helpdesk/a/b.yaml')).toBe(false);
    expect(patternToRegExp('**/*.ics').test('calendar.ics')).toBe(true);
    expect(patternToRegExp('**/*.ics').test('a/b/calendar.ics')).toBe(true);
    expect(patternToRegExp('package.json').test('packageXjson')).toBe(false);
    expect(() => patternToRegExp('v[12]')).toThrow(/not emulated/);
  });

  it('lets the last matching pattern decide, a ! pattern excluding', () => {
    const on = { push: { paths: ['helpdesk/**', '!helpdesk/README.md'] } };
    expect(isTriggered(on, push('refs/heads/main', ['helpdesk/README.md']))).toBe(false);
    expect(isTriggered(on, push('refs/heads/main', ['helpdesk/README.md', 'helpdesk/hours.yaml']))).toBe(true);
    expect(isTriggered({ push: { 'paths-ignore': ['docs/**'] } }, push('refs/heads/x', ['docs/a.md']))).toBe(false);
    expect(() => isTriggered(on, push('refs/heads/main'))).toThrow(/changedFiles is required/);
  });

  it('filters pushes by branch and tag as GitHub does', () => {
    const branches = { push: { branches: ['main', 'release/**'] } };
    expect(isTriggered(branches, push('refs/heads/release/2027/q1'))).toBe(true);
    expect(isTriggered(branches, push('refs/tags/v1'))).toBe(false);
    expect(isTriggered({ push: { 'branches-ignore': ['wip/*'] } }, push('refs/heads/wip/a'))).toBe(false);
    expect(isTriggered({ push: { tags: ['v*'] } }, push('refs/heads/main'))).toBe(false);
    expect(isTriggered('push', push('refs/tags/v1'))).toBe(true);
    expect(isTriggered(['push', 'schedule'], { event: 'schedule', payload: {}, ref: 'refs/heads/main' })).toBe(true);
    expect(isTriggered({ push: null }, { event: 'workflow_dispatch', payload: {}, ref: 'refs/heads/main' })).toBe(
      false,
    );
  });

  it('filters pull requests by activity type and base branch', () => {
    const on = { pull_request: { branches: ['main'] } };
    const pr = (action: string, base: string) => ({
      event: 'pull_request' as const,
      payload: { action, pull_request: { base: { ref: base } } },
      ref: 'refs/pull/1/merge',
    });
    expect(isTriggered(on, pr('synchronize', 'main'))).toBe(true);
    expect(isTriggered(on, pr('synchronize', 'develop'))).toBe(false);
    expect(isTriggered(on, pr('closed', 'main'))).toBe(false);
    expect(isTriggered({ pull_request: { types: ['closed'] } }, pr('closed', 'main'))).toBe(true);
  });
});
