import { FaultInjector, parseFaults } from './deployment/faults.js';
import { parseQuirks } from './deployment/quirks.js';
import { RateLimiter } from './deployment/rate-limit.js';
import { createClock } from './model/clock.js';
import { type OffsiteRequest, startOffsiteOrigin } from './requests/offsite-origin.js';
import { type SandboxStats, StatsRecorder } from './requests/stats.js';
import { organizationTokenNames } from './requests/tokens.js';
import { checkOrganizationSizes, OrganizationSizesError } from './seed/organization-sizes.js';
import { SandboxStore } from './store/sandbox-store.js';

export { FaultSpecError, parseFaults } from './deployment/faults.js';
export { parseQuirks, QUIRK_NAMES, type QuirkName, QuirkSpecError } from './deployment/quirks.js';
export type { OffsiteRequest } from './requests/offsite-origin.js';
export type { SandboxStats } from './requests/stats.js';
export { SANDBOX_TOKENS } from './requests/tokens.js';
export { MAX_ORGANIZATIONS } from './seed/organization-plans.js';
export { OrganizationSizesError, parseOrganizationSizes } from './seed/organization-sizes.js';
export { SandboxStore } from './store/sandbox-store.js';

export interface SandboxOptions {
  /** @default '127.0.0.1' */
  host?: string;
  /** 0 picks a free port. @default 0 */
  port?: number;
  /** Same seed, same data. @default 1 */
  seed?: number;
  /** Seeded conversations across both organizations (85 % acme, 15 % globex). Not with `organizations`. @default 500 */
  conversations?: number;
  /**
   * Conversations per organization, in the sandbox's order (acme, globex,
   * initech, umbrella, hooli, soylent, tyrell, massive; at most
   * MAX_ORGANIZATIONS): that many organizations, each with exactly its count
   * and its own teammates, inboxes, contacts, hours and `<slug>-admin` and
   * `<slug>-agent` tokens. Not with `conversations`.
   * @default acme and globex sharing `conversations`
   * @example [1000, 300, 50]
   */
  organizations?: readonly number[];
  /** Requests per window per client IP (API document, Limits: api.global). @default 300 */
  rateLimit?: number;
  /** @default 60 */
  rateWindowSeconds?: number;
  /** Fault spec, e.g. `500:0.05,reset:0.02,slow:0.05:2000,429:0.02`. @default none */
  faults?: string;
  /** Quirks to serve, e.g. `trash-hidden,search-cap:30` or a list of names (docs/sandbox.md). @default none */
  quirks?: string | readonly string[];
  /** Base of the sandbox clock. @default the wall clock */
  now?: () => Date;
  /** false (default): silent. true, pino options, or a pino logger. */
  logger?: boolean | object;
}

export interface RunningSandbox {
  /** e.g. http://127.0.0.1:41234/v1 */
  baseUrl: string;
  /** e.g. http://127.0.0.1:41234 */
  origin: string;
  clock: { now(): Date; advance(ms: number): void; set(d: Date): void };
  store: SandboxStore;
  stats(): SandboxStats;
  resetStats(): void;
  /** The organizations served, in order (organization 1 first). */
  organizations: SandboxOrganization[];
  /** Under `offsite-redirect`: the other origin GET /v1/holidays is redirected to, and what reached it. */
  offsite?: { origin: string; received(): OffsiteRequest[] };
  close(): Promise<void>;
}

/** One organization of a running sandbox. */
export interface SandboxOrganization {
  /** e.g. `acme`, as `GET /me` names it. */
  slug: string;
  company: string;
  /** Seeded conversations. */
  conversations: number;
  /** `<slug>-admin` (Account Owner, users:read) and `<slug>-agent` (role User, no scope); both personal access tokens. */
  tokens: { admin: string; agent: string };
}

export const DEFAULT_CONVERSATIONS = 500;

function checkOptions(o: SandboxOptions): void {
  const wholeFrom = (name: string, value: number | undefined, min: number) => {
    if (value !== undefined && (!Number.isSafeInteger(value) || value < min)) {
      throw new RangeError(`Expected \`${name}\` to be a whole number from ${min} up, got \`${value}\``);
    }
  };
  wholeFrom('port', o.port, 0);
  if (o.port !== undefined && o.port > 65535)
    throw new RangeError(`Expected \`port\` to be at most 65535, got \`${o.port}\``);
  wholeFrom('seed', o.seed, 0);
  wholeFrom('conversations', o.conversations, 0);
  wholeFrom('rateLimit', o.rateLimit, 1);
  wholeFrom('rateWindowSeconds', o.rateWindowSeconds, 1);
  if (o.organizations === undefined) return;
  if (o.conversations !== undefined) {
    throw new RangeError(
      'Expected either `conversations` or `organizations`, got both: `organizations` gives each organization its conversations',
    );
  }
  try {
    checkOrganizationSizes(o.organizations);
  } catch (error) {
    if (error instanceof OrganizationSizesError)
      throw new RangeError(`\`organizations\`: ${error.message}`, { cause: error });
    throw error;
  }
}

/** Starts the sandbox Helpdesk API on a real socket. */
export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  checkOptions(options);
  const seed = options.seed ?? 1;
  const clock = createClock(options.now);
  const quirks = parseQuirks(options.quirks);
  const store = new SandboxStore({
    seed,
    conversations: options.conversations ?? DEFAULT_CONVERSATIONS,
    ...(options.organizations ? { organizations: options.organizations } : {}),
    clock,
    quirks,
  });
  clock.onChange(() => store.purgeExpired());
  const stats = new StatsRecorder();
  const limiter = new RateLimiter(options.rateLimit ?? 300, (options.rateWindowSeconds ?? 60) * 1000, () =>
    clock.now().getTime(),
  );
  const faults = new FaultInjector(parseFaults(options.faults), seed);
  // fastify and the routes are loaded when a sandbox starts, not with every CLI command that never runs one.
  const { buildServer } = await import('./server.js');
  const offsite = quirks.has('offsite-redirect') ? await startOffsiteOrigin(options.host ?? '127.0.0.1') : undefined;
  const app = await buildServer({
    store,
    clock,
    limiter,
    faults,
    stats,
    logger: options.logger ?? false,
    ...(offsite ? { offsiteOrigin: offsite.origin } : {}),
  });
  try {
    await app.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 0 });
  } catch (error) {
    await offsite?.close();
    throw error;
  }
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('sandbox: no TCP address after listen');
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const origin = `http://${host}:${address.port}`;
  const sizes = store.seededSizes();
  const organizations = store.world.organizations.map((o, k) => ({
    slug: o.slug,
    company: o.company,
    conversations: sizes[k] ?? 0,
    tokens: organizationTokenNames(o.slug),
  }));
  return {
    baseUrl: `${origin}/v1`,
    origin,
    clock: { now: () => clock.now(), advance: (ms) => clock.advance(ms), set: (d) => clock.set(d) },
    store,
    organizations,
    stats: () => stats.snapshot(),
    resetStats: () => stats.reset(),
    ...(offsite ? { offsite: { origin: offsite.origin, received: () => offsite.received() } } : {}),
    close: async () => {
      await app.close();
      await offsite?.close();
    },
  };
}
