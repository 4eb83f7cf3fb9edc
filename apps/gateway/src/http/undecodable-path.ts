import type { RequestHandler } from 'express';

/**
 * A path with a segment that is not valid percent-encoding (`/v1/items/%ff`) names nothing that can exist: it is
 * answered 404 like any unknown id (decisions.md), where the router would answer 400 "Failed to decode param".
 */
export const undecodablePath: RequestHandler = (req, res, next) => {
  try {
    decodeURIComponent(req.path);
  } catch {
    res.locals.errorCode = '404';
    res.status(404).json({ message: 'Not found.' });
    return;
  }
  next();
};
