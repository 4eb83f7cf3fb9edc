/** Block numbers taken from the sequence at a time. */
const BLOCKS_AHEAD = 8;

/**
 * Block numbers taken from a sequence ahead of need (more are taken when few are left), so a batch rarely waits for
 * a statement to get one. Sequence values are not transactional: a batch rolled back, or numbers left unused when
 * the process stops, leave gaps, which are harmless.
 */
export class BlockNumbers {
  private readonly ahead: string[] = [];
  private refilling: Promise<void> | null = null;

  /** `take(n)`: n fresh numbers from the sequence. */
  constructor(private readonly take: (n: number) => Promise<string[]>) {}

  async next(): Promise<string> {
    for (;;) {
      if (this.ahead.length <= BLOCKS_AHEAD / 2 && !this.refilling) {
        const refill = this.take(BLOCKS_AHEAD)
          .then((blocks) => void this.ahead.push(...blocks))
          .finally(() => (this.refilling = null));
        refill.catch(() => undefined);
        this.refilling = refill;
      }
      const block = this.ahead.shift();
      if (block !== undefined) return block;
      await this.refilling;
    }
  }
}
