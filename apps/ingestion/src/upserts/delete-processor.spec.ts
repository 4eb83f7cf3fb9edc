import { BusClient } from '@askdata/common';
import { Subjects } from '@askdata/contracts';
import { DELETE_PAGE_CHATS, DELETE_PAGE_ITEMS, DeleteProcessor } from './delete-processor';

/** A bus that answers each subject from a script and records what it was asked. */
function scriptedBus(answers: Record<string, Array<Record<string, unknown>>>) {
  const asked: Array<{ subject: string; req: Record<string, unknown> }> = [];
  const bus = {
    request: (subject: string, req: Record<string, unknown>) => {
      asked.push({ subject, req });
      const next = answers[subject]?.shift();
      if (!next) throw new Error(`unexpected ${subject}`);
      return Promise.resolve(next);
    },
  } as unknown as BusClient;
  return { bus, asked };
}

const items = (n: number, from = 0) => ({ items: Array.from({ length: n }, (_, i) => ({ id: `id-${from + i}`, item_id: `c-${from + i}`, collection: 'default' })) });

describe('DeleteProcessor', () => {
  const projectId = '0190a0a0-0000-7000-8000-000000000001';

  it("deletes a tenant's chats in rounds before its items, and reports the items each round removed", async () => {
    const { bus, asked } = scriptedBus({
      [Subjects.conversation.tenantForget]: [{ chats: DELETE_PAGE_CHATS }, { chats: DELETE_PAGE_CHATS }, { chats: 7 }],
      [Subjects.catalog.deletesSelect]: [items(DELETE_PAGE_ITEMS), items(3, DELETE_PAGE_ITEMS)],
      [Subjects.conversation.sourcesForget]: [{ messages: 0 }, { messages: 0 }],
      [Subjects.retrieval.chunksReplace]: [{ chunks: 0 }, { chunks: 0 }],
      [Subjects.catalog.deletesApply]: [{ deleted: DELETE_PAGE_ITEMS }, { deleted: 3 }],
    });
    const removed: number[] = [];
    await new DeleteProcessor(bus).process(projectId, { tenancy: 'multi', collection: null, items: [], delete: { kind: 'tenant', tenant: 4 } }, (n) => {
      removed.push(n);
      return Promise.resolve();
    });
    const forgets = asked.filter((a) => a.subject === Subjects.conversation.tenantForget);
    expect(forgets.map((a) => a.req.limit)).toEqual([DELETE_PAGE_CHATS, DELETE_PAGE_CHATS, DELETE_PAGE_CHATS]);
    expect(asked.findIndex((a) => a.subject === Subjects.catalog.deletesSelect)).toBe(3);
    expect(removed).toEqual([DELETE_PAGE_ITEMS, 3]);
  });

  it('reports nothing removed when the target covers no item', async () => {
    const { bus } = scriptedBus({
      [Subjects.catalog.deletesSelect]: [{ items: [] }],
      [Subjects.catalog.deletesApply]: [{ deleted: 0 }],
    });
    const removed: number[] = [];
    await new DeleteProcessor(bus).process(
      projectId,
      { tenancy: 'single', collection: null, items: [], delete: { kind: 'client_item', collection: 'default', itemId: 'x' } },
      (n) => {
        removed.push(n);
        return Promise.resolve();
      },
    );
    expect(removed).toEqual([]);
  });
});
