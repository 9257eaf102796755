import { createHash } from 'node:crypto';
import { channelKey, type InboxChannel, type StoredHoliday, type StoredProfile } from './hours-model.js';

/** What the store needs to know about an organization. */
export interface HoursOrganization {
  id: string;
  timezone: string;
  inboxIds: string[];
}

export type SeedOrganization = (store: HoursStore, org: HoursOrganization, index: number) => void;

/**
 * In-memory profiles and holidays of every organization. Ids are UUID-formatted
 * and derived from the seed and a counter, so a run with the same seed and the
 * same requests hands out the same ids. Each organization is seeded on first use.
 */
export class HoursStore {
  private readonly profilesById = new Map<string, StoredProfile>();
  private readonly holidaysById = new Map<string, StoredHoliday>();
  private readonly seeded = new Set<string>();
  private counter = 0;

  constructor(
    private readonly seed: number,
    private readonly seedOrganization: SeedOrganization,
  ) {}

  /** Seeds `org` if this is the first time it is seen. */
  ensureSeeded(org: HoursOrganization, index: number): void {
    if (this.seeded.has(org.id)) return;
    this.seeded.add(org.id);
    this.seedOrganization(this, org, index);
  }

  newId(kind: string): string {
    this.counter += 1;
    const hex = createHash('sha256').update(`${this.seed}:${kind}:${this.counter}`).digest('hex');
    const variant = ((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  }

  profiles(organizationId: string): StoredProfile[] {
    return [...this.profilesById.values()].filter((p) => p.organizationId === organizationId);
  }

  profile(organizationId: string, id: string): StoredProfile | undefined {
    const p = this.profilesById.get(id);
    return p && p.organizationId === organizationId ? p : undefined;
  }

  saveProfile(profile: StoredProfile): void {
    this.profilesById.set(profile.id, profile);
  }

  deleteProfile(id: string): void {
    this.profilesById.delete(id);
  }

  /**
   * The first channel of `channels` that another profile of the organization
   * already covers (a channel belongs to at most one profile: API document,
   * Business-hours profile), or undefined.
   */
  conflict(
    organizationId: string,
    channels: InboxChannel[],
    exceptProfileId?: string,
  ): { profileId: string; channel: InboxChannel } | undefined {
    const owners = new Map<string, string>();
    for (const p of this.profiles(organizationId)) {
      if (p.id === exceptProfileId) continue;
      for (const c of p.inbox_channels) owners.set(channelKey(c), p.id);
    }
    for (const c of channels) {
      const owner = owners.get(channelKey(c));
      if (owner) return { profileId: owner, channel: c };
    }
    return undefined;
  }

  holidays(organizationId: string): StoredHoliday[] {
    return [...this.holidaysById.values()].filter((h) => h.organizationId === organizationId);
  }

  holiday(organizationId: string, id: string): StoredHoliday | undefined {
    const h = this.holidaysById.get(id);
    return h && h.organizationId === organizationId ? h : undefined;
  }

  saveHoliday(holiday: StoredHoliday): void {
    this.holidaysById.set(holiday.id, holiday);
  }

  deleteHoliday(id: string): void {
    this.holidaysById.delete(id);
  }
}
