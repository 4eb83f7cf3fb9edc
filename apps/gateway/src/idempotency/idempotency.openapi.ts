import type { OpenAPIObject } from '@nestjs/swagger';
import type { OperationObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

const KEY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Extension: makes a retry safe. 1 to 255 visible ASCII characters (a UUID is a good choice), kept per project for ' +
    'IDEMPOTENCY_KEY_TTL_MS (24 h). A request with a key already used for the same method, path and body gets the first ' +
    'answer (status and body, with Idempotent-Replayed: true) and does nothing; while the first still runs it waits for ' +
    'it, then 409 with Retry-After; with another method, path or body it is 422. An answer 5xx is not kept.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
} as const;

/** Every POST and DELETE of /v1 takes an optional Idempotency-Key: the header, the replay marker and the 409 it may answer. */
export function documentIdempotency(document: OpenAPIObject): OpenAPIObject {
  for (const [path, item] of Object.entries(document.paths)) {
    if (!path.startsWith('/v1/')) continue;
    for (const operation of [item.post, item.delete]) if (operation) documentKey(operation);
  }
  return document;
}

function documentKey(operation: OperationObject): void {
  operation.parameters = [...(operation.parameters ?? []), KEY_PARAMETER];
  for (const [status, response] of Object.entries(operation.responses)) {
    if (!status.startsWith('2') || !response || !('description' in response)) continue;
    response.headers = {
      ...response.headers,
      'Idempotent-Replayed': { description: 'true when this is the first answer to the Idempotency-Key, repeated.', schema: { type: 'string', enum: ['true'] } },
    };
  }
  const conflict = operation.responses['409'];
  const described = conflict && 'description' in conflict ? conflict : null;
  const text = 'A request with this Idempotency-Key is still in progress; see Retry-After.';
  operation.responses['409'] = {
    description: described ? `${described.description} Or: ${text}` : text,
    content: described?.content ?? { 'application/json': { schema: { $ref: '#/components/schemas/MessageErrorBody' } } },
    headers: { ...described?.headers, 'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } } },
  };
}
