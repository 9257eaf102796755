/**
 * Errors a route throws to answer with a status and a `{message}` body (API
 * document, Errors: "Every error is JSON with at least message"). Anything else
 * thrown becomes a 500 with an incident id (see ../requests/error-handler.ts).
 */
export class SandboxHttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'SandboxHttpError';
  }

  body(): Record<string, unknown> {
    return { message: this.message, ...this.extra };
  }
}

export const NOT_FOUND_MESSAGE = 'Not found.';
export const INVALID_MESSAGE = 'The given data was invalid.';
export const PAT_ONLY_MESSAGE = 'This action requires a personal access token.';

export function notFound(message = NOT_FOUND_MESSAGE): SandboxHttpError {
  return new SandboxHttpError(404, message);
}

export function forbidden(message = 'This action is unauthorized.'): SandboxHttpError {
  return new SandboxHttpError(403, message);
}

export function conflict(message: string): SandboxHttpError {
  return new SandboxHttpError(409, message);
}

/** 422 `{message: "The given data was invalid.", errors: {field: [..]}}` (API document, Errors). */
export function invalid(errors: Record<string, string[]>): SandboxHttpError {
  return new SandboxHttpError(422, INVALID_MESSAGE, { errors });
}

export function invalidField(field: string, message: string): SandboxHttpError {
  return invalid({ [field]: [message] });
}
