import { ErrorCode, RetrievedChunk } from '@askdata/contracts';
import { NOT_IN_DATA } from '../answers/answer-generator';
import { toSources } from '../answers/citations';
import { chunkFixture } from '../../../../test/stand-ins/chunks';
import { ClaudeAnswerer } from './claude-answerer';
import { ClaudeClient, ClaudeSettings } from './claude.client';
import { MessagesApiStub, stubSettings } from '../../../../test/stand-ins/messages-api.stub';

describe('ClaudeAnswerer against a local Messages API', () => {
  let stub: MessagesApiStub;
  let settings: ClaudeSettings;
  const chunks: RetrievedChunk[] = [chunkFixture(1, 'Closed on Sundays.'), chunkFixture(2, 'Opening hours: 9am to 5pm.')];

  beforeEach(async () => {
    stub = new MessagesApiStub();
    settings = stubSettings(await stub.start(), { maxRetries: 0 });
  });
  afterEach(() => stub.stop());

  const answerer = (rewrite = true) => new ClaudeAnswerer(new ClaudeClient(settings), settings.model, rewrite);

  it("turns Claude's citations into markers numbered by first appearance, each a listed source", async () => {
    stub.enqueue({
      kind: 'answer',
      blocks: [
        { text: 'We open at 9am.', cite: [1] },
        { text: ' Closed on Sundays.', cite: [0, 1] },
      ],
    });
    const generated = await answerer().generate({ question: 'When do you open?', history: [], chunks, instructions: null });
    expect(toSources(generated, chunks)).toEqual({
      text: 'We open at 9am.[1] Closed on Sundays.[2][1]',
      sources: [
        expect.objectContaining({ index: 1, item_id: 'item-2', snippet: chunks[1].snippet }),
        expect.objectContaining({ index: 2, item_id: 'item-1', snippet: chunks[0].snippet }),
      ],
    });
  });

  it('says the data does not say, without asking the model, when nothing was retrieved', async () => {
    expect(await answerer().generate({ question: 'Anything?', history: [], chunks: [], instructions: null })).toEqual({ text: NOT_IN_DATA, citations: [] });
    expect(stub.requests).toHaveLength(0);
  });

  it('fails with UNAVAILABLE when the model does', async () => {
    stub.otherwise({ kind: 'error', status: 500 });
    await expect(answerer().generate({ question: 'q', history: [], chunks, instructions: null })).rejects.toMatchObject({ code: ErrorCode.Unavailable });
  });

  it('rewrites follow-ups with the small model unless rewriting is switched off', async () => {
    stub.otherwise({ kind: 'answer', blocks: [{ text: 'When does the shop open on Sundays?' }] });
    const history = [
      { role: 'user' as const, text: 'When does the shop open?' },
      { role: 'assistant' as const, text: 'At 9am [1].' },
    ];
    expect(await answerer().rewrite('And on Sundays?', history)).toBe('When does the shop open on Sundays?');
    expect(await answerer(false).rewrite('And on Sundays?', history)).toBe('And on Sundays?');
    expect(await answerer().rewrite('First question', [])).toBe('First question');
    expect(stub.requests).toHaveLength(1);
  });
});
