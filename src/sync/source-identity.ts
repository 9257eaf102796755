import type { HelpdeskApi, ReadRequest } from '../api/index.js';
import type { ManifestSource } from '../output/manifest.js';
import { isPlainObject } from '../plain-object.js';

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/** GET /me, read as a stream reads it: through the run's api, the response serves every reader of the run. */
const ME: ReadRequest = { path: '/me', paginator: 'single' };

/**
 * What a run reads, for its manifest: the configured base URL (without a trailing
 * slash) and the organization `GET /me` names (API document, "Other operations":
 * "organization (company, slug)"). One request per run, shared with any stream
 * reading /me (the run's api keeps the response); a loader compares it with what
 * a warehouse holds so that two helpdesks never merge into one table.
 */
export async function sourceIdentity(api: HelpdeskApi, baseUrl: string, signal?: AbortSignal): Promise<ManifestSource> {
  let me: unknown;
  for await (const resource of api.read(ME, { signal })) me = resource;
  const organization = isPlainObject(me) && isPlainObject(me.organization) ? me.organization : {};
  return {
    base_url: baseUrl.replace(/\/+$/, ''),
    organization: { slug: text(organization.slug), company: text(organization.company) },
  };
}
