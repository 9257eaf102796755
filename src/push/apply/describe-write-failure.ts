import { API_ERROR_CODES, type ApiError, type HintContext, hintFor, isApiError, WEEKDAYS } from '../../api/index.js';
import { entryLabel } from '../files/issue-path.js';
import type { ApplyStep } from './apply-steps.js';

/** Inbox id → name, for messages people can act on. */
export type InboxNames = ReadonlyMap<string, string>;

/**
 * Hints of a failed write, in the terms of apply (API document, Other
 * operations: "Writes on business hours and holidays are limited to
 * administrators and the account owner"; all ten operations are PAT only). A
 * 404 means the object went away after the plan was read.
 */
const WRITE_HINTS: HintContext = {
  own: {
    [API_ERROR_CODES.forbidden]:
      'writing business hours and holidays needs an administrator or the account owner, with a personal access token',
    [API_ERROR_CODES.notFound]: 'the remote object is gone (deleted since the plan was made); run apply again',
  },
};

function inboxLabel(id: unknown, names: InboxNames): string {
  const name = names.get(String(id));
  return name ? `inbox "${name}" (${String(id)})` : `inbox ${String(id)}`;
}

/**
 * An API field path in config terms: we send the schedule in weekday order, so
 * `weekly_schedule.4.start` is `schedule.friday.start`; `inbox_channels.N` is
 * the Nth channel of the profile as written to the API (sorted by inbox id).
 */
export function configField(apiField: string, step: ApplyStep): string {
  const schedule = /^weekly_schedule\.(\d+)(\..+)?$/.exec(apiField);
  if (schedule) return `schedule.${WEEKDAYS[Number(schedule[1])] ?? schedule[1]}${schedule[2] ?? ''}`;
  const channel = /^inbox_channels\.(\d+)(\..+)?$/.exec(apiField);
  const channels = (step.body as { inbox_channels?: Array<{ inbox_id: string; channel: string }> } | undefined)
    ?.inbox_channels;
  if (channel && channels?.[Number(channel[1])]) {
    const c = channels[Number(channel[1])]!;
    return `channels (${c.inbox_id} ${c.channel})${channel[2] ?? ''}`;
  }
  if (apiField === 'weekly_schedule') return 'schedule';
  if (apiField === 'inbox_channels') return 'channels';
  return apiField;
}

/** Where the failed step comes from in the config, when it has an entry there. */
function origin(step: ApplyStep): string {
  return step.ref ? `${step.ref.file}, ${entryLabel(step.ref)}` : step.label;
}

/** A 422: the channel held by another profile (Errors: a body without `errors`), or the field errors in config terms. */
function refusedValues(step: ApplyStep, error: ApiError, api: string, names: InboxNames): string {
  const body = error.body as Record<string, unknown> | undefined;
  if (body && typeof body === 'object' && 'conflicting_business_hour_id' in body) {
    return `${inboxLabel(body.inbox_id, names)} ${String(body.channel)} is held by another business-hours profile (${String(body.conflicting_business_hour_id)}), changed since the plan was made; run apply again`;
  }
  const fields = Object.entries(error.fieldErrors ?? {}).map(
    ([f, msgs]) => `${configField(f, step)}: ${msgs.join(' ')}`,
  );
  return `the API refused the values${api}${fields.length ? `: ${fields.join('; ')}` : ''}`;
}

/**
 * One line saying why a write failed, in the terms of the config: 403 → who may
 * write; 422 → the API's field errors mapped to config fields, or the profile
 * that holds a channel (API document, Errors).
 */
export function describeWriteFailure(step: ApplyStep, error: unknown, names: InboxNames): string {
  if (!isApiError(error)) return `${origin(step)}: ${error instanceof Error ? error.message : String(error)}`;
  const api = error.apiMessage ? ` (${error.status}: ${error.apiMessage})` : error.status ? ` (${error.status})` : '';
  switch (error.code) {
    case API_ERROR_CODES.forbidden:
      return `${origin(step)}: the API refused the write${api}: ${hintFor(error, WRITE_HINTS)}`;
    case API_ERROR_CODES.validation:
      return `${origin(step)}: ${refusedValues(step, error, api, names)}`;
    case API_ERROR_CODES.notFound:
      return `${origin(step)}: ${hintFor(error, WRITE_HINTS)}`;
  }
  return `${origin(step)}: ${error.message}`;
}
