import { AnswerStream } from '../answer-stream.js';
import type { RequestOptions, Transport } from '../transport.js';
import type { ChatListParams, FeedbackInput, FollowUpInput, QuestionInput } from '../inputs.js';
import type { Chat, ChatMessage } from '../types.js';
import { data, Listed, seg } from './base.js';

/** Chats: a question with follow-ups, their messages and feedback. */
export class Chats extends Listed<Chat, ChatListParams> {
  constructor(http: Transport) {
    super(http, '/chats');
  }

  /** Asks a question in a new chat: the chat with the question and its answer. */
  create(input: QuestionInput, options?: RequestOptions): Promise<Chat> {
    return data(this.http, { method: 'POST', path: '/chats', body: input, keyed: true }, options);
  }

  /** As `create`, the answer streamed; `done` carries the chat. */
  createStream(input: QuestionInput, options?: RequestOptions): AnswerStream<Chat> {
    return new AnswerStream(() => this.http.send({ method: 'POST', path: '/chats', body: input, stream: true }, options));
  }

  /** A follow-up question in the chat: the answer. */
  followUp(chat: string, input: FollowUpInput, options?: RequestOptions): Promise<ChatMessage> {
    return data(this.http, { method: 'POST', path: `/chats/${seg(chat)}/messages`, body: input, keyed: true }, options);
  }

  /** As `followUp`, the answer streamed; `done` carries the message. */
  followUpStream(chat: string, input: FollowUpInput, options?: RequestOptions): AnswerStream<ChatMessage> {
    return new AnswerStream(() => this.http.send({ method: 'POST', path: `/chats/${seg(chat)}/messages`, body: input, stream: true }, options));
  }

  get(chat: string, options?: RequestOptions): Promise<Chat> {
    return data(this.http, { method: 'GET', path: `/chats/${seg(chat)}` }, options);
  }

  message(chat: string, message: string, options?: RequestOptions): Promise<ChatMessage> {
    return data(this.http, { method: 'GET', path: `/chats/${seg(chat)}/messages/${seg(message)}` }, options);
  }

  /** Feedback on the whole chat; the last one given replaces the previous. */
  feedback(chat: string, input: FeedbackInput, options?: RequestOptions): Promise<Chat> {
    return data(this.http, { method: 'POST', path: `/chats/${seg(chat)}/feedback`, body: input, keyed: true }, options);
  }

  /** Feedback on one message; the last one given replaces the previous. */
  messageFeedback(chat: string, message: string, input: FeedbackInput, options?: RequestOptions): Promise<ChatMessage> {
    return data(this.http, { method: 'POST', path: `/chats/${seg(chat)}/messages/${seg(message)}/feedback`, body: input, keyed: true }, options);
  }
}
