import { Injectable } from '@nestjs/common';
import { ChunkInput, DeletedItem, Scope, Subjects } from '@askdata/contracts';
import { BusClient } from '@askdata/common';
import { UpsertBatchPayload } from './upsert.entity';

/** Items a delete removes per round: each round's requests stay small, however many items the target covers. */
export const DELETE_PAGE_ITEMS = 500;
/** A tenant's chats deleted per round (with their messages, and the users left without a chat). */
export const DELETE_PAGE_CHATS = 500;

/**
 * One attempt at a delete. Round by round, the first items its target still covers are selected in catalog, the
 * sources citing them are marked deleted in conversation, their chunks are removed from the index (postings and
 * statistics with them), and only then are they deleted in catalog: an attempt cut short anywhere leaves the items
 * in catalog until everything else of them is gone, so the next attempt selects them again and finishes the work,
 * and every step is idempotent. The last round deletes a collection target's collection; a tenant's chats go first.
 */
@Injectable()
export class DeleteProcessor {
  constructor(private readonly bus: BusClient) {}

  /** `removed` is told how many items each round deleted from catalog, once it has. */
  async process(projectId: string, batch: UpsertBatchPayload, removed?: (items: number) => Promise<void>): Promise<void> {
    const target = batch.delete;
    if (!target) throw new Error('The delete has no target.');
    const scope: Scope = { projectId, tenancy: batch.tenancy };
    if (target.kind === 'tenant') {
      // Chats go in rounds too, each in a transaction of its own, so a large tenant holds no long transaction.
      let chats = DELETE_PAGE_CHATS;
      while (chats === DELETE_PAGE_CHATS) {
        ({ chats } = await this.bus.request(Subjects.conversation.tenantForget, { scope, tenant: target.tenant, limit: DELETE_PAGE_CHATS }));
      }
    }
    for (;;) {
      const { items } = await this.bus.request(Subjects.catalog.deletesSelect, { scope, target, limit: DELETE_PAGE_ITEMS });
      const ids = items.map((i) => i.id);
      if (items.length) {
        await this.bus.request(Subjects.conversation.sourcesForget, { scope, itemIds: ids });
        await this.bus.request(Subjects.retrieval.chunksReplace, { scope, items: items.map(removal) });
      }
      const last = items.length < DELETE_PAGE_ITEMS;
      const { deleted } = await this.bus.request(Subjects.catalog.deletesApply, { scope, target, ids, last });
      if (deleted) await removed?.(deleted);
      if (last) return;
    }
  }
}

/** What the index gets to remove an item: the item with no chunks. */
function removal(item: DeletedItem): ChunkInput {
  return { itemId: item.id, clientItemId: item.item_id, collection: item.collection, tenant: null, url: null, metadata: {}, title: '', chunks: [] };
}
