/**
 * Wait before the next attempt of a delivery after `attempts` failed ones: `base` doubled for each failure after the
 * first, at most `max`, then between half and all of that at random ("equal jitter"), so that endpoints that failed
 * together are not all tried again at the same moment.
 */
export function webhookBackoffMs(attempts: number, base: number, max: number, random: () => number = Math.random): number {
  const ceiling = Math.min(max, base * 2 ** Math.min(Math.max(attempts - 1, 0), 40));
  return Math.round(ceiling / 2 + (ceiling / 2) * random());
}
