import { metrics, REQUEST_ID_HEADER, requestIdFrom, runWithRequestId } from '@askdata/common';
import type { RequestHandler } from 'express';

/**
 * Gives every request a correlation id (the caller's X-Request-Id, or a new one), echoes it in the response,
 * runs the request inside it (so logs and bus headers carry it), and records the request in the metrics.
 */
export const requestContext: RequestHandler = (req, res, next) => {
  const requestId = requestIdFrom(req.headers[REQUEST_ID_HEADER]);
  res.setHeader('X-Request-Id', requestId);
  const started = process.hrtime.bigint();
  res.on('finish', () => {
    const route = req.route ? `${req.baseUrl}${(req.route as { path: string }).path}` : 'unmatched';
    const status = String(res.statusCode);
    metrics.httpRequests.inc({ method: req.method, route, status });
    metrics.httpDuration.observe({ method: req.method, route }, Number(process.hrtime.bigint() - started) / 1e9);
    if (res.statusCode >= 400) metrics.httpErrors.inc({ status, code: String(res.locals.errorCode ?? status) });
  });
  runWithRequestId(requestId, next);
};
