import { applyDecorators, Type } from '@nestjs/common';
import { ApiBody, ApiExtraModels, ApiHeader, ApiOperation, ApiProperty, ApiResponse, ApiSecurity, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { SourceView } from '@askdata/contracts';

export class MessageErrorBody {
  @ApiProperty({ example: 'Not found.' }) message!: string;
}

export class ValidationErrorBody {
  @ApiProperty({ example: 'The items.0.data field is required.' }) message!: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'array', items: { type: 'string' } },
    example: { 'items.0.data': ['The items.0.data field is required.'] },
  })
  errors!: Record<string, string[]>;
}

class PageLinkDoc {
  @ApiProperty({ nullable: true, type: String }) url!: string | null;
  @ApiProperty({ example: '&laquo; Previous' }) label!: string;
  @ApiProperty() active!: boolean;
}

class PageMetaDoc {
  @ApiProperty() current_page!: number;
  @ApiProperty({ nullable: true, type: Number }) from!: number | null;
  @ApiProperty() last_page!: number;
  @ApiProperty({ type: [PageLinkDoc] }) links!: PageLinkDoc[];
  @ApiProperty({ description: 'Absolute URL of the route.' }) path!: string;
  @ApiProperty() per_page!: number;
  @ApiProperty({ nullable: true, type: Number }) to!: number | null;
  @ApiProperty() total!: number;
}

class PageLinksDoc {
  @ApiProperty() first!: string;
  @ApiProperty() last!: string;
  @ApiProperty({ nullable: true, type: String }) prev!: string | null;
  @ApiProperty({ nullable: true, type: String }) next!: string | null;
}

type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 422 | 429 | 503;
const ERROR_TEXT: Record<ErrorStatus, string> = {
  400: 'Malformed JSON or wrong Content-Type.',
  401: 'Missing or invalid Api-Key ({"message": "Unauthenticated."}); with a publishable key, a missing (multi-tenant project), invalid or expired Askdata-Session token.',
  403: "Extension: a publishable key used from an Origin it does not allow (or without one), on a route it may not use, or naming another tenant, user or collection than its session's.",
  404: 'Unknown id (including ids of other projects).',
  409: 'Follow-up on the chat of a one-off query.',
  413: 'Body over the size limit.',
  422: 'Validation failure: {message, errors} with dotted field paths.',
  429: 'Rate limit of the key exceeded, or too many failed authentications from this client address or with this key prefix; see Retry-After.',
  503: "A dependency (database, bus, model) is down, the question ran out of time, or the model rejects the service's configuration (the message says which); nothing was half-written.",
};

/** Documents one /v1 operation: success shape, error statuses and their bodies, auth. */
export function ApiOperationDoc(opts: {
  tag: string;
  summary: string;
  status: 200 | 201 | 202;
  data?: Type<unknown>;
  list?: Type<unknown>;
  raw?: Type<unknown>;
  isArray?: boolean;
  body?: Type<unknown>;
  errors: ErrorStatus[];
  /** The answer may stream (`Accept: text/event-stream` or `"stream": true`): a 200 `text/event-stream` response. */
  streams?: boolean;
}) {
  const models: Array<Type<unknown>> = [MessageErrorBody, ValidationErrorBody, PageMetaDoc, PageLinksDoc];
  let schema: Record<string, unknown>;
  if (opts.list) {
    models.push(opts.list);
    schema = {
      type: 'object',
      required: ['data', 'meta', 'links'],
      properties: {
        data: { type: 'array', items: { $ref: getSchemaPath(opts.list) } },
        meta: { $ref: getSchemaPath(PageMetaDoc) },
        links: { $ref: getSchemaPath(PageLinksDoc) },
      },
    };
  } else if (opts.data) {
    models.push(opts.data);
    const ref = { $ref: getSchemaPath(opts.data) };
    schema = { type: 'object', required: ['data'], properties: { data: opts.isArray ? { type: 'array', items: ref } : ref } };
  } else {
    schema = { type: 'object' };
  }
  const errors = [...new Set<ErrorStatus>([401, 403, 429, 503, ...opts.errors])].sort();
  return applyDecorators(
    ApiTags(opts.tag),
    ApiOperation({ summary: opts.summary }),
    ApiSecurity('Api-Key'),
    ApiHeader({ name: 'Api-Key', required: true, description: "The project's API key: a secret key (`ak_`), or on the routes that say so a publishable one (`pk_`)." }),
    ApiExtraModels(...models),
    ...(opts.body ? [ApiBody({ type: opts.body })] : []),
    ApiResponse({ status: opts.status, description: 'Success.', schema }),
    ...(opts.streams && opts.data ? [ApiResponse({ status: 200, description: 'Extension: the answer streamed.', content: { 'text/event-stream': streamSchema(opts.data) } })] : []),
    ...errors.map((status) => ApiResponse({ status, description: ERROR_TEXT[status], type: status === 422 ? ValidationErrorBody : MessageErrorBody })),
  );
}

/**
 * The events of a streamed answer (extension), in order: `start`, `delta`s, `sources`, then `done` or `error`. Each
 * event's `data` is one line of JSON.
 */
function streamSchema(data: Type<unknown>): Record<string, unknown> {
  const sources = { type: 'array', items: { $ref: getSchemaPath(SourceView) } };
  return {
    schema: {
      type: 'string',
      description:
        'Extension: Server-Sent Events, answered 200 when the request has `Accept: text/event-stream` or `"stream": true`. ' +
        "`start` {chat, message}: the ids of the chat and of the answer; `delta` {text}: the next piece of the answer's text " +
        '(their concatenation is the stored text); `sources` {sources}; `done`: the stored resource, as `data` of the JSON ' +
        'answer; or `error` {status, message, errors?}: the answer failed after it started and nothing was stored. A failure ' +
        'before `start` is an ordinary error response.',
      'x-events': {
        start: { type: 'object', required: ['chat', 'message'], properties: { chat: { type: 'string', format: 'uuid' }, message: { type: 'string', format: 'uuid' } } },
        delta: { type: 'object', required: ['text'], properties: { text: { type: 'string' } } },
        sources: { type: 'object', required: ['sources'], properties: { sources } },
        done: { $ref: getSchemaPath(data) },
        error: {
          type: 'object',
          required: ['status', 'message'],
          properties: {
            status: { type: 'integer', example: 503 },
            message: { type: 'string' },
            errors: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
          },
        },
      },
    },
    example:
      'event: start\ndata: {"chat":"…","message":"…"}\n\nevent: delta\ndata: {"text":"We open at "}\n\nevent: delta\ndata: {"text":"9am.[1]"}\n\nevent: sources\ndata: {"sources":[…]}\n\nevent: done\ndata: {…}\n\n',
  };
}
