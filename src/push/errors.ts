import { HelpdeskSyncError } from '../errors.js';

/** The plan cannot be applied as it stands (a claimed channel sits in an unmanaged profile); exit 1. */
export class PushBlockedError extends HelpdeskSyncError {
  readonly code = 'PUSH_BLOCKED';
}

/** An apply stopped at a failed write; the message says what was applied and what was not; exit 1. */
export class PushApplyError extends HelpdeskSyncError {
  readonly code = 'PUSH_APPLY_FAILED';
}

/** The apply was not approved at the prompt; nothing was changed; exit 1. */
export class PushNotApprovedError extends HelpdeskSyncError {
  readonly code = 'PUSH_NOT_APPROVED';
}

/** Reading the remote objects failed (e.g. 403 for a partner token); exit 1. */
export class PushReadError extends HelpdeskSyncError {
  readonly code = 'PUSH_READ_FAILED';
}

/** `state rm` / `state mv` named a key state does not map, or a target key it already maps; exit 64. */
export class PushStateEditError extends HelpdeskSyncError {
  readonly code = 'PUSH_STATE_KEY';
  override readonly exitCode = 64;
}
