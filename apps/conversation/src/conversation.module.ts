import { DynamicModule, Module } from '@nestjs/common';
import { BusModule, DatabaseModule, OpsModule, ServiceRuntime, WebhookOutboxModule } from '@askdata/common';
import { Subjects } from '@askdata/contracts';
import { ChatAnswers } from './chats/chat-answers';
import { ChatsService } from './chats/chats.service';
import { ForgetService } from './chats/forget.service';
import { QuestionsService } from './chats/questions.service';
import { CONVERSATION_CONFIG, ConversationConfig } from './conversation.config';
import { ConversationController } from './conversation.controller';
import { conversationDatabase } from './conversation.database';
import { AnswersModule, ModelReadiness } from './answers/answers.module';

@Module({})
export class ConversationModule {
  static forRoot(runtime: ServiceRuntime<ConversationConfig>): DynamicModule {
    return {
      module: ConversationModule,
      imports: [
        DatabaseModule.forService(conversationDatabase, runtime.database),
        BusModule.forRoot(runtime.bus, 'conversation'),
        AnswersModule.forRoot(runtime.config),
        OpsModule.forApp([ModelReadiness]),
        WebhookOutboxModule.forService('conversation', Subjects.conversation),
      ],
      controllers: [ConversationController],
      providers: [{ provide: CONVERSATION_CONFIG, useValue: runtime.config }, ChatsService, ChatAnswers, QuestionsService, ForgetService],
    };
  }
}
