import { Running } from '../../bench/lib/service';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { __askdata?: Running }).__askdata?.stop();
}
