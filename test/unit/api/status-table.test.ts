import { describe, expect, it } from 'vitest';
import { errorFromResponse } from '../../../src/api/errors/error-from-response.js';
import { API_ERROR_CODES, FatalApiError, RetriableApiError } from '../../../src/api/errors/errors.js';
import {
  apiErrorCodeOf,
  type HintContext,
  hintFor,
  STATUS_TABLE,
  statusRule,
} from '../../../src/api/errors/status-table.js';

const C = API_ERROR_CODES;

/** Every row, written out: a row changed in the table must be changed here on purpose. */
const EXPECTED = [
  { status: 401, code: C.unauthorized, retryable: false, hint: 'check source.token' },
  {
    status: 403,
    code: C.forbidden,
    retryable: false,
    hint: 'the token lacks the scope, or its user lacks access to this resource',
  },
  {
    status: 404,
    code: C.notFound,
    retryable: false,
    hint: 'the resource does not exist, or belongs to another organization',
  },
  {
    status: 409,
    code: C.conflict,
    retryable: false,
    hint: 'the current state of the resource does not allow this change',
  },
  { status: 422, code: C.validation, retryable: false, hint: 'the API refused the values sent' },
  {
    status: 429,
    code: C.rateLimited,
    retryable: true,
    hint: 'the rate limit stayed exhausted; lower source.rate_limit.requests_per_minute, or run when the other clients on the IP are idle',
  },
];
const SERVER = {
  code: C.server,
  retryable: true,
  hint: 'the service failed; try again later, quoting the request id to its operators',
};
const OTHER = { code: C.http, retryable: false, hint: 'the API answered a status its document does not describe' };

const response = (status: number) => ({ status, headers: {}, body: JSON.stringify({ message: 'Nope.' }) });
const request = { method: 'GET', url: 'http://api.test/v1/inboxes' };

describe('status table', () => {
  it('has exactly the rows of the statuses the API document names', () => {
    expect(Object.keys(STATUS_TABLE).map(Number)).toEqual(EXPECTED.map((row) => row.status));
  });

  it.each(EXPECTED)('$status → $code, retryable $retryable, with its hint', ({ status, ...rule }) => {
    expect(statusRule(status)).toEqual(rule);
    expect(hintFor({ status })).toBe(rule.hint);
  });

  it.each([500, 502, 503, 504, 599])('%i belongs to the 5xx class: API_SERVER, retryable', (status) => {
    expect(statusRule(status)).toEqual(SERVER);
  });

  it.each([400, 405, 418, 499, 600, 302])(
    '%i, a status the document does not name: API_HTTP, not retryable',
    (status) => {
      expect(statusRule(status)).toEqual(OTHER);
    },
  );

  it.each([...EXPECTED, { status: 503, ...SERVER }, { status: 400, ...OTHER }])(
    'an error answered $status gets the code and class of its row',
    ({ status, code, retryable }) => {
      const error = errorFromResponse(response(status), request);
      expect(error.code).toBe(code);
      expect(error).toBeInstanceOf(retryable ? RetriableApiError : FatalApiError);
      expect(error.retriable).toBe(retryable);
    },
  );
});

describe('apiErrorCodeOf', () => {
  it('reads a known code first, else maps the status through the table', () => {
    expect(apiErrorCodeOf({ code: C.timeout })).toBe(C.timeout);
    expect(apiErrorCodeOf({ code: C.forbidden, status: 404 })).toBe(C.forbidden);
    expect(apiErrorCodeOf({ code: 'ECONNRESET', status: 404 })).toBe(C.notFound);
    expect(apiErrorCodeOf({ status: 502 })).toBe(C.server);
  });

  it('says nothing of what is not an API error', () => {
    expect(apiErrorCodeOf(new Error('plain'))).toBeUndefined();
    expect(apiErrorCodeOf({ code: 'ENOENT' })).toBeUndefined();
    expect(apiErrorCodeOf({ status: '403' })).toBeUndefined();
    expect(apiErrorCodeOf(null)).toBeUndefined();
    expect(apiErrorCodeOf('403')).toBeUndefined();
  });
});

describe('hintFor', () => {
  const context: HintContext = { own: { [C.forbidden]: 'ask an administrator' }, generic: [C.unauthorized] };

  it("takes the context's own words over the table's", () => {
    expect(hintFor({ status: 403 }, context)).toBe('ask an administrator');
    expect(hintFor({ code: C.forbidden }, context)).toBe('ask an administrator');
  });

  it("gives the table's hint for the codes the context takes as they are", () => {
    expect(hintFor({ status: 401 }, context)).toBe('check source.token');
  });

  it('gives no hint for a code the context does not explain', () => {
    expect(hintFor({ status: 404 }, context)).toBeUndefined();
    expect(hintFor({ status: 500 }, context)).toBeUndefined();
  });

  it('gives no hint for codes without a status row, nor for other errors', () => {
    expect(hintFor({ code: C.network })).toBeUndefined();
    expect(hintFor(new Error('plain'))).toBeUndefined();
  });
});
