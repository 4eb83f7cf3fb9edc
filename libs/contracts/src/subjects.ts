/** Bus subjects: one naming scheme, `<service>.<aggregate>.<verb>`, events end in a version. */
export const Subjects = {
  ingestion: {
    upsertsCreate: 'ingestion.upserts.create',
    upsertsList: 'ingestion.upserts.list',
    upsertsGet: 'ingestion.upserts.get',
    upsertsLookup: 'ingestion.upserts.lookup',
    /** A project's newest upserts, whatever their status (no count): asked beside a list of items being loaded. */
    upsertsRecent: 'ingestion.upserts.recent',
    deletesCreate: 'ingestion.deletes.create',
    /** The oldest webhook events of its outbox, for the gateway to deliver; then acknowledged (deleted). */
    outboxRead: 'ingestion.outbox.read',
    outboxAck: 'ingestion.outbox.ack',
    upsertQueued: 'ingestion.upsert.queued.v1',
    health: 'ingestion.health',
  },
  catalog: {
    batchApply: 'catalog.batch.apply',
    itemsList: 'catalog.items.list',
    itemsGet: 'catalog.items.get',
    collectionsList: 'catalog.collections.list',
    collectionsGet: 'catalog.collections.get',
    collectionsResolve: 'catalog.collections.resolve',
    fieldsCheck: 'catalog.fields.check',
    deletesSelect: 'catalog.deletes.select',
    deletesApply: 'catalog.deletes.apply',
    /** Broadcast (every gateway hears it): a project's items or collections changed; lists of it are stale. */
    changed: 'catalog.project.changed.v1',
    health: 'catalog.health',
  },
  retrieval: {
    chunksReplace: 'retrieval.chunks.replace',
    search: 'retrieval.search',
    /** Start rebuilding a project's index (or return the rebuild under way). */
    reindexStart: 'retrieval.reindex.start',
    /** A project's index: what wrote it, and its rebuild's progress. */
    reindexGet: 'retrieval.reindex.get',
    /** An item's indexed passages, as the live index holds them (the console shows them). */
    chunksList: 'retrieval.chunks.list',
    health: 'retrieval.health',
  },
  conversation: {
    query: 'conversation.query.ask',
    chatsCreate: 'conversation.chats.create',
    chatsList: 'conversation.chats.list',
    chatsGet: 'conversation.chats.get',
    chatsFeedback: 'conversation.chats.feedback',
    messagesCreate: 'conversation.messages.create',
    messagesGet: 'conversation.messages.get',
    messagesFeedback: 'conversation.messages.feedback',
    sourcesForget: 'conversation.sources.forget',
    tenantForget: 'conversation.tenant.forget',
    outboxRead: 'conversation.outbox.read',
    outboxAck: 'conversation.outbox.ack',
    health: 'conversation.health',
  },
  gateway: {
    /** Broadcast (every gateway hears it): requests each gateway admitted per key, for the shared rate limit. */
    rateLimitUsed: 'gateway.rate-limit.used.v1',
  },
} as const;

type Leaves<T> = T extends string ? T : { [K in keyof T]: Leaves<T[K]> }[keyof T];
export type Subject = Leaves<typeof Subjects>;
