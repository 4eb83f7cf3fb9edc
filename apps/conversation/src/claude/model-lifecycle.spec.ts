import { Logger } from '@nestjs/common';
import { ClaudeClient } from './claude.client';
import { modelStatus } from './model-lifecycle';
import { stubSettings } from '../../../../test/stand-ins/messages-api.stub';
import { conversationSettings } from '../conversation.config';

describe('model lifecycle', () => {
  it('knows a deprecated model until its retirement date, and retired from that day', () => {
    expect(modelStatus('claude-sonnet-4-5', new Date('2026-11-26T00:00:00Z'))).toEqual({ status: 'deprecated', retires: '2026-11-30', replacement: 'claude-sonnet-5-5' });
    expect(modelStatus('claude-sonnet-4-5', new Date('2026-11-30T00:00:00Z'))).toMatchObject({ status: 'retired' });
    expect(modelStatus('claude-sonnet-5-5')).toEqual({ status: 'active' });
  });

  it('defaults to models that are not deprecated', () => {
    const today = new Date('2026-11-26T00:00:00Z');
    expect(modelStatus(conversationSettings.ANTHROPIC_MODEL.parse(undefined, 'ANTHROPIC_MODEL'), today).status).toBe('active');
    expect(modelStatus(conversationSettings.REWRITE_MODEL.parse(undefined, 'REWRITE_MODEL'), today).status).toBe('active');
  });

  it('logs one structured warning per deprecated model at start', () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      new ClaudeClient(stubSettings('http://127.0.0.1:1', { model: 'claude-sonnet-4-5-20250929', rewriteModel: 'claude-small' })).warnAboutModels();
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn.mock.calls[0][0]).toMatchObject({ setting: 'ANTHROPIC_MODEL', model: 'claude-sonnet-4-5-20250929', replacement: 'claude-sonnet-5-5', retires: '2026-11-30' });
    } finally {
      warn.mockRestore();
    }
  });
});
