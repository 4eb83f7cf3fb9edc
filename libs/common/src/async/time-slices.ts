/**
 * Long synchronous work cut into slices of a few milliseconds, with the event loop served in between: a service's
 * other requests, and the answers of a database it is writing to meanwhile, wait at most a slice. In a loop:
 *
 *     const slices = new TimeSlices();
 *     for (const x of xs) {
 *       if (slices.due()) await slices.next();
 *       ...
 *     }
 */
export class TimeSlices {
  private started = performance.now();

  constructor(private readonly sliceMs = 10) {}

  /** Whether the current slice has run its time. */
  due(): boolean {
    return performance.now() - this.started >= this.sliceMs;
  }

  /** Resolves once the event loop has served what is waiting (timers and I/O), beginning a new slice. */
  async next(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.started = performance.now();
  }
}
