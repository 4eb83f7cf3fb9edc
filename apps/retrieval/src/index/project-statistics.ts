/** What a batch adds to its project's statistics (its length filled in once it is analysed). */
export interface Addition {
  chunks: number;
  length: number;
}

/** A project's collection size and total length. */
export interface Statistics {
  chunkCount: number;
  totalLength: number;
}

/**
 * A project's statistics while it has index batches in hand here: as last read or committed, and what the batches
 * prepared since then add. So a batch is prepared while the one ahead of it is written, without a statement that
 * would wait for that one's transaction (standalone has a single connection).
 */
export class ProjectStatistics {
  private readonly known = new Map<string, Statistics & { since: Set<Addition> }>();

  /**
   * The project's statistics before `addition`, which is counted in from now on: read (`read`) when the project has
   * no batch in hand here, and otherwise the statistics its last commit returned plus the batches prepared since.
   * The caller asks for one batch of a project at a time.
   */
  async before(project: string, addition: Addition, read: () => Promise<Statistics>): Promise<Statistics> {
    let known = this.known.get(project);
    if (!known) {
      known = { ...(await read()), since: new Set() };
      this.known.set(project, known);
    }
    let { chunkCount, totalLength } = known;
    for (const a of known.since) {
      chunkCount += a.chunks;
      totalLength += a.length;
    }
    known.since.add(addition);
    return { chunkCount, totalLength };
  }

  /**
   * A batch is committed (with the project's statistics after it) or abandoned: its addition is no longer counted
   * apart, and the project's statistics are forgotten once no batch of it is in hand.
   */
  settle(project: string, addition: Addition | null, committed?: Statistics): void {
    const known = this.known.get(project);
    if (!known) return;
    if (committed) Object.assign(known, committed);
    if (addition) known.since.delete(addition);
    if (known.since.size === 0) this.known.delete(project);
  }
}
