import { MAX_ORGANIZATIONS, ORGANIZATION_PLANS } from './organization-plans.js';

/** A list of organization sizes the sandbox cannot serve; the message names what it takes. */
export class OrganizationSizesError extends Error {
  readonly code = 'SANDBOX_ORGANIZATIONS_INVALID';

  constructor(message: string) {
    super(message);
    this.name = 'OrganizationSizesError';
  }
}

function tooMany(count: number): OrganizationSizesError {
  const slugs = ORGANIZATION_PLANS.map((p) => p.slug).join(', ');
  return new OrganizationSizesError(`at most ${MAX_ORGANIZATIONS} organizations (${slugs}), got ${count}`);
}

/**
 * Conversations per organization, in organization order (acme, globex,
 * initech, …): from 1 to MAX_ORGANIZATIONS whole numbers from 0 up.
 */
export function checkOrganizationSizes(sizes: readonly number[]): number[] {
  if (sizes.length === 0) throw new OrganizationSizesError('expected at least one organization size');
  if (sizes.length > MAX_ORGANIZATIONS) throw tooMany(sizes.length);
  sizes.forEach((n, k) => {
    if (!Number.isSafeInteger(n) || n < 0) {
      throw new OrganizationSizesError(`organization ${k + 1}: expected a whole number from 0 up, got ${n}`);
    }
  });
  return [...sizes];
}

/** `1000,300,50` → [1000, 300, 50], checked like checkOrganizationSizes. */
export function parseOrganizationSizes(spec: string): number[] {
  const items = spec.split(',').map((item) => item.trim());
  if (items.length > MAX_ORGANIZATIONS) throw tooMany(items.length);
  return checkOrganizationSizes(
    items.map((item, k) => {
      if (!/^\d+$/.test(item)) {
        throw new OrganizationSizesError(
          `organization ${k + 1}: expected a whole number from 0 up, got "${item}" (e.g. 1000,300,50)`,
        );
      }
      return Number(item);
    }),
  );
}
