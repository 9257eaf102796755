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

/**
 * `apply --plan`: the saved plan was made from other push files, another helpdesk
 * or another state than there are now; nothing applied; exit 1.
 */
export class PlanStaleError extends HelpdeskSyncError {
  readonly code = 'PUSH_PLAN_STALE';
  /** The remote objects that moved (`holiday 123 changed`), when that is why. */
  readonly moved: string[];

  constructor(message: string, options: { moved?: string[]; cause?: unknown } = {}) {
    super(message, options);
    this.moved = options.moved ?? [];
  }
}

/** `apply --plan`: the saved plan file cannot be read, or is not one; nothing was called; exit 64. */
export class SavedPlanFileError extends HelpdeskSyncError {
  readonly code = 'PUSH_PLAN_FILE';
  override readonly exitCode = 64;
}

/** `plan --out` / `apply --report`: the file asked for cannot be written (disk, permissions); exit 1. */
export class PushFileWriteError extends HelpdeskSyncError {
  readonly code = 'PUSH_FILE_WRITE';
}
