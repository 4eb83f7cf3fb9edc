/**
 * Work done per project one at a time, in the order it came: each piece starts once the one before it (of the same
 * project) ended, whether that one succeeded or failed. Different projects do not wait for each other.
 */
export class ProjectTurns {
  /** Per project, the turn of the last piece of work that came: the next waits for it. */
  private readonly last = new Map<string, Promise<void>>();

  async inTurn<T>(project: string, work: () => Promise<T>): Promise<T> {
    const ahead = this.last.get(project);
    let done!: () => void;
    const turn = new Promise<void>((resolve) => (done = resolve));
    this.last.set(project, turn);
    try {
      await ahead;
      return await work();
    } finally {
      done();
      if (this.last.get(project) === turn) this.last.delete(project);
    }
  }
}
