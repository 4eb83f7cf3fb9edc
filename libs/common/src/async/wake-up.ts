/**
 * A poll loop's sleep that a signal cuts short: `wait` resolves after `ms`, or at the next `kick`, which wakes
 * every waiter; a kick while nobody waits makes the next wait return at once (no signal is lost between rounds).
 */
export class WakeUp {
  private readonly waiters = new Set<() => void>();
  private kicked = false;

  kick(): void {
    this.kicked = true;
    for (const wake of [...this.waiters]) wake();
  }

  wait(ms: number): Promise<void> {
    if (this.kicked) {
      this.kicked = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        this.kicked = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
    });
  }
}
