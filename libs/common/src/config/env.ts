/** The one place that reads the process environment. Everything else receives validated config. */
export type Env = Readonly<Record<string, string | undefined>>;

export function processEnv(): Env {
  return { ...process.env };
}
