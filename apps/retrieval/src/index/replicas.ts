/** Whether other replicas of retrieval may write to the same projects (distributed mode). */
export const REINDEX_SHARED = Symbol('REINDEX_SHARED');
