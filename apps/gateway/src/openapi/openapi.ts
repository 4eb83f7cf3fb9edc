import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { documentIdempotency } from '../idempotency/idempotency.openapi';

export function buildOpenApi(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('askdata API')
    .setDescription(
      'Push records in, ask questions in plain language, get answers grounded in your records with sources. ' +
        'Every /v1 request needs the Api-Key header. Extension: publishable keys (pk_) may be used by web pages of the origins ' +
        'they name, on the routes whose Askdata-Session header is documented, only (403 elsewhere). Errors: {message} or, for validation (422), {message, errors} ' +
        'with dotted field paths such as items.3.tenant.',
    )
    .setVersion('1')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'Api-Key' }, 'Api-Key')
    .build();
  return documentIdempotency(SwaggerModule.createDocument(app, config));
}

/** `GET /v1/openapi.json` (the document) and `GET /docs` (a page that renders it). */
export function mountOpenApi(app: INestApplication): void {
  const document = buildOpenApi(app);
  // No validator badge: it would load an image from swagger.io, which the page's Content-Security-Policy refuses.
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: 'v1/openapi.json',
    yamlDocumentUrl: 'v1/openapi.yaml',
    swaggerOptions: { validatorUrl: null },
  });
}
