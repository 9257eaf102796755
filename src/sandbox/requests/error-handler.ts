import { randomUUID } from 'node:crypto';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { SandboxHttpError } from '../protocol/errors.js';

/**
 * One place that turns a thrown error into the API's error body (API document,
 * Errors): typed sandbox errors keep their status and body; fastify's own 4xx
 * (415, 413, bad JSON) become `{message}`; anything else is a 500 whose body
 * names an incident id and whose details (with the stack) go only to the log.
 */
export function errorHandler(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof SandboxHttpError) return reply.code(error.statusCode).send(error.body());
  const status = (error as FastifyError).statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return reply.code(status).send({ message: error.message });
  }
  const incident = randomUUID();
  request.log.error({ incident_id: incident, err: error }, 'sandbox request failed');
  return reply.code(500).send({ message: `Server Error (incident ${incident})` });
}
