/** Whether a line of V8's `--trace-gc-nvp` output is a young-generation collection (a scavenge). */
export function isYoungCollection(line: string): boolean {
  return line.includes(' gc=s ');
}

/** The means over `--trace-gc-nvp` lines: what survived and what was promoted (KB), and the pause (ms). */
export function collectionMeans(lines: string[]): { survived: number; promoted: number; pause: number } {
  const mean = (key: string) => {
    const pattern = new RegExp(`\\b${key}=([0-9.]+)`);
    return lines.reduce((sum, line) => sum + Number(pattern.exec(line)?.[1] ?? NaN), 0) / Math.max(1, lines.length);
  };
  return { survived: mean('new_space_survived') / 1024, promoted: mean('promoted') / 1024, pause: mean('pause') };
}
