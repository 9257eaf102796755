import type { TableName } from '../../../../src/output/tables.js';

/**
 * One record per table with every documented field, shaped as the streams hand
 * them over (API fields plus context fields), per the API document and the
 * sandbox wire shapes. `n` varies ids and values.
 */
export function sampleRecord(table: TableName, n = 1): Record<string, unknown> {
  const id = (prefix: string) => `${prefix}-${String(n).padStart(8, '0')}-4c1b-9e7a-1234567890ab`;
  const contact = {
    id: id('contact'),
    name: `Dana ${n}`,
    email: `dana${n}@example.com`,
    avatar: 'https://example.com/a.png',
    company: 'Acme',
    website: 'https://acme.example',
    job_title: 'Buyer',
    address: '1 Main St',
    should_display_image: true,
    notes: 'prefers email',
    conversations_count: 3,
  };
  const message = {
    id: id('message'),
    cc: ['cc@example.com'],
    bcc: [],
    record_type: 'message',
    status: 'sent',
    direction: 'inbound',
    viewed_at: '2026-03-01T10:05:00+01:00',
    created_at: '2026-03-01T09:00:00Z',
    text_body: `Where is my order ${n}?`,
    excerpt: 'Where is my order',
    html_body: `<p>Where is my order ${n}?</p>`,
    extra: { source: 'email' },
    is_clipped: false,
    intended_inbox_address_id: id('address'),
  };
  switch (table) {
    case 'conversations':
      return {
        id: id('conv'),
        inbox_id: id('inbox'),
        ticket_id: 1000 + n,
        has_attachment: n % 2 === 0,
        has_inline_attachment: false,
        is_draft: false,
        is_scheduled: false,
        is_snoozed: false,
        active: true,
        subject: `Order ${n} has not arrived`,
        updated_subject: `Order ${n} has not arrived`,
        status: ['Active', 'Pending', 'Closed'][n % 3],
        is_spam: false,
        priority: 'High',
        assignable_type: 'user',
        assignable_id: id('user'),
        created_at: '2026-03-01T09:00:00Z',
        updated_at: '2026-03-01T10:00:00.123Z',
        deleted_at: null,
        closed_at: null,
        excerpt: 'Where is my order',
        messages_count: 2,
        last_message_created_at: '2026-03-01T09:30:00Z',
        intended_inbox_address_id: id('address'),
        agents: [id('user')],
        contact,
        last_message: message,
        custom_field_values: { order_number: `A-${n}`, vip: true },
        viewer_id: null,
        viewed_at: '2026-03-01 10:00:00',
        last_message_by: 'contact',
      };
    case 'messages':
      return {
        ...message,
        conversation_id: id('conv'),
        attachments: [{ id: id('att'), name: 'invoice.pdf' }],
      };
    case 'thread_events':
      return {
        conversation_id: id('conv'),
        position: n,
        event_type: 'message',
        event: message,
        actor: { type: 'contact', id: contact.id, name: contact.name },
        extra: {},
      };
    case 'attachments':
      return {
        id: id('att'),
        message_id: id('message'),
        conversation_id: id('conv'),
        name: 'invoice.pdf',
        content_type: 'application/pdf',
        size: 52_344,
        url: 'https://files.example.com/invoice.pdf',
        created_at: '2026-03-01T09:00:00Z',
      };
    case 'contacts':
      return contact;
    case 'tags':
      return { id: id('tag'), inbox_id: id('inbox'), name: 'billing', color: '#FF8800' };
    case 'inboxes':
      return {
        id: id('inbox'),
        name: 'Support',
        business_hour_enabled: true,
        off_hours_auto_reply_subject: 'We are closed',
        off_hours_auto_reply_body: null,
        folder_counts: { active: 4, pending: 1, closed: 20, spam: 0, trash: 2 },
        agents: [id('user')],
        teams: [{ id: id('team'), name: 'Tier 1' }],
        satisfaction_ratings: { enabled: true, scale: 5 },
      };
    case 'users':
      return {
        id: id('user'),
        name: 'Sam Agent',
        first_name: 'Sam',
        last_name: 'Agent',
        email: 'sam@example.com',
        avatar: null,
        phone: null,
        role: 'Administrator',
        status: 'active',
        presence: 'online',
        extra: { preferences: { theme: 'dark' } },
      };
    case 'business_hours':
      return {
        id: id('bh'),
        name: 'EU support',
        type: 'business_hours',
        weekly_schedule: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((day) => ({
          day,
          start: day === 'sunday' ? null : '09:00',
          end: day === 'sunday' ? null : '17:00',
        })),
        inbox_channels: [{ inbox_id: id('inbox'), channel: 'email' }],
        created_at: '2026-01-01T00:00:00Z',
        updated_at: '2026-01-02T00:00:00Z',
      };
    case 'holidays':
      return {
        id: id('holiday'),
        name: "New Year's Day",
        start_date: '2027-01-01',
        end_date: '2027-01-01',
        status: 'upcoming',
        created_at: '2026-01-01T00:00:00Z',
        updated_at: '2026-01-01T00:00:00Z',
      };
    case 'report_productivity_daily':
      return {
        inbox_id: id('inbox'),
        date: `2026-03-${String((n % 28) + 1).padStart(2, '0')}`,
        resolved_conversations_with_multiple_reply: 3,
        resolved_conversations_with_one_reply: 5,
        assigned_conversations: 9,
        created_conversations: 11,
        conversations_with_responses: [
          { id: id('conv'), created_at: '2026-03-01T09:00:00Z', messages: [{ id: id('message') }] },
        ],
        resolutions_with_time: [{ date: '2026-03-01', resolution_time: '01:30:00' }],
        avg_replies_to_resolution: 1.5,
      };
    case 'account':
      // GET /me: the current user and the organization (API document, Other operations).
      return {
        id: id('user'),
        name: `Ada ${n}`,
        email: `ada${n}@example.com`,
        role: 'Account Owner',
        organization: { company: `Acme ${n}`, slug: `acme-${n}` },
      };
  }
}
