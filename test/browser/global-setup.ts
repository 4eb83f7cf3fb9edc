import e2eSetup from '../support/global-setup';
import { requireChromium } from './chromium';

/** Chromium first (a clear failure before anything starts), then the service of the run, as the end-to-end suite starts it. */
export default async function globalSetup(): Promise<void> {
  requireChromium();
  await e2eSetup();
}
