import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The repository root, whether this runs from source (tests) or from dist (benchmarks). */
export function repoRoot(from = __dirname): string {
  let dir = from;
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`no package.json above ${from}`);
    dir = up;
  }
  return dir;
}
