// Turns every error of an admin route into the catalogue's error body; never a stack trace.
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { createLogger } from '../telemetry/logger.js';
import { ApiError } from './errors.js';
import { validationError, type RequestHints } from './validation.js';

const log = createLogger('admin-api');

/** Maps Fastify's own errors (parsing, limits, validation) and anything unexpected to an ApiError. */
export function toApiError(err: unknown, bodyLimit: number, hints: RequestHints = {}): ApiError {
  if (err instanceof ApiError) return err;
  const e = err as Partial<FastifyError> & { validation?: unknown; validationContext?: string };
  if (Array.isArray(e.validation)) return validationError(e.validation, e.validationContext ?? 'body', hints);
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('payload_too_large', { limit: bodyLimit });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('unsupported_media_type', { content_type: 'the one sent' });
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError('bad_request', { reason: 'the body size does not match Content-Length' });
    case 'FST_ERR_BAD_URL':
      return new ApiError('bad_request', { reason: 'the URL is malformed' });
  }
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return new ApiError('bad_request', { reason: typeof e.message === 'string' ? e.message : 'the request is malformed' });
  }
  return new ApiError('internal');
}

export function adminErrorHandler(bodyLimit: number) {
  return (err: unknown, req: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const config = req.routeOptions.config as RequestHints | undefined;
    const hints: RequestHints = { immutable: config?.immutable, explain: config?.explain, body: req.body, params: req.params as Record<string, unknown>, account: req.account };
    const apiError = toApiError(err, bodyLimit, hints);
    if (apiError.code === 'unsupported_media_type') {
      const sent = req.headers['content-type'];
      const named = new ApiError('unsupported_media_type', { content_type: sent === undefined || sent === '' ? 'no content type' : sent.slice(0, 100) });
      return send(reply, named);
    }
    if (apiError.status >= 500) {
      log.error({ err, method: req.method, url: req.routeOptions.url }, 'An admin request failed.');
    }
    return send(reply, apiError);
  };
}

/**
 * A request the HTTP parser refused before Fastify saw it (an unknown method, headers over the limit, a
 * client too slow): answered with the catalogue's body, as the socket is closed. A reset needs no answer.
 */
export function parserErrorHandler(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const error =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? new ApiError('headers_too_large', {})
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new ApiError('request_timeout', {})
        : new ApiError('bad_request', { reason: 'the HTTP request is malformed' });
  const body = JSON.stringify(error.toBody());
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? ''}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/**
 * Fastify's frameworkErrors option: errors raised before routing (a URL with bad percent-encoding)
 * get the catalogue's body too, instead of Fastify's own shape.
 */
export function frameworkErrorHandler(err: FastifyError, _req: FastifyRequest, reply: FastifyReply): void {
  void send(reply, toApiError(err, 0));
}

function send(reply: FastifyReply, error: ApiError): FastifyReply {
  // RFC 6750 3: "the resource server MUST include the HTTP WWW-Authenticate response header field".
  if (error.status === 401) reply.header('www-authenticate', 'Bearer realm="edge-events"');
  // RFC 9110 15.5.6: "The origin server MUST generate an Allow header field in a 405 response".
  const allowed = error.details.allowed;
  if (error.status === 405 && Array.isArray(allowed)) reply.header('allow', allowed.join(', '));
  return reply.code(error.status).type('application/json; charset=utf-8').send(error.toBody());
}
