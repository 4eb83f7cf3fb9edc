import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { BrowserContext, chromium, Page, Request } from 'playwright-core';
import { CHROMIUM, requireChromium } from './chromium';

export const LAPTOP = { width: 1366, height: 768 };
export const PHONE = { width: 390, height: 844 };
export const SCREENSHOTS = resolve(__dirname, '..', '..', 'test-artifacts', 'screenshots');

/** The flags that keep Chromium from reaching out (this machine's network refuses it) and from needing a sandbox. */
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** A browser with a new empty profile, and every page's console errors, page errors and failed requests noted. */
export class Browser {
  readonly problems: string[] = [];
  private constructor(
    readonly context: BrowserContext,
    private readonly profile: string,
  ) {}

  static async launch(): Promise<Browser> {
    requireChromium();
    const profile = mkdtempSync(join(tmpdir(), 'askdata-chromium-'));
    const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS, viewport: LAPTOP });
    mkdirSync(SCREENSHOTS, { recursive: true });
    return new Browser(context, profile);
  }

  /** A new page whose problems are noted (`expected` ones, e.g. a refusal the test provokes, excepted). */
  async page(expected: RegExp[] = []): Promise<Page> {
    const page = await this.context.newPage();
    const note = (what: string) => {
      if (!expected.some((re) => re.test(what))) this.problems.push(what);
    };
    page.on('console', (m) => m.type() === 'error' && note(`console error on ${page.url()}: ${m.text()}`));
    page.on('pageerror', (e) => note(`page error on ${page.url()}: ${e.message}`));
    // Chromium reports a `no-store` stream read to its end as aborted (playwright issue 42742): an answer stream
    // whose response came is not a failed request. An answer cut short shows in the page, which the tests read.
    const streams = new WeakSet<Request>();
    page.on('response', (r) => r.ok() && (r.headers()['content-type'] ?? '').startsWith('text/event-stream') && streams.add(r.request()));
    page.on('requestfailed', (r) => {
      if (streams.has(r) && r.failure()?.errorText === 'net::ERR_ABORTED') return;
      note(`request failed: ${r.method()} ${r.url()}: ${r.failure()?.errorText ?? ''}`);
    });
    page.on('response', (r) => r.status() >= 400 && note(`HTTP ${r.status()}: ${r.request().method()} ${r.url()}`));
    return page;
  }

  async close(): Promise<void> {
    await this.context.close();
    rmSync(this.profile, { recursive: true, force: true });
  }
}

/** Screenshots of the page as it is, at laptop and at phone size (back at laptop size after). */
export async function screenshots(page: Page, name: string): Promise<void> {
  for (const [size, viewport] of [
    ['laptop', LAPTOP],
    ['phone', PHONE],
  ] as const) {
    await page.setViewportSize(viewport);
    await page.screenshot({ path: join(SCREENSHOTS, `${name}-${size}.png`), fullPage: true });
  }
  await page.setViewportSize(LAPTOP);
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown[] }>;
}

/**
 * axe-core's serious and critical violations on the page (within `include`, a selector, when given). The script is
 * evaluated through the DevTools protocol, which the page's Content-Security-Policy does not govern.
 */
export async function accessibilityViolations(page: Page, include?: string): Promise<string[]> {
  const axe = require('axe-core') as { source: string };
  await page.evaluate(axe.source);
  // Evaluated in the page, where axe now is (an expression: this file is compiled without the DOM's types).
  const context = include ? JSON.stringify({ include: [include] }) : 'document';
  const violations = await page.evaluate<AxeViolation[]>(`axe.run(${context}, { resultTypes: ['violations'] }).then((r) => r.violations)`);
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact}: ${v.id} (${v.help}) at ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`);
}
