import { Inject, Injectable } from '@nestjs/common';
import { ErrorCode, FinishReason, RetrievedChunk, Scope, Subjects } from '@askdata/contracts';
import { assertTimeLeft, BusClient, detectLanguage, itemTitle, QUESTION_LETTERS, ServiceError, StreamSender, usualLanguage } from '@askdata/common';
import { CONVERSATION_CONFIG, ConversationConfig, WRITE_RESERVE_MS } from '../conversation.config';
import { ANSWER_GENERATOR, AnswerGenerator, AnswerRequest, ChatTurn, FieldDescriptions, GeneratedAnswer, notInData } from '../answers/answer-generator';
import { AnswerWriter } from '../answers/answer-writer';
import { boundAnswer } from '../answers/bounds';
import { CitedAnswer, toSources } from '../answers/citations';
import { readRecord } from '../answers/record-lines';
import { ChatEntity } from './chat.entity';

/** Results of several searches, alternating and without repeats, best first. */
export function interleave(lists: RetrievedChunk[][], limit: number): RetrievedChunk[] {
  const out: RetrievedChunk[] = [];
  const seen = new Set<string>();
  for (let i = 0; out.length < limit && lists.some((l) => i < l.length); i++) {
    for (const list of lists) {
      const c = list[i];
      if (c && !seen.has(c.id) && out.length < limit) {
        seen.add(c.id);
        out.push(c);
      }
    }
  }
  return out;
}

/** An answer ready to store: its public text and sources, and how it ended. */
export type Answer = CitedAnswer & { finish: FinishReason };

/**
 * The language a question is asked in: as given, else detected, else the one most of the chunks found for it are
 * in (the best one's on a tie), else English.
 */
export async function questionLanguage(text: string, given: string | null, chunks: RetrievedChunk[]): Promise<string> {
  return given ?? (await detectLanguage(text, QUESTION_LETTERS)) ?? usualLanguage(chunks.map((c) => c.language)) ?? 'en';
}

/**
 * What a question is answered from and with: the chunks retrieval finds for it (within the tenant, collections and
 * filter), and the generated answer in its public form, with the titles and field descriptions the generator reads.
 */
@Injectable()
export class ChatAnswers {
  constructor(
    private readonly bus: BusClient,
    @Inject(ANSWER_GENERATOR) private readonly generator: AnswerGenerator,
    @Inject(CONVERSATION_CONFIG) private readonly config: ConversationConfig,
  ) {}

  /**
   * Chunks for a follow-up: found for the question as asked and as rewritten with the chat's history, interleaved.
   * The chat's collections and filter were valid when it began; what is gone since (a collection deleted, a field
   * no item has any more) finds nothing: the collections left are searched, and with none left (or the filter gone)
   * the answer says the data does not hold it, rather than a 422 at a field the follow-up does not have and could
   * not change.
   */
  async followUpChunks(scope: Scope, text: string, turns: ChatTurn[], chat: ChatEntity, given: string | null): Promise<RetrievedChunk[]> {
    const standalone = await this.generator.rewrite(text, turns);
    const filter = chat.filter as Record<string, unknown> | null;
    const retrieve = async (question: string, collections = chat.collections): Promise<RetrievedChunk[]> => {
      try {
        return await this.retrieve(scope, question, collections, chat.tenant, filter, given);
      } catch (e) {
        const gone = scopeGone(e);
        if (!gone) throw e;
        const left = gone.filter || !collections ? [] : collections.filter((_, i) => !gone.collections.has(i));
        return left.length ? retrieve(question, left) : [];
      }
    };
    return standalone === text ? await retrieve(text) : interleave(await Promise.all([retrieve(standalone), retrieve(text)]), this.config.ANSWER_CONTEXT_ITEMS);
  }

  /** Chunks for a question; a language given with it is one more the question is analyzed in. */
  retrieve(
    scope: Scope,
    text: string,
    collections: string[] | null,
    tenant: number | null,
    filter: Record<string, unknown> | null,
    language: string | null,
  ): Promise<RetrievedChunk[]> {
    return this.bus.request(Subjects.retrieval.search, { scope, text, collections, tenant, filter, limit: this.config.ANSWER_CONTEXT_ITEMS, language });
  }

  /**
   * The generated answer in its public form, in the question's language, at most MAX_ANSWER_CHARS long: every `[n]` marker exists in
   * `sources`. Fails when the deadline leaves no time to store it.
   */
  async answer(
    scope: Scope,
    question: string,
    history: ChatTurn[],
    chunks: RetrievedChunk[],
    instructions: string | null,
    language: string,
    stream?: StreamSender,
  ): Promise<Answer> {
    const request = async (): Promise<AnswerRequest> => {
      const [titles, fields] = await Promise.all([
        this.generator.namesSources ? this.titles(scope, chunks) : undefined,
        this.generator.readsFieldDescriptions && chunks.some((c, i) => readRecord(c, i)) ? this.fieldDescriptions(scope, chunks) : undefined,
      ]);
      return { question, history, chunks, instructions, titles, fields, language };
    };
    if (stream) return this.streamAnswer(stream, chunks, language, request);
    if (chunks.length === 0) return { text: notInData(language), sources: [], finish: 'complete' };
    const generated = boundAnswer(await this.generator.generate(await request()), this.config.MAX_ANSWER_CHARS);
    assertTimeLeft(WRITE_RESERVE_MS, 'the answer was stored');
    return { ...toSources(generated, chunks), finish: generated.finish ?? 'complete' };
  }

  /** {@link answer}, its text sent as it is written (by a generator that streams; else sentence by sentence), then its sources. */
  private async streamAnswer(stream: StreamSender, chunks: RetrievedChunk[], language: string, answerRequest: () => Promise<AnswerRequest>): Promise<Answer> {
    const writer = new AnswerWriter(chunks, this.config.MAX_ANSWER_CHARS, (text) => stream.send({ event: 'delta', data: { text } }));
    let generated: GeneratedAnswer = { text: notInData(language), citations: [] };
    if (chunks.length > 0) {
      const request = await answerRequest();
      generated = this.generator.generateStream
        ? await this.generator.generateStream(request, (draft) => writer.draft(draft), stream.signal)
        : await this.generator.generate(request);
    }
    stream.throwIfStopped();
    assertTimeLeft(WRITE_RESERVE_MS, 'the answer was stored');
    const answer = await writer.finish(generated);
    await stream.send({ event: 'sources', data: { sources: answer.sources } });
    return answer;
  }

  /** The retrieved items' own titles, by item id; an item without one, or whose record cannot be read now, has none. */
  private async titles(scope: Scope, chunks: RetrievedChunk[]): Promise<Record<string, string>> {
    const ids = [...new Set(chunks.map((c) => c.id))];
    const records = await Promise.all(ids.map((id) => this.bus.request(Subjects.catalog.itemsGet, { scope, id }).catch(() => null)));
    return Object.fromEntries(records.flatMap((r) => (r && itemTitle(r.data) ? [[r.id, itemTitle(r.data)]] : [])));
  }

  /**
   * The descriptions declared for the fields of the chunks' collections (the extractive answerer matches them like
   * field labels); asked of catalog only when a retrieved chunk is a record.
   */
  private async fieldDescriptions(scope: Scope, chunks: RetrievedChunk[]): Promise<FieldDescriptions> {
    const slugs = [...new Set(chunks.map((c) => c.collection))];
    const collections = await this.bus.request(Subjects.catalog.collectionsResolve, { scope, slugs, path: 'collections' });
    const out: FieldDescriptions = {};
    for (const c of collections) {
      const described = c.fields.filter((f) => f.description);
      if (described.length) out[c.slug] = Object.fromEntries(described.map((f) => [f.name, f.description!]));
    }
    return out;
  }
}

/** From a 422 of a chat's own collections or filter only, what is gone: the collections' places, or the filter. */
function scopeGone(e: unknown): { collections: Set<number>; filter: boolean } | null {
  const fields = e instanceof ServiceError && e.code === ErrorCode.Validation ? Object.keys(e.details ?? {}) : [];
  const gone = { collections: new Set<number>(), filter: false };
  for (const field of fields) {
    const place = /^collections\.(\d+)$/.exec(field);
    if (place) gone.collections.add(Number(place[1]));
    else if (field === 'filter' || field.startsWith('filter.')) gone.filter = true;
    else return null;
  }
  return fields.length ? gone : null;
}
