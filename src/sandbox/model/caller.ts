import type { Organization, User } from './model.js';

/** Who is calling, resolved from the bearer token. */
export interface Caller {
  user: User;
  organization: Organization;
  /** Personal access token (false for the partner-issued class). */
  isPat: boolean;
  scopes: readonly string[];
}
