import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../../src/sandbox/start.js';
import { call, findConversation } from './sandbox-client.js';

let sb: RunningSandbox;
beforeAll(async () => {
  sb = await startSandbox({ seed: 21, conversations: 120 });
});
afterAll(() => sb.close());

// biome-ignore lint/suspicious/noExplicitAny: API bodies are compared whole
type Body = any;

/** Every conversation of the inbox: view and thread, over HTTP. */
async function inboxState(inboxId: string): Promise<Map<string, { view: Body; thread: Body }>> {
  const out = new Map<string, { view: Body; thread: Body }>();
  for (let i = 0; i < sb.store.table.count; i++) {
    const s = sb.store.conversations.get(i);
    if (s.inboxId !== inboxId || s.organizationId !== sb.store.world.organizations[0]!.id) continue;
    const view = (await call(sb, 'GET', `/conversation/${s.id}`)).body.data;
    const thread = (await call(sb, 'GET', `/conversation/${s.id}/messages`)).body;
    out.set(s.id, { view, thread });
  }
  return out;
}

describe('untouched data never changes', () => {
  it('deleting a tag or a custom field only removes that tag or value from untouched conversations', async () => {
    const s = findConversation(sb, (c) => c.tags.length > 0);
    const tagId = s.tags[0]!;
    const inboxId = s.inboxId;
    const before = await inboxState(inboxId);
    expect(before.size).toBeGreaterThan(5);
    const field = sb.store.customFields(inboxId)[0]!;
    expect((await call(sb, 'DELETE', `/settings/tags/${tagId}`)).status).toBe(200);
    expect((await call(sb, 'DELETE', `/inboxes/${inboxId}/custom-fields/${field.id}`)).status).toBe(200);
    const after = await inboxState(inboxId);
    expect([...after.keys()]).toEqual([...before.keys()]);
    let withTag = 0;
    for (const [id, was] of before) {
      const expected = structuredClone(was);
      if (expected.view.tags.includes(tagId)) withTag++;
      expected.view.tags = expected.view.tags.filter((t: string) => t !== tagId);
      delete expected.view.custom_field_values[field.key];
      expect(after.get(id), id).toEqual(expected);
    }
    expect(withTag).toBeGreaterThan(0);
  });
});
