import { describe, expect, it } from 'vitest';
import { errorFromResponse } from '../../../src/api/errors/error-from-response.js';
import type { ApplyStep } from '../../../src/push/apply/apply-steps.js';
import { describeWriteFailure } from '../../../src/push/apply/describe-write-failure.js';
import type { PushApi } from '../../../src/push/plan/push-api.js';
import { readRemote } from '../../../src/push/plan/read-remote.js';

/** A real ApiError, as the client makes it from a response. */
function answered(status: number, message: string) {
  return errorFromResponse(
    { status, headers: {}, body: JSON.stringify({ message }) },
    { method: 'GET', url: 'http://api.test/v1/holidays' },
  );
}

const step: ApplyStep = {
  phase: 4,
  op: 'update',
  kind: 'holiday',
  key: 'ny',
  ref: { file: 'h.yaml', list: 'holidays', index: 0, key: 'ny' },
  remote_id: 'h-1',
  label: 'update holiday ny',
};

describe('describeWriteFailure hints', () => {
  it('404: the object went away since the plan', () => {
    expect(describeWriteFailure(step, answered(404, 'Not found.'), new Map())).toBe(
      'h.yaml, holidays[0] (key "ny"): the remote object is gone (deleted since the plan was made); run apply again',
    );
  });

  it('403: who may write', () => {
    expect(describeWriteFailure(step, answered(403, 'No.'), new Map())).toBe(
      'h.yaml, holidays[0] (key "ny"): the API refused the write (403: No.): writing business hours and holidays needs an administrator or the account owner, with a personal access token',
    );
  });

  it('any other status: the error as it is, without a hint', () => {
    const error = answered(409, 'Busy.');
    expect(describeWriteFailure(step, error, new Map())).toBe(`h.yaml, holidays[0] (key "ny"): ${error.message}`);
  });
});

describe('readRemote hints', () => {
  const failingWith = (error: unknown) =>
    ({
      listHolidays: () => Promise.reject(error),
    }) as unknown as PushApi;
  const read = (error: unknown) =>
    readRemote(failingWith(error), { businessHours: false, holidays: true }).catch((e: unknown) => e);

  it('401: the table hint (check the token)', async () => {
    expect(await read(answered(401, 'Unauthenticated.'))).toMatchObject({
      code: 'PUSH_READ_FAILED',
      message: 'cannot read the holidays (401: Unauthenticated.) (check source.token)',
    });
  });

  it('403: a personal access token is needed', async () => {
    expect(await read(answered(403, 'PAT only.'))).toMatchObject({
      message: 'cannot read the holidays (403: PAT only.) (business hours and holidays need a personal access token)',
    });
  });

  it('404 and 5xx: no hint', async () => {
    expect(await read(answered(404, 'Not found.'))).toMatchObject({
      message: 'cannot read the holidays (404: Not found.)',
    });
    expect(await read(answered(503, 'Down.'))).toMatchObject({ message: 'cannot read the holidays (503: Down.)' });
  });
});
