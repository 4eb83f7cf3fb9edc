import { existsSync } from 'node:fs';

/** Where the browser suite finds Chromium; CHROMIUM_PATH overrides Debian's /usr/bin/chromium. */
export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** Fails at once, in words, when Chromium is missing: the suite never passes without having run. */
export function requireChromium(): void {
  if (existsSync(CHROMIUM)) return;
  throw new Error(
    `The browser tests need Chromium at ${CHROMIUM}, which is missing. Install it (Debian or Ubuntu: \`sudo apt-get install -y chromium\`), ` +
      'or point CHROMIUM_PATH at a Chromium or Chrome binary.',
  );
}
