/** The `k` greatest values under `compare` (positive: the first is better), kept in a min-heap. */
export class TopItems {
  private readonly heap: number[] = [];

  constructor(
    private readonly k: number,
    private readonly compare: (a: number, b: number) => number,
  ) {}

  offer(x: number): void {
    const h = this.heap;
    if (h.length < this.k) {
      h.push(x);
      let i = h.length - 1;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (this.compare(h[i], h[parent]) >= 0) break;
        [h[i], h[parent]] = [h[parent], h[i]];
        i = parent;
      }
    } else if (this.compare(x, h[0]) > 0) {
      h[0] = x;
      this.down(0);
    }
  }

  private down(i: number): void {
    const h = this.heap;
    for (;;) {
      const [l, r] = [2 * i + 1, 2 * i + 2];
      let least = i;
      if (l < h.length && this.compare(h[l], h[least]) < 0) least = l;
      if (r < h.length && this.compare(h[r], h[least]) < 0) least = r;
      if (least === i) return;
      [h[i], h[least]] = [h[least], h[i]];
      i = least;
    }
  }

  /** The least of the kept (the heap's root); the heap must not be empty. */
  least(): number {
    return this.heap[0];
  }

  /** Best first. */
  sorted(): number[] {
    return [...this.heap].sort((a, b) => this.compare(b, a));
  }
}
