import { ModelReadiness } from './answers.module';
import { AnswerGenerator } from './answer-generator';

const generator = (ready?: () => Promise<void>): AnswerGenerator => ({
  kind: 'test',
  generate: async () => ({ text: '', citations: [] }),
  rewrite: async (q) => q,
  ...(ready ? { ready } : {}),
});

describe('ModelReadiness', () => {
  it('is ready without a model (extractive answers)', async () => {
    await expect(new ModelReadiness(generator()).check()).resolves.toBeUndefined();
  });

  it('follows the model: ready while it answers, not ready with its reason when it does not', async () => {
    let up = true;
    const readiness = new ModelReadiness(
      generator(async () => {
        if (!up) throw new Error('the model API answered 529');
      }),
    );
    await expect(readiness.check()).resolves.toBeUndefined();
    up = false;
    await expect(readiness.check()).rejects.toThrow('the model API answered 529');
  });
});
