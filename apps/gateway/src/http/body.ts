import express, { ErrorRequestHandler, RequestHandler } from 'express';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/**
 * JSON bodies only. A body with another Content-Type is a 400, malformed JSON a 400, an oversized body a 413,
 * all in the contract's `{message}` shape rather than the framework's HTML pages.
 */
export function jsonBody(limitBytes: number): Array<RequestHandler | ErrorRequestHandler> {
  const requireJson: RequestHandler = (req, res, next) => {
    if (!BODY_METHODS.has(req.method)) return next();
    const length = Number(req.headers['content-length'] ?? 0);
    const hasBody = length > 0 || req.headers['transfer-encoding'] !== undefined;
    if (hasBody && !req.is('application/json')) {
      res.status(400).json({ message: 'The request body must be JSON sent with Content-Type: application/json.' });
      return;
    }
    next();
  };
  const parse = express.json({ limit: limitBytes, strict: false, type: 'application/json' });
  const onError: ErrorRequestHandler = (err: { type?: string; status?: number }, _req, res, next) => {
    if (err.type === 'entity.too.large' || err.status === 413) {
      res.status(413).json({ message: `The request body is larger than the limit of ${limitBytes} bytes.` });
    } else if (err.type === 'entity.parse.failed') {
      res.status(400).json({ message: 'The request body is not valid JSON.' });
    } else if (err.status && err.status >= 400 && err.status < 500) {
      res.status(400).json({ message: 'The request body could not be read.' });
    } else next(err);
  };
  return [requireJson, parse, onError];
}
