export { AskdataClient } from './client.js';
export { SESSION_HEADER, IDEMPOTENCY_HEADER } from './transport.js';
export type { ClientOptions, RequestOptions } from './transport.js';
export { AnswerStream, ANSWER_EVENTS } from './answer-stream.js';
export type { AnswerEvent, StreamStart, StreamDelta, StreamSources, StreamErrorData } from './answer-stream.js';
export type { WaitOptions } from './resources/upserts.js';
export {
  AskdataError,
  ApiError,
  AuthenticationError,
  ForbiddenError,
  NotFoundError,
  ConflictError,
  ValidationError,
  RateLimitError,
  ServiceUnavailableError,
  ConnectionError,
  TimeoutError,
  IncompleteStreamError,
} from './errors.js';
export type { ErrorBody } from './errors.js';
export type * from './types.js';
export type * from './inputs.js';
