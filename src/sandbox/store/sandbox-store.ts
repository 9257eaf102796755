import { NO_QUIRKS, type Quirks } from '../deployment/quirks.js';
import type { SandboxClock } from '../model/clock.js';
import { idFor } from '../model/ids.js';
import type { CustomField, Inbox, Organization, Tag, User } from '../model/model.js';
import { assignOrganizations } from '../seed/assign-organizations.js';
import { contactLayout, contactLayoutOfSizes } from '../seed/contact-layout.js';
import { buildConversationTable, type ConversationTable } from '../seed/conversation-table.js';
import { DEFAULT_ORGANIZATIONS } from '../seed/organization-plans.js';
import { buildWorld, type World } from '../seed/world.js';
import { ContactBook } from './contact-book.js';
import { ConversationBook } from './conversation-book.js';
import { TextIndex } from './text-index.js';

export interface Draft {
  draft_id: string;
  message: string;
  cc: string[];
  updated_at: number;
}

export interface SandboxStoreOptions {
  seed: number;
  /** Seeded conversations, split between the first two organizations (85 % / 15 %); ignored with `organizations`. */
  conversations: number;
  /**
   * Conversations per organization (checked by checkOrganizationSizes): builds
   * that many organizations, each with exactly its count. @default the split above
   */
  organizations?: readonly number[];
  clock: SandboxClock;
  /** Ways to differ from the kind default (docs/sandbox.md, "Quirks"). @default none */
  quirks?: Quirks;
}

const DAY_MS = 86_400_000;

/**
 * All sandbox data, in memory. Lookups that take an organization id answer
 * undefined both for absent ids and for ids of another organization, so routes
 * turn both into the same 404 (API document, Authentication rule 8).
 */
export class SandboxStore {
  readonly seed: number;
  readonly world: World;
  readonly table: ConversationTable;
  readonly contacts: ContactBook;
  readonly conversations: ConversationBook;
  /** One draft per user per conversation, keyed `conversationId:userId` (API document, Other resources). */
  readonly drafts = new Map<string, Draft>();
  readonly textIndex = new TextIndex(this);
  readonly quirks: Quirks;
  /** Signed URLs handed out so far (volatile-views: every read signs anew). */
  private signatures = 0;
  private readonly clock: SandboxClock;
  private created = 0;

  constructor(options: SandboxStoreOptions) {
    this.seed = options.seed;
    this.clock = options.clock;
    this.quirks = options.quirks ?? NO_QUIRKS;
    const sizes = options.organizations;
    const organizationCount = sizes?.length ?? DEFAULT_ORGANIZATIONS;
    this.world = buildWorld(options.seed, organizationCount);
    const layout = sizes ? contactLayoutOfSizes(sizes) : contactLayout(options.conversations);
    const owner = sizes ? assignOrganizations(options.seed, sizes) : undefined;
    const count = owner ? owner.length : options.conversations;
    this.table = buildConversationTable(options.seed, this.world, count, layout, owner);
    const orgIds = this.world.organizations.map((o) => o.id);
    this.contacts = new ContactBook(options.seed, layout, orgIds);
    for (let i = 0; i < this.table.count; i++) this.contacts.adjustCount(this.table.contact[i]!, 1);
    // Generation reads a second, never-changed copy of the world: an untouched
    // conversation must come out the same whatever tags, custom fields or
    // options are created, changed or deleted later (a real server never
    // rewrites data nobody touched). Deleted tags and fields drop out when the
    // record is put on the wire (see wire.ts), without moving anything else.
    const ctx = {
      seed: options.seed,
      world: buildWorld(options.seed, organizationCount),
      table: this.table,
      contact: (k: number) => this.contacts.get(k),
    };
    const inboxIndex = new Map(this.world.inboxes.map((b, k) => [b.id, k]));
    const userIndex = new Map(this.world.users.map((u, k) => [u.id, k]));
    this.conversations = new ConversationBook(ctx, inboxIndex, userIndex);
  }

  /** The sandbox clock to the millisecond, for what lasts less than seconds (odd-retry-after's spells). */
  nowMs(): number {
    return this.clock.now().getTime();
  }

  /** The sandbox clock in whole seconds: stored timestamps carry no milliseconds. */
  now(): number {
    return Math.floor(this.clock.now().getTime() / 1000) * 1000;
  }

  /** A fresh UUID-formatted id for something created through the API; same requests, same ids. */
  newId(kind: string): string {
    return idFor(this.seed, `created-${kind}`, this.created++);
  }

  /**
   * volatile-views: a URL signed for this read only, as a CDN in front of the
   * avatars would hand out (a new query string on every read); else as stored.
   */
  signedUrl(url: string | null): string | null {
    if (url === null || !this.quirks.has('volatile-views')) return url;
    this.signatures++;
    return `${url.split('?')[0]}?expires=${Math.floor(this.now() / 1000) + 3600}&sig=${this.signatures.toString(36)}`;
  }

  /** forbidden-threads: the inbox whose threads the token may not read (the first organization's last inbox). */
  forbiddenInboxId(): string | undefined {
    if (!this.quirks.has('forbidden-threads')) return undefined;
    return this.inboxes(this.world.organizations[0]!.id).at(-1)?.id;
  }

  /** Seeded conversations per organization, in the world's order (what the table was built with). */
  seededSizes(): number[] {
    const sizes = this.world.organizations.map(() => 0);
    const orgOfInbox = this.world.inboxes.map((b) =>
      this.world.organizations.findIndex((o) => o.id === b.organizationId),
    );
    for (let i = 0; i < this.table.count; i++) {
      const org = orgOfInbox[this.table.inbox[i]!]!;
      sizes[org] = (sizes[org] ?? 0) + 1;
    }
    return sizes;
  }

  organization(id: string): Organization | undefined {
    return this.world.organizations.find((o) => o.id === id);
  }

  users(organizationId: string): User[] {
    return this.world.users.filter((u) => u.organizationId === organizationId);
  }

  user(organizationId: string, id: unknown): User | undefined {
    return this.world.users.find((u) => u.id === id && u.organizationId === organizationId);
  }

  inboxes(organizationId: string): Inbox[] {
    return this.world.inboxes.filter((b) => b.organizationId === organizationId);
  }

  inbox(organizationId: string, id: unknown): Inbox | undefined {
    return this.world.inboxes.find((b) => b.id === id && b.organizationId === organizationId);
  }

  tags(inboxId: string): Tag[] {
    return this.world.tags.filter((t) => t.inbox_id === inboxId);
  }

  tag(organizationId: string, id: unknown): Tag | undefined {
    const tag = this.world.tags.find((t) => t.id === id);
    return tag && this.inbox(organizationId, tag.inbox_id) ? tag : undefined;
  }

  tagExists(id: string): boolean {
    return this.world.tags.some((t) => t.id === id);
  }

  customFields(inboxId: string): CustomField[] {
    return this.world.customFields.filter((f) => f.inbox_id === inboxId);
  }

  customField(organizationId: string, inboxId: string, id: string): CustomField | undefined {
    if (!this.inbox(organizationId, inboxId)) return undefined;
    return this.world.customFields.find((f) => f.id === id && f.inbox_id === inboxId);
  }

  /** Index of a conversation of this organization (live or trashed), else undefined. */
  findConversation(organizationId: string, id: string): number | undefined {
    const index = this.conversations.indexOf(id);
    if (index === undefined) return undefined;
    const inbox = this.world.inboxes[this.table.inbox[index]!];
    return inbox?.organizationId === organizationId ? index : undefined;
  }

  /** Permanent deletion: the record, its thread and everything hanging off it go (API document, States). */
  destroy(index: number): void {
    const state = this.conversations.get(index);
    this.contacts.adjustCount(state.contactIndex, -1);
    for (const key of [...this.drafts.keys()]) if (key.startsWith(`${state.id}:`)) this.drafts.delete(key);
    this.conversations.remove(index);
  }

  /** Purges trashed conversations whose organization's trash lifetime has passed (API document, States). */
  purgeExpired(): number {
    const now = this.now();
    let purged = 0;
    for (const index of [...this.conversations.trashed]) {
      const state = this.conversations.get(index);
      const org = this.organization(state.organizationId);
      const lifetime = (org?.trash_lifetime_days ?? 30) * DAY_MS;
      if (state.deletedAt !== null && state.deletedAt + lifetime <= now) {
        this.destroy(index);
        purged++;
      }
    }
    return purged;
  }
}
