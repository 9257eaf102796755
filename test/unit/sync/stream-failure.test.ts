import { describe, expect, it } from 'vitest';
import { FatalApiError, RetriableApiError } from '../../../src/api/errors/errors.js';
import { API_ERROR_CODES } from '../../../src/api/index.js';
import { OutputSessionError, SinkError, StateError } from '../../../src/errors.js';
import { FAILURE_REACH, streamFailure } from '../../../src/sync/stream-failure.js';

const BASE = 'http://127.0.0.1:1/v1';

/** An error of the API layer, as its constructors build it. */
function apiError(code: string, init: { status?: number; notSent?: boolean } = {}) {
  const Class = ['API_SERVER', 'API_NETWORK', 'API_TIMEOUT', 'API_RATE_LIMITED'].includes(code)
    ? RetriableApiError
    : FatalApiError;
  return new Class({ code: code as never, method: 'GET', url: `${BASE}/holidays`, ...init });
}

describe('which failures stay with their stream', () => {
  // [code, status, notSent, the stream fails alone?]
  const table: Array<[string, number | undefined, boolean, boolean]> = [
    ['API_UNAUTHORIZED', 401, false, false],
    ['API_FORBIDDEN', 403, false, true],
    ['API_NOT_FOUND', 404, false, true],
    ['API_CONFLICT', 409, false, true],
    ['API_VALIDATION', 422, false, true],
    ['API_RATE_LIMITED', 429, false, false],
    ['API_SERVER', 500, false, true],
    ['API_SERVER', 503, false, true],
    ['API_NETWORK', undefined, true, false], // connection refused, DNS failure
    ['API_NETWORK', undefined, false, true], // a reset after the request reached the server
    ['API_TIMEOUT', undefined, true, false], // connect timeout
    ['API_TIMEOUT', undefined, false, true], // response timeout
    ['API_BAD_RESPONSE', 200, false, true],
    ['API_PAGINATION_LOOP', undefined, false, true],
    ['API_REDIRECT', 302, false, true],
    ['API_HTTP', 418, false, true],
  ];

  it.each(table)('%s (status %s, not sent: %s): the stream fails alone: %s', (code, status, notSent, alone) => {
    const error = apiError(code, { status, notSent });
    const failure = streamFailure(error);
    if (alone) expect(failure).toEqual({ code, message: error.message });
    else expect(failure).toBeUndefined();
  });

  it('has a row for every code of the API layer, and the table above tries each', () => {
    const codes = Object.values(API_ERROR_CODES);
    expect(Object.keys(FAILURE_REACH).sort()).toEqual([...codes].sort());
    expect(new Set(table.map(([code]) => code))).toEqual(new Set(codes));
  });

  it('reads plain data as the api layer does: a known code, else a status through the status table', () => {
    expect(streamFailure({ code: 'API_REDIRECT', message: 'refused' })).toEqual({
      code: 'API_REDIRECT',
      message: 'refused',
    });
    expect(streamFailure(Object.assign(new Error('boom'), { status: 502 }))).toEqual({
      code: 'API_SERVER',
      message: 'boom',
    });
    expect(streamFailure(Object.assign(new Error('gone'), { status: 401 }))).toBeUndefined();
  });

  it('ends the run on any error that is not the API’s', () => {
    for (const error of [
      new SinkError('cannot upload'),
      new StateError('database is locked'),
      new OutputSessionError('finished'),
      new TypeError('a bug'),
      'a string',
      undefined,
      Object.assign(new Error('ECONNREFUSED'), { code: 'ECONNREFUSED' }),
    ]) {
      expect(streamFailure(error), String(error)).toBeUndefined();
    }
  });
});
