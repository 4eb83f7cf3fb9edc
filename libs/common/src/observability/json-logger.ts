import { LoggerService } from '@nestjs/common';
import pino, { Logger as Pino } from 'pino';
import { currentRequestId } from './request-context';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** Secrets never reach the log: these keys are censored wherever they appear in logged objects. */
const REDACT = [
  'apiKey',
  'api_key',
  'key',
  'token',
  'password',
  'authorization',
  'secret',
  '*.apiKey',
  '*.api_key',
  '*.key',
  '*.token',
  '*.password',
  '*.authorization',
  '*.secret',
  'headers["api-key"]',
  'headers.authorization',
  'req.headers["api-key"]',
  'req.headers.authorization',
];
const SECRET_PATTERNS = [/\bak_[A-Za-z0-9_-]{20,}/g, /\badm_[A-Za-z0-9_-]{20,}/g, /\bsk-[A-Za-z0-9_-]{10,}/g, /(Bearer\s+)\S+/gi];

export function maskSecrets(text: string): string {
  return SECRET_PATTERNS.reduce((t, re) => t.replace(re, (m, bearer?: string) => (typeof bearer === 'string' ? `${bearer}[redacted]` : '[redacted]')), text);
}

/** Nest's start-up chatter (every module and route) at info level is left out. */
const BOOT_CONTEXTS = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestFactory', 'NestApplication', 'NestMicroservice']);

/**
 * Structured JSON logs (pino) for Nest: one line per event with the service, the Nest context, and the
 * correlation id of the request being served. API keys, tokens and secrets are masked.
 */
export class JsonLogger implements LoggerService {
  private readonly pino: Pino;

  constructor(service: string, level: LogLevel = 'info', destination?: pino.DestinationStream) {
    this.pino = pino(
      {
        level,
        base: { service },
        redact: { paths: REDACT, censor: '[redacted]' },
        timestamp: pino.stdTimeFunctions.isoTime,
        formatters: { level: (label) => ({ level: label }) },
      },
      destination,
    );
  }

  log(message: unknown, ...rest: unknown[]): void {
    if (BOOT_CONTEXTS.has(rest[rest.length - 1] as string)) return;
    this.write('info', message, rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    this.write('error', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.write('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.write('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.write('debug', message, rest);
  }

  private write(level: LogLevel, message: unknown, rest: unknown[]): void {
    if (!this.pino.isLevelEnabled(level)) return;
    const context = typeof rest[rest.length - 1] === 'string' ? (rest[rest.length - 1] as string) : undefined;
    const requestId = currentRequestId();
    const fields: Record<string, unknown> = { ...(context ? { context } : {}), ...(requestId ? { requestId } : {}) };
    if (level === 'error' && typeof rest[0] === 'string' && rest.length > 1) fields.stack = maskSecrets(rest[0]);
    if (typeof message === 'object' && message !== null) this.pino[level]({ ...fields, ...message });
    else this.pino[level](fields, maskSecrets(String(message)));
  }
}
