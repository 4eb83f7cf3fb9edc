import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { ClientProxy } from '@nestjs/microservices';
import {
  BusRequest, BusResponse, ErrorCode, RequestSubject, isBusError,
} from '@askdata/contracts';
import { lastValueFrom, timeout, TimeoutError } from 'rxjs';
import { BusOptions } from './bus.options';
import { ServiceError } from './service-error';

export const BUS_PROXY = Symbol('BUS_PROXY');
export const BUS_OPTIONS = Symbol('BUS_OPTIONS');

/**
 * Typed requests over the bus. Every request has a timeout; every failure comes back as a
 * {@link ServiceError}: the service's own typed error, or UNAVAILABLE when the bus or the service did not answer.
 */
@Injectable()
export class BusClient implements OnApplicationShutdown {
  private readonly logger = new Logger(BusClient.name);

  constructor(
    @Inject(BUS_PROXY) private readonly proxy: ClientProxy,
    @Inject(BUS_OPTIONS) private readonly options: BusOptions,
  ) {}

  async request<S extends RequestSubject>(
    subject: S,
    payload: BusRequest<S>,
    opts: { timeoutMs?: number } = {},
  ): Promise<BusResponse<S>> {
    const ms = opts.timeoutMs ?? this.options.timeoutMs;
    try {
      return await lastValueFrom(this.proxy.send<BusResponse<S>, BusRequest<S>>(subject, payload).pipe(timeout(ms)));
    } catch (e) {
      throw this.toServiceError(e, subject);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.proxy.close();
  }

  private toServiceError(e: unknown, subject: string): ServiceError {
    if (e instanceof ServiceError) return e;
    if (isBusError(e)) return ServiceError.fromBusError(e);
    if (e instanceof TimeoutError) {
      return new ServiceError(ErrorCode.Unavailable, `The service behind ${subject} did not answer in time.`);
    }
    this.logger.warn(`bus request ${subject} failed: ${describe(e)}`);
    return new ServiceError(ErrorCode.Unavailable, `The service behind ${subject} is unavailable.`);
  }
}

function describe(e: unknown): string {
  if (e instanceof Error) return e.message;
  try {
    return JSON.stringify(e);
  } catch {
    return String(e);
  }
}
