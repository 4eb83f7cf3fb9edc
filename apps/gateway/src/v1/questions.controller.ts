import { Body, Controller, HttpCode, Inject, Post, Req, Res, StreamableFile, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import { Bounds, MessageView, QuestionDto, QuestionRequest, SearchDto, SearchHitView, Subjects } from '@askdata/contracts';
import { BusClient, ServiceError } from '@askdata/common';
import { ApiKeyGuard, CurrentCaller } from '../auth/api-key.guard';
import { OperationId } from '../idempotency/idempotency.interceptor';
import { GATEWAY_CONFIG, GatewayConfig } from '../gateway.config';
import { ApiOperationDoc } from '../openapi/api-docs';
import { Caller } from '../auth/caller';
import { ForPublishableKeys } from '../auth/key-kinds';
import { bindToSession, SessionChats } from '../sessions/session-chats';
import { AnswerStreams, wantsStream } from './answer-streams';
import { Rules } from './rules';

export function questionRequest(caller: Caller, dto: QuestionDto, id?: string): QuestionRequest {
  return {
    scope: caller.scope,
    text: dto.text,
    collections: dto.collections ?? null,
    tenant: dto.tenant ?? null,
    identifier: dto.identifier ? { id: dto.identifier.id, name: dto.identifier.name, email: dto.identifier.email } : null,
    filter: dto.filter ?? null,
    instructions: caller.instructions,
    id,
    language: dto.language ?? null,
  };
}

@UseGuards(ApiKeyGuard)
@Controller('v1')
export class QuestionsController {
  constructor(
    private readonly bus: BusClient,
    private readonly rules: Rules,
    private readonly streams: AnswerStreams,
    private readonly chats: SessionChats,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  @Post('query')
  @HttpCode(201)
  @ForPublishableKeys()
  @ApiOperationDoc({
    tag: 'Questions',
    summary: 'Ask a one-off question; the answer is one message with sources.',
    status: 201,
    data: MessageView,
    body: QuestionDto,
    errors: [400, 413, 422],
    streams: true,
  })
  async query(
    @CurrentCaller() caller: Caller,
    @Body() dto: QuestionDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
    @OperationId() id?: string,
  ): Promise<{ data: MessageView } | StreamableFile> {
    const question = bindToSession(caller, dto);
    this.rules.question(caller.scope, question);
    const request = questionRequest(caller, question, id);
    if (wantsStream(req)) return this.streams.open(Subjects.conversation.query, request, res, (chat) => this.chats.record(caller, chat));
    const message = await this.bus.request(Subjects.conversation.query, request, { timeoutMs: this.config.ANSWER_TIMEOUT_MS });
    await this.chats.record(caller, message.chat_id);
    return { data: message };
  }

  @Post('search')
  @HttpCode(200)
  @ApiOperationDoc({
    tag: 'Questions',
    summary: 'Extension: ranked items for a question, without an answer.',
    status: 200,
    data: SearchHitView,
    isArray: true,
    body: SearchDto,
    errors: [400, 413, 422],
  })
  async search(@CurrentCaller() caller: Caller, @Body() dto: SearchDto): Promise<{ data: SearchHitView[] }> {
    this.rules.question(caller.scope, dto);
    if (dto.stream !== undefined) throw ServiceError.invalidField('stream', 'The stream field is not taken here: a search answers at once.');
    const limit = dto.limit ?? Bounds.searchLimitDefault;
    if (limit > Bounds.searchLimitMax) {
      throw ServiceError.invalidField('limit', `The limit field must not be greater than ${Bounds.searchLimitMax}.`);
    }
    const hits = await this.bus.request(Subjects.retrieval.search, {
      scope: caller.scope,
      text: dto.text,
      collections: dto.collections ?? null,
      tenant: dto.tenant ?? null,
      filter: dto.filter ?? null,
      limit,
      language: dto.language ?? null,
      texts: false,
    });
    return { data: hits.map(({ id, item_id, collection, tenant, url, metadata, score, snippet }) => ({ id, item_id, collection, tenant, url, metadata, score, snippet })) };
  }
}
