import { DynamicModule, Inject, Injectable, Module } from '@nestjs/common';
import { ReadinessCheck } from '@askdata/common';
import { answerGenerator } from '../answer-generator.factory';
import { ConversationConfig } from '../conversation.config';
import { ANSWER_GENERATOR, AnswerGenerator } from './answer-generator';

/** Readiness of the conversation service: the model behind the answer generator answers (when there is one). */
@Injectable()
export class ModelReadiness implements ReadinessCheck {
  readonly name = 'model';
  constructor(@Inject(ANSWER_GENERATOR) private readonly generator: AnswerGenerator) {}
  async check(): Promise<void> {
    await this.generator.ready?.();
  }
}

/** The configured answer generator; global, so that the health module's readiness check can reach it. */
@Module({})
export class AnswersModule {
  static forRoot(config: ConversationConfig): DynamicModule {
    return {
      module: AnswersModule,
      global: true,
      providers: [{ provide: ANSWER_GENERATOR, useFactory: () => answerGenerator(config) }],
      exports: [ANSWER_GENERATOR],
    };
  }
}
