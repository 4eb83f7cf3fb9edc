import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { BusRequest, HealthReport, Out, Subjects } from '@askdata/contracts';
import { databaseHealth } from '@askdata/common';
import { DataSource } from 'typeorm';
import { ANSWER_GENERATOR, AnswerGenerator } from './answers/answer-generator';
import { ChatsService } from './chats/chats.service';
import { ForgetService } from './chats/forget.service';

const S = Subjects.conversation;

@Controller()
export class ConversationController {
  constructor(
    private readonly chats: ChatsService,
    private readonly ds: DataSource,
    private readonly forget: ForgetService,
    @Inject(ANSWER_GENERATOR) private readonly generator: AnswerGenerator,
  ) {}

  @MessagePattern(S.query)
  query(@Payload() req: BusRequest<typeof S.query>): Out<typeof S.query> {
    return this.chats.query(req);
  }

  @MessagePattern(S.chatsCreate)
  create(@Payload() req: BusRequest<typeof S.chatsCreate>): Out<typeof S.chatsCreate> {
    return this.chats.create(req);
  }

  @MessagePattern(S.chatsList)
  list(@Payload() req: BusRequest<typeof S.chatsList>): Out<typeof S.chatsList> {
    return this.chats.list(req);
  }

  @MessagePattern(S.chatsGet)
  get(@Payload() req: BusRequest<typeof S.chatsGet>): Out<typeof S.chatsGet> {
    return this.chats.get(req.scope, req.id);
  }

  @MessagePattern(S.messagesCreate)
  followUp(@Payload() req: BusRequest<typeof S.messagesCreate>): Out<typeof S.messagesCreate> {
    return this.chats.followUp(req);
  }

  @MessagePattern(S.messagesGet)
  message(@Payload() req: BusRequest<typeof S.messagesGet>): Out<typeof S.messagesGet> {
    return this.chats.message(req.scope, req.chatId, req.id);
  }

  @MessagePattern(S.chatsFeedback)
  chatFeedback(@Payload() req: BusRequest<typeof S.chatsFeedback>): Out<typeof S.chatsFeedback> {
    return this.chats.chatFeedback(req.scope, req.id, req.feedback);
  }

  @MessagePattern(S.messagesFeedback)
  messageFeedback(@Payload() req: BusRequest<typeof S.messagesFeedback>): Out<typeof S.messagesFeedback> {
    return this.chats.messageFeedback(req.scope, req.chatId, req.id, req.feedback);
  }

  @MessagePattern(S.sourcesForget)
  forgetSources(@Payload() req: BusRequest<typeof S.sourcesForget>): Out<typeof S.sourcesForget> {
    return this.forget.forgetSources(req);
  }

  @MessagePattern(S.tenantForget)
  forgetTenant(@Payload() req: BusRequest<typeof S.tenantForget>): Out<typeof S.tenantForget> {
    return this.forget.forgetTenant(req);
  }

  @MessagePattern(S.health)
  health(): Promise<HealthReport> {
    const generator = this.generator;
    const model = generator.ready ? [{ name: 'model', check: () => generator.ready!() }] : [];
    return databaseHealth('conversation', this.ds, model);
  }
}
