import { INestApplication, LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { GatewayModule, GatewayRuntime } from './gateway.module';
import { preflight } from './auth/cors';
import { AdminPort } from './http/admin-port';
import { jsonBody } from './http/body';
import { answerClientError } from './http/client-error';
import { requestContext } from './http/request-context';
import { boundServerTimeouts } from './http/server-timeouts';
import { etagsForReadsOnly, PrototypedExpressAdapter } from './http/express-server';
import { DtoPipe } from './http/dto.pipe';
import { protectiveHeaders } from './http/protective-headers';
import { parseQuery } from './http/query-shape';
import { HttpExceptionFilter } from './http/http-exception.filter';
import { undecodablePath } from './http/undecodable-path';
import { mountWebAssets } from './http/web-assets';
import { mountOpenApi } from './openapi/openapi';
import { Rules } from './v1/rules';

/** Builds the HTTP application (not yet listening). */
export async function createGateway(runtime: GatewayRuntime, logger: LoggerService | false): Promise<INestApplication> {
  const app = await NestFactory.create<NestExpressApplication>(GatewayModule.forRoot(runtime), new PrototypedExpressAdapter(), { bodyParser: false, logger });
  app.set('trust proxy', runtime.config.TRUST_PROXY);
  app.disable('x-powered-by');
  app.set('query parser', parseQuery);
  app.getHttpServer().on('clientError', answerClientError);
  boundServerTimeouts(app.getHttpServer(), runtime.config);
  app.use(requestContext);
  app.use(etagsForReadsOnly(app.getHttpAdapter().getInstance()));
  app.use(protectiveHeaders());
  app.use(app.get(AdminPort).keepPathsToTheirPort);
  app.use(undecodablePath);
  app.use(preflight);
  for (const handler of jsonBody(runtime.config.MAX_BODY_BYTES)) app.use(handler);
  app.useGlobalFilters(new HttpExceptionFilter());
  app.useGlobalPipes(new DtoPipe(app.get(Rules)));
  mountOpenApi(app);
  mountWebAssets(app);
  return app;
}
