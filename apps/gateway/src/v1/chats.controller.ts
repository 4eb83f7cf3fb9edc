import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, Req, Res, StreamableFile, UseGuards } from '@nestjs/common';
import { ChatView, FeedbackDto, FollowUpDto, ListChatsQueryDto, MessageView, QuestionDto, Subjects } from '@askdata/contracts';
import { BusClient } from '@askdata/common';
import type { Request, Response } from 'express';
import { ApiKeyGuard, CurrentCaller } from '../auth/api-key.guard';
import { OperationId } from '../idempotency/idempotency.interceptor';
import { GATEWAY_CONFIG, GatewayConfig } from '../gateway.config';
import { envelope, Envelope } from '../http/pagination';
import { ApiOperationDoc } from '../openapi/api-docs';
import { Caller } from '../auth/caller';
import { ForPublishableKeys } from '../auth/key-kinds';
import { bindToSession, SessionChats } from '../sessions/session-chats';
import { questionRequest } from './questions.controller';
import { AnswerStreams, wantsStream } from './answer-streams';
import { Rules } from './rules';

const S = Subjects.conversation;

@UseGuards(ApiKeyGuard)
@Controller('v1/chats')
export class ChatsController {
  constructor(
    private readonly bus: BusClient,
    private readonly rules: Rules,
    private readonly streams: AnswerStreams,
    private readonly chats: SessionChats,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  @Post()
  @HttpCode(201)
  @ForPublishableKeys()
  @ApiOperationDoc({
    tag: 'Chats',
    summary: 'Start a chat with a question; returns the chat with the question and its answer.',
    status: 201,
    data: ChatView,
    body: QuestionDto,
    errors: [400, 413, 422],
    streams: true,
  })
  async create(
    @CurrentCaller() caller: Caller,
    @Body() dto: QuestionDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
    @OperationId() id?: string,
  ): Promise<{ data: ChatView } | StreamableFile> {
    const question = bindToSession(caller, dto);
    this.rules.question(caller.scope, question);
    const request = questionRequest(caller, question, id);
    if (wantsStream(req)) return this.streams.open(S.chatsCreate, request, res, (chat) => this.chats.record(caller, chat));
    const chat = await this.bus.request(S.chatsCreate, request, { timeoutMs: this.config.ANSWER_TIMEOUT_MS });
    await this.chats.record(caller, chat.id);
    return { data: chat };
  }

  @Get()
  @ApiOperationDoc({ tag: 'Chats', summary: 'List chats, newest first, with their messages.', status: 200, list: ChatView, errors: [422] })
  async list(@CurrentCaller() caller: Caller, @Query() q: ListChatsQueryDto, @Req() req: Request): Promise<Envelope<ChatView>> {
    const { page, perPage } = this.rules.page(q);
    const result = await this.bus.request(S.chatsList, {
      scope: caller.scope,
      page,
      perPage,
      tenant: q.tenant ?? null,
      type: q.type ?? 'chat',
      user: q.user ?? null,
    });
    return envelope(req, page, perPage, result);
  }

  @Get(':chat')
  @ForPublishableKeys()
  @ApiOperationDoc({ tag: 'Chats', summary: 'Get a chat with its messages.', status: 200, data: ChatView, errors: [404] })
  async get(@CurrentCaller() caller: Caller, @Param('chat') id: string): Promise<{ data: ChatView }> {
    await this.chats.mustOwn(caller, id);
    return { data: await this.bus.request(S.chatsGet, { scope: caller.scope, id }) };
  }

  @Post(':chat/messages')
  @HttpCode(201)
  @ForPublishableKeys()
  @ApiOperationDoc({
    tag: 'Chats',
    summary: 'Ask a follow-up question; returns the answer.',
    status: 201,
    data: MessageView,
    body: FollowUpDto,
    errors: [400, 404, 409, 413, 422],
    streams: true,
  })
  async followUp(
    @CurrentCaller() caller: Caller,
    @Param('chat') chatId: string,
    @Body() dto: FollowUpDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
    @OperationId() id?: string,
  ): Promise<{ data: MessageView } | StreamableFile> {
    this.rules.followUp(dto.text);
    await this.chats.mustOwn(caller, chatId);
    const request = { scope: caller.scope, chatId, text: dto.text, instructions: caller.instructions, id, language: dto.language ?? null };
    if (wantsStream(req)) return this.streams.open(S.messagesCreate, request, res);
    return { data: await this.bus.request(S.messagesCreate, request, { timeoutMs: this.config.ANSWER_TIMEOUT_MS }) };
  }

  @Get(':chat/messages/:message')
  @ForPublishableKeys()
  @ApiOperationDoc({ tag: 'Chats', summary: 'Get one message of a chat.', status: 200, data: MessageView, errors: [404] })
  async message(@CurrentCaller() caller: Caller, @Param('chat') chatId: string, @Param('message') id: string): Promise<{ data: MessageView }> {
    await this.chats.mustOwn(caller, chatId);
    return { data: await this.bus.request(S.messagesGet, { scope: caller.scope, chatId, id }) };
  }

  @Post(':chat/feedback')
  @HttpCode(201)
  @ForPublishableKeys()
  @ApiOperationDoc({ tag: 'Chats', summary: 'Give feedback on a chat (replaces earlier feedback).', status: 201, data: ChatView, body: FeedbackDto, errors: [400, 404, 413, 422] })
  async chatFeedback(@CurrentCaller() caller: Caller, @Param('chat') id: string, @Body() dto: FeedbackDto): Promise<{ data: ChatView }> {
    this.rules.feedback(dto.feedback);
    await this.chats.mustOwn(caller, id);
    return { data: await this.bus.request(S.chatsFeedback, { scope: caller.scope, id, feedback: dto.feedback }) };
  }

  @Post(':chat/messages/:message/feedback')
  @HttpCode(201)
  @ForPublishableKeys()
  @ApiOperationDoc({
    tag: 'Chats',
    summary: 'Give feedback on a message (replaces earlier feedback).',
    status: 201,
    data: MessageView,
    body: FeedbackDto,
    errors: [400, 404, 413, 422],
  })
  async messageFeedback(@CurrentCaller() caller: Caller, @Param('chat') chatId: string, @Param('message') id: string, @Body() dto: FeedbackDto): Promise<{ data: MessageView }> {
    this.rules.feedback(dto.feedback);
    await this.chats.mustOwn(caller, chatId);
    return { data: await this.bus.request(S.messagesFeedback, { scope: caller.scope, chatId, id, feedback: dto.feedback }) };
  }
}
