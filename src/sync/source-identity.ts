import type { HelpdeskApi } from '../api/index.js';
import type { ManifestSource } from '../output/manifest.js';
import { isPlainObject } from '../plain-object.js';

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/**
 * What a run reads, for its manifest: the configured base URL (without a trailing
 * slash) and the organization `GET /me` names (API document, "Other operations":
 * "organization (company, slug)"). One request per run; a loader compares it with
 * what a warehouse holds so that two helpdesks never merge into one table.
 */
export async function sourceIdentity(api: HelpdeskApi, baseUrl: string, signal?: AbortSignal): Promise<ManifestSource> {
  const me = await api.me({ signal });
  const organization = isPlainObject(me.organization) ? me.organization : {};
  return {
    base_url: baseUrl.replace(/\/+$/, ''),
    organization: { slug: text(organization.slug), company: text(organization.company) },
  };
}
