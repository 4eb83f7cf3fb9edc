import { FinishReason, RetrievedChunk } from '@askdata/contracts';

/** One earlier turn of the chat, oldest first. Assistant turns are the Markdown answers as stored. */
export interface ChatTurn {
  role: 'user' | 'assistant';
  text: string;
}

export interface AnswerRequest {
  /** The user's question as asked (not rewritten: generators that read the history resolve it themselves). */
  question: string;
  /** Earlier turns of the chat, oldest first; empty for a first question. */
  history: ChatTurn[];
  /** The retrieved chunks, best first. Citations are 0-based indexes into this list. */
  chunks: RetrievedChunk[];
  /** The project's instructions for answers, or null. */
  instructions: string | null;
  /** The retrieved items' own titles by item id (`RetrievedChunk.id`), given to generators that name their sources. */
  titles?: Record<string, string>;
  /** Descriptions declared for the chunks' collections' fields, when any were. */
  fields?: FieldDescriptions;
}

/** Declared descriptions of fields: collection slug -> field name -> description. */
export type FieldDescriptions = Record<string, Record<string, string>>;

/**
 * A generated answer. `text` is Markdown whose citation markers `[1]`, `[2]`, ... are numbered from 1 in order
 * of first appearance, marker `[k]` pointing at `chunks[citations[k - 1]]`; bracketed numbers that are not
 * citations are escaped (`\[3\]`). `composeAnswer` builds this from cited segments; `toSources` checks it and
 * turns it into the public text and sources. When the data does not hold the answer, the text says so plainly
 * (e.g. `NOT_IN_DATA`) and `citations` is empty.
 */
export interface GeneratedAnswer {
  text: string;
  /** 0-based indexes into the request's chunks, in the order of the markers' first appearance. */
  citations: number[];
  /** The passage of a cited chunk the answer relies on, by chunk index, when the generator knows it. */
  quotes?: Record<number, string>;
  /** How the answer ended; `complete` when absent. */
  finish?: FinishReason;
}

/**
 * Answer generation, whichever model (or none) is behind it: the extractive answerer, or Claude
 * (`claude/claude-answerer.ts`), which sends `chunks` as `search_result` blocks in this order so that a citation's
 * `search_result_index` is the chunk index.
 */
export interface AnswerGenerator {
  /** Short name for logs and metrics, e.g. "extractive" or "claude". */
  readonly kind: string;
  /** Whether it names the sources it is given by their titles (the request then carries `titles`). */
  readonly namesSources?: boolean;
  generate(request: AnswerRequest): Promise<GeneratedAnswer>;
  /** The follow-up rewritten as a question that stands on its own (for retrieval); the question itself when history is empty. */
  rewrite(question: string, history: ChatTurn[]): Promise<string>;
  /** Resolves when the model behind the generator can be reached (readiness); absent when there is none. */
  ready?(): Promise<void>;
}

export const ANSWER_GENERATOR = Symbol('ANSWER_GENERATOR');

/** What an answer says when the data does not contain the answer. It cites nothing. */
export const NOT_IN_DATA = "I couldn't find the answer to that in the data.";
