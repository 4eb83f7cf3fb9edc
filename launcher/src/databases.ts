import { ServiceDatabase } from '@askdata/common';
import { catalogDatabase } from '../../apps/catalog/src/catalog.database';
import { conversationDatabase } from '../../apps/conversation/src/conversation.database';
import { gatewayDatabase } from '../../apps/gateway/src/gateway.database';
import { ingestionDatabase } from '../../apps/ingestion/src/ingestion.database';
import { retrievalDatabase } from '../../apps/retrieval/src/retrieval.database';

export const APP_NAMES = ['gateway', 'ingestion', 'catalog', 'retrieval', 'conversation'] as const;
export type AppName = (typeof APP_NAMES)[number];

/** Each app's schema, entities and migrations: all the migration tools need (no Nest modules). */
export const DATABASES: Record<AppName, ServiceDatabase> = {
  gateway: gatewayDatabase,
  ingestion: ingestionDatabase,
  catalog: catalogDatabase,
  retrieval: retrievalDatabase,
  conversation: conversationDatabase,
};
