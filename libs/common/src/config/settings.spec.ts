import { ConfigError, loadConfig, setting } from './settings';

const schema = {
  PORT: setting.int('port', { default: 3000, min: 0, max: 65535 }),
  MODE: setting.oneOf('mode', ['a', 'b'] as const, { default: 'a' }),
  FLAG: setting.bool('flag', { default: false }),
  URL: setting.url('url', { protocols: ['http', 'https'] }),
};

describe('loadConfig', () => {
  it('applies defaults', () => {
    expect(loadConfig(schema, {})).toEqual({ PORT: 3000, MODE: 'a', FLAG: false, URL: undefined });
  });

  it('parses given values', () => {
    expect(loadConfig(schema, { PORT: '8080', MODE: 'b', FLAG: 'yes', URL: 'https://x.test' })).toEqual({
      PORT: 8080,
      MODE: 'b',
      FLAG: true,
      URL: 'https://x.test',
    });
  });

  it('names every invalid setting in one error', () => {
    const load = () => loadConfig(schema, { PORT: 'eighty', MODE: 'c', FLAG: 'maybe', URL: 'ftp://x' });
    expect(load).toThrow(ConfigError);
    try {
      load();
    } catch (e) {
      const message = (e as Error).message;
      for (const name of ['PORT', 'MODE', 'FLAG', 'URL']) expect(message).toContain(`Invalid setting ${name}`);
    }
  });

  it('rejects out-of-range integers', () => {
    expect(() => loadConfig(schema, { PORT: '70000' })).toThrow(/PORT/);
  });
});
