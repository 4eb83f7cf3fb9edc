import { jsonl } from './data';

/**
 * Deterministic synthetic records built from the sentences of the SciFact corpus, so that term statistics look
 * like real prose: item i always has the same text for a given seed.
 */
export class SyntheticCorpus {
  private readonly sentences: string[];
  private state: number;

  constructor(seed = 42) {
    this.state = seed;
    this.sentences = jsonl<{ text: string }>('scifact/corpus.jsonl')
      .flatMap((d) => d.text.split(/(?<=[.!?])\s+/))
      .filter((s) => s.length > 40 && s.length < 400);
  }

  private next(): number {
    // mulberry32
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Text of about `bytes` characters. */
  text(bytes: number): string {
    const parts: string[] = [];
    let n = 0;
    while (n < bytes) {
      const s = this.sentences[Math.floor(this.next() * this.sentences.length)];
      parts.push(s);
      n += s.length + 1;
    }
    return parts.join(' ');
  }

  item(i: number, bytes: number): { id: string; data: { title: string; text: string }; metadata: { n: number; group: string } } {
    return {
      id: `doc-${i}`,
      data: { title: this.text(60).slice(0, 80), text: this.text(bytes) },
      metadata: { n: i, group: ['a', 'b', 'c', 'd'][i % 4] },
    };
  }

  question(): string {
    const s = this.sentences[Math.floor(this.next() * this.sentences.length)];
    return s.split(/\s+/).slice(0, 8).join(' ');
  }
}
