import { RetrievedChunk, SourceView } from '@askdata/contracts';

export interface Turn {
  role: 'user' | 'assistant';
  text: string;
}

export interface AnswerInput {
  /** The question as asked. */
  question: string;
  /** The question rewritten to stand alone (equal to `question` when there is no history). */
  standalone: string;
  history: Turn[];
  chunks: RetrievedChunk[];
  instructions: string | null;
}

export interface Answer {
  /** Markdown with [n] citations; every n exists in `sources`. */
  text: string;
  sources: SourceView[];
}

/** What the chats need from answer generation, whichever generator is configured. */
export interface QuestionAnswerer {
  answer(input: AnswerInput): Promise<Answer>;
  rewrite(question: string, history: Turn[]): Promise<string>;
  /** Sanitized HTML of a message's Markdown. */
  html(markdown: string): string;
}

export const QUESTION_ANSWERER = Symbol('QUESTION_ANSWERER');
