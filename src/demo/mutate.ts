/** Minimal HTTP calls the demo uses to change the sandbox, as any API user would. */
async function call(baseUrl: string, token: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} → ${response.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

interface ListedConversation {
  id: string;
  subject: string;
  status: string;
  deleted_at: string | null;
}

/** Replies to one conversation, closes another, trashes a third and force-deletes a fourth. */
export async function mutateThroughApi(baseUrl: string, token: string): Promise<string[]> {
  const page = (await call(baseUrl, token, 'POST', '/search', { per_page: 20, sort: 'newest' })) as {
    data: { conversations: { data: ListedConversation[] } };
  };
  const live = page.data.conversations.data.filter((c) => c.deleted_at === null);
  const [replied, closed, trashed, destroyed] = live;
  if (!replied || !closed || !trashed || !destroyed) throw new Error('the sandbox has too few live conversations');
  const lines: string[] = [];

  await call(baseUrl, token, 'POST', `/conversation/${replied.id}/draft`, {
    message: '<p>Thanks, fixed now.</p>',
    cc: [],
  });
  await call(baseUrl, token, 'POST', `/conversation/${replied.id}/reply`, { status: 'Pending' });
  lines.push(`replied to ${replied.id} ("${replied.subject}")`);

  const next = closed.status === 'Closed' ? 'Active' : 'Closed';
  await call(baseUrl, token, 'PATCH', `/conversation/${closed.id}`, { status: next });
  lines.push(`status of ${closed.id}: ${closed.status} → ${next}`);

  await call(baseUrl, token, 'DELETE', `/conversation/${trashed.id}`);
  lines.push(`moved ${trashed.id} to the trash`);

  await call(baseUrl, token, 'DELETE', `/conversation/${destroyed.id}`);
  await call(baseUrl, token, 'DELETE', `/conversation/${destroyed.id}/force-delete`);
  lines.push(`force-deleted ${destroyed.id} (trash, then force-delete)`);
  return lines;
}
