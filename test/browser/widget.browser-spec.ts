import type { Page } from 'playwright-core';
import { admin, createProject, Project, sharedService } from '../support/harness';
import { accessibilityViolations, Browser, screenshots } from './browser';
import { pageWithWidget, Site } from './pages';

/**
 * The widget on pages of other origins, as a visitor meets it: on an origin its key allows it answers (streamed, with
 * its sources as links), takes feedback and follow-ups, keeps the conversation over a reload and starts anew on
 * "New chat"; on an origin the key does not allow it says it cannot answer here. In a multi-tenant project it answers
 * once the page gives it the session its backend made. The pages have a strict Content-Security-Policy and styles of
 * their own, which do not reach the widget, nor the widget's the page.
 */
/** Runs in the page: an element's computed background colour. */
const backgroundColour = (element: any): string => (globalThis as any).getComputedStyle(element).backgroundColor;

describe('widget', () => {
  const service = sharedService().url;
  let browser: Browser;
  let allowed: Site;
  let other: Site;
  let single: Project;
  let multi: Project;

  async function publishableKey(project: Project, origins: string[]): Promise<string> {
    const r = await admin('POST', `/admin/projects/${project.id}/keys`, { kind: 'publishable', origins });
    expect(r.status).toBe(201);
    return r.body.data.key as string;
  }

  async function ask(page: Page, question: string): Promise<void> {
    await page.getByLabel('Your question').fill(question);
    await page.getByRole('button', { name: 'Send' }).click();
  }

  beforeAll(async () => {
    const items = [
      { id: 'hours', url: 'https://shop.example/hours', data: { title: 'Opening hours', text: 'The shop is open from 9am to 5pm, Monday to Friday.' } },
      { id: 'returns', url: 'https://shop.example/returns', data: { title: 'Returns', text: 'Items can be returned within 30 days with the receipt.' } },
    ];
    [single, multi] = await Promise.all([createProject('single'), createProject('multi')]);
    await single.upsertAndWait(items, { slug: 'faq' });
    await multi.upsertAndWait(
      items.map((i) => ({ ...i, tenant: 7 })),
      { slug: 'faq' },
    );
    // Two sites: two ports of 127.0.0.1, so two origins; only the first is one the keys allow.
    const placeholder = await Site.start(service, {});
    const origin = placeholder.origin;
    await placeholder.stop();
    const [singleKey, multiKey] = await Promise.all([publishableKey(single, [origin]), publishableKey(multi, [origin])]);
    const shop = pageWithWidget(service, {
      'data-key': singleKey,
      'data-collections': 'faq',
      'data-title': 'Shop help',
      'data-greeting': 'Hi! Ask about the shop.',
      'data-color': '#0a6b43',
    });
    allowed = await Site.start(service, { '/': shop, '/tenant': pageWithWidget(service, { 'data-key': multiKey, 'data-title': 'Account help' }) }, origin);
    other = await Site.start(service, { '/': shop });
    browser = await Browser.launch();
  });
  afterAll(async () => {
    await browser?.close();
    await allowed?.stop();
    await other?.stop();
  });

  it('answers on a page of an allowed origin, with sources as links, feedback, a follow-up, a reload and a new chat', async () => {
    const page = await browser.page();
    page.setDefaultTimeout(15_000);
    await page.goto(`${allowed.origin}/`);
    await page.getByRole('button', { name: 'Shop help' }).click();
    await page.getByText('Hi! Ask about the shop.').waitFor();
    await ask(page, 'When is the shop open?');
    const first = page.getByTestId('widget-answer').first();
    await first.getByText('9am').waitFor();
    expect(await first.getByRole('link').first().getAttribute('href')).toBe('https://shop.example/hours');
    await first.getByRole('button', { name: 'Helpful', exact: true }).click();
    await first.locator('button[aria-pressed=true]').waitFor();
    await ask(page, 'And how long do I have to return an item?');
    await page.getByTestId('widget-answer').nth(1).getByText('30 days').waitFor();
    // The page's styles stay out of the widget, and the widget's out of the page.
    const launcherColour = await page.getByRole('button', { name: 'Close Shop help' }).evaluate(backgroundColour);
    expect(launcherColour).toBe('rgb(10, 107, 67)');
    expect(await page.locator('#page-button').evaluate(backgroundColour)).toBe('rgb(255, 0, 0)');
    await screenshots(page, 'widget-open');
    expect(await accessibilityViolations(page, '[data-askdata-widget]')).toEqual([]);

    await page.reload();
    await page.getByRole('button', { name: 'Shop help' }).click();
    await page.getByTestId('widget-answer').nth(1).getByText('30 days').waitFor();
    expect(await page.getByTestId('widget-answer').count()).toBe(2);
    await page.getByRole('button', { name: 'New chat' }).click();
    await page.getByTestId('widget-answer').first().waitFor({ state: 'detached' });
    await ask(page, 'When is the shop open?');
    await page.getByTestId('widget-answer').first().getByRole('button', { name: 'Helpful', exact: true }).waitFor();
    await screenshots(page, 'widget-new-chat');
    await page.close();
  });

  it('says it cannot answer on a page of an origin its key does not allow', async () => {
    const page = await browser.page([/403/]);
    page.setDefaultTimeout(15_000);
    await page.goto(`${other.origin}/`);
    await page.getByRole('button', { name: 'Shop help' }).click();
    await ask(page, 'When is the shop open?');
    await page.getByRole('alert').filter({ hasText: 'not available on this site' }).waitFor();
    await screenshots(page, 'widget-refused');
    expect(await accessibilityViolations(page, '[data-askdata-widget]')).toEqual([]);
    await page.close();
  });

  it("answers in a multi-tenant project once the page gives it the session its backend made, in that session's tenant", async () => {
    const page = await browser.page([/401/]);
    page.setDefaultTimeout(15_000);
    await page.goto(`${allowed.origin}/tenant`);
    await page.getByRole('button', { name: 'Account help' }).click();
    await ask(page, 'When is the shop open?');
    await page.getByRole('alert').filter({ hasText: 'has not signed you in' }).waitFor();
    const session = await multi.post('/sessions', { tenant: 7 });
    expect(session.status).toBe(201);
    await page.evaluate(`window.Askdata.setSession(${JSON.stringify(session.body.data.token)})`);
    await ask(page, 'When is the shop open?');
    await page.getByTestId('widget-answer').nth(1).getByText('9am').waitFor();
    await page.getByTestId('widget-answer').nth(1).getByRole('button', { name: 'Helpful', exact: true }).waitFor();
    await page.close();
  });

  it('met no console error, page error or failed request but the refusals provoked', () => {
    expect(browser.problems).toEqual([]);
  });
});
