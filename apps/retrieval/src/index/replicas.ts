/** Whether other replicas of retrieval may write to the same projects (distributed mode). */
export const REINDEX_SHARED = Symbol('REINDEX_SHARED');
/** Where the replicas of retrieval hear of each other's index writes (distributed mode): a database URL, or null. */
export const INDEX_VERSIONS_URL = Symbol('INDEX_VERSIONS_URL');
