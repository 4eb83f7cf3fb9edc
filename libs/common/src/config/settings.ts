import { Env } from './env';

/** A setting failed validation; the message names it. Services stop at boot with it. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export interface Setting<T> {
  parse(raw: string | undefined, name: string): T;
  /** For documentation and .env.example. */
  describe: { default?: string; secret?: boolean; help: string };
}

function bad(name: string, what: string, raw: string): never {
  throw new ConfigError(`Invalid setting ${name}: ${what} (got "${raw}").`);
}

export const setting = {
  string(help: string, opts: { default?: string; secret?: boolean } = {}): Setting<string | undefined> {
    return {
      describe: { help, default: opts.default, secret: opts.secret },
      parse: (raw) => (raw === undefined || raw === '' ? opts.default : raw),
    };
  },
  /** A string matching `re` (the empty string stands for the default). */
  pattern(help: string, re: RegExp, what: string, opts: { default: string; maxLength: number }): Setting<string> {
    return {
      describe: { help, default: opts.default },
      parse: (raw, name) => {
        if (raw === undefined || raw === '') return opts.default;
        if (raw.length > opts.maxLength) bad(name, `at most ${opts.maxLength} characters`, raw);
        if (!re.test(raw)) bad(name, what, raw);
        return raw;
      },
    };
  },
  requiredString(help: string, opts: { default?: string; secret?: boolean } = {}): Setting<string> {
    return {
      describe: { help, default: opts.default, secret: opts.secret },
      parse: (raw, name) => {
        const v = raw === undefined || raw === '' ? opts.default : raw;
        if (v === undefined) throw new ConfigError(`Missing setting ${name}: ${help}`);
        return v;
      },
    };
  },
  int(help: string, opts: { default: number; min?: number; max?: number }): Setting<number> {
    const min = opts.min ?? Number.MIN_SAFE_INTEGER;
    const max = opts.max ?? Number.MAX_SAFE_INTEGER;
    return {
      describe: { help, default: String(opts.default) },
      parse: (raw, name) => {
        if (raw === undefined || raw === '') return opts.default;
        if (!/^-?\d+$/.test(raw.trim())) bad(name, `must be an integer between ${min} and ${max}`, raw);
        const v = Number(raw.trim());
        if (v < min || v > max) bad(name, `must be an integer between ${min} and ${max}`, raw);
        return v;
      },
    };
  },
  number(help: string, opts: { default: number; min?: number; max?: number }): Setting<number> {
    const min = opts.min ?? -Number.MAX_VALUE;
    const max = opts.max ?? Number.MAX_VALUE;
    return {
      describe: { help, default: String(opts.default) },
      parse: (raw, name) => {
        if (raw === undefined || raw === '') return opts.default;
        const v = Number(raw.trim());
        if (!Number.isFinite(v) || v < min || v > max) bad(name, `must be a number between ${min} and ${max}`, raw);
        return v;
      },
    };
  },
  bool(help: string, opts: { default: boolean }): Setting<boolean> {
    return {
      describe: { help, default: String(opts.default) },
      parse: (raw, name) => {
        if (raw === undefined || raw === '') return opts.default;
        const v = raw.trim().toLowerCase();
        if (['1', 'true', 'yes', 'on'].includes(v)) return true;
        if (['0', 'false', 'no', 'off'].includes(v)) return false;
        return bad(name, 'must be true or false', raw);
      },
    };
  },
  oneOf<const T extends string>(help: string, values: readonly T[], opts: { default: T }): Setting<T> {
    return {
      describe: { help: `${help} One of: ${values.join(', ')}.`, default: opts.default },
      parse: (raw, name) => {
        if (raw === undefined || raw === '') return opts.default;
        if (!(values as readonly string[]).includes(raw)) bad(name, `must be one of ${values.join(', ')}`, raw);
        return raw as T;
      },
    };
  },
  url(help: string, opts: { default?: string; protocols: string[] }): Setting<string | undefined> {
    return {
      describe: { help, default: opts.default },
      parse: (raw, name) => {
        const v = raw === undefined || raw === '' ? opts.default : raw;
        if (v === undefined) return undefined;
        let u: URL;
        try {
          u = new URL(v);
        } catch {
          return bad(name, 'must be a URL', v);
        }
        if (!opts.protocols.includes(u.protocol.replace(/:$/, ''))) {
          bad(name, `must be a URL with scheme ${opts.protocols.join(' or ')}`, v);
        }
        return v;
      },
    };
  },
};

export type Schema = Record<string, Setting<unknown>>;
export type ConfigOf<S extends Schema> = { readonly [K in keyof S]: S[K] extends Setting<infer T> ? T : never };

/** Validates every setting of the schema; collects all problems into one error that names each setting. */
export function loadConfig<S extends Schema>(schema: S, env: Env): ConfigOf<S> {
  const out: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [name, spec] of Object.entries(schema)) {
    try {
      out[name] = spec.parse(env[name], name);
    } catch (e) {
      problems.push(e instanceof Error ? e.message : String(e));
    }
  }
  if (problems.length) throw new ConfigError(problems.join('\n'));
  return out as ConfigOf<S>;
}
