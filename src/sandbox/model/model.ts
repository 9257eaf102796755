/**
 * The sandbox's own records. Field names follow the API document's tables;
 * fields starting with an upper-case-free internal name (organizationId,
 * addressId) never go on the wire: see the `*-wire.ts` serialisers.
 */
export type Role = 'Account Owner' | 'Administrator' | 'User';
export type Status = 'Active' | 'Pending' | 'Closed';
export type Priority = 'High' | 'Medium' | 'Low';
export const STATUSES: readonly Status[] = ['Active', 'Pending', 'Closed'];
export const PRIORITIES: readonly Priority[] = ['High', 'Medium', 'Low'];

export interface Organization {
  id: string;
  company: string;
  slug: string;
  timezone: string;
  trash_lifetime_days: number;
  permissions: Record<string, unknown>;
}

export interface User {
  id: string;
  organizationId: string;
  name: string;
  first_name: string;
  last_name: string;
  email: string;
  avatar: string | null;
  phone: string | null;
  role: Role;
  status: 'active' | 'invited';
  presence: 'online' | 'away' | 'offline' | null;
  extra: { preferences: Record<string, unknown> };
}

export interface Inbox {
  id: string;
  organizationId: string;
  name: string;
  business_hour_enabled: boolean;
  off_hours_auto_reply_subject: string | null;
  off_hours_auto_reply_body: string | null;
  agents: string[];
  teams: Array<{ id: string; name: string }>;
  satisfaction_ratings: Record<string, unknown>;
  /** The inbox's receiving address: a conversation's intended_inbox_address_id. */
  addressId: string;
}

export interface Tag {
  id: string;
  inbox_id: string;
  name: string;
  color: string;
}

export type CustomFieldType = 'text' | 'textarea' | 'dropdown' | 'toggle' | 'number';

export interface CustomField {
  id: string;
  inbox_id: string;
  name: string;
  key: string;
  description: string;
  type: CustomFieldType;
  default_value: string | boolean | number | null;
  is_required: boolean;
  is_active: boolean;
  order: number;
  extra: Record<string, unknown>;
  options: Array<{ id: string; value: string }>;
  conditions: Array<Record<string, unknown>>;
  created_at: string;
  readable_created_at: string;
}

export interface Contact {
  id: string;
  organizationId: string;
  name: string | null;
  email: string;
  avatar: string | null;
  company: string | null;
  website: string | null;
  job_title: string | null;
  address: string | null;
  should_display_image: boolean;
  notes: string | null;
}

export interface Attachment {
  id: string;
  name: string;
  content_type: string;
  size: number;
  url: string;
  created_at: string;
}

export interface Message {
  id: string;
  cc: string[];
  bcc: string[];
  record_type: 'message' | 'note';
  status: string;
  direction: 'inbound' | 'outbound' | 'internal';
  viewed_at: string | null;
  created_at: string;
  text_body: string;
  excerpt: string;
  html_body: string;
  extra: Record<string, unknown>;
  is_clipped: boolean;
  intended_inbox_address_id: string;
  attachments: Attachment[];
}

export type ThreadEventType =
  | 'message'
  | 'note'
  | 'status_changed'
  | 'assigned'
  | 'tagged'
  | 'moved'
  | 'merged'
  | 'snoozed'
  | 'spam'
  | 'trashed'
  | 'restored'
  | 'contact_changed';

export interface Actor {
  type: 'user' | 'contact' | 'system';
  id: string | null;
  name: string | null;
}

export interface ThreadEvent {
  event_type: ThreadEventType;
  event: Message | null;
  actor: Actor;
  extra: Record<string, unknown>;
  /** When it happened (ms); the Message's created_at for message events. */
  at: number;
}

/** Everything about one conversation; built from the seed or kept in the overlay once changed. */
export interface ConversationState {
  index: number;
  id: string;
  organizationId: string;
  inboxId: string;
  ticketId: number;
  subject: string;
  updatedSubject: string;
  status: Status;
  priority: Priority;
  isSpam: boolean;
  assigneeId: string | null;
  contactIndex: number;
  createdAt: number;
  updatedAt: number;
  deletedAt: number | null;
  closedAt: number | null;
  snoozedUntil: number | null;
  hasInlineAttachment: boolean;
  viewerId: string | null;
  viewedAt: string | null;
  tags: string[];
  customFieldValues: Record<string, unknown>;
  events: ThreadEvent[];
}
