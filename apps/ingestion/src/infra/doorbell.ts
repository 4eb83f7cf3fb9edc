/**
 * The doorbell tells ingestion workers that an upsert was accepted. It carries no data that matters: the upsert
 * row is the truth, and workers also poll, so a lost ring only delays work.
 */
export interface Doorbell {
  ring(upsertId: string): Promise<void>;
  /** Calls `listener` whenever any replica rang. */
  listen(listener: () => void): Promise<void>;
  close(): Promise<void>;
}

export const DOORBELL = Symbol('DOORBELL');

/** Standalone mode: one process, so ringing is calling the listener. */
export class LocalDoorbell implements Doorbell {
  private listener: (() => void) | null = null;

  ring(): Promise<void> {
    this.listener?.();
    return Promise.resolve();
  }

  listen(listener: () => void): Promise<void> {
    this.listener = listener;
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.listener = null;
    return Promise.resolve();
  }
}
