/** Command-line options of the benchmarks: `--name value` and bare `--flag`. */

export function numberArg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const value = Number(process.argv[i + 1]);
  if (!Number.isFinite(value)) throw new Error(`--${name} needs a number`);
  return value;
}

export function listArg(name: string, fallback: string[]): string[] {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? fallback : (process.argv[i + 1] ?? '').split(',').filter(Boolean);
}

export function flag(name: string): boolean {
  return process.argv.includes(`--${name}`);
}
