import type { Page } from 'playwright-core';
import { sharedService } from '../support/harness';
import { accessibilityViolations, Browser, screenshots } from './browser';

/**
 * The console as an operator uses it: sign in, create a project and its keys, watch an upsert (sent through the API)
 * complete, ask in the playground and see the answer stream in with its sources, give feedback and see it counted.
 * Every page is photographed at laptop and phone size and checked by axe-core; no console error or failed request.
 */
describe('console', () => {
  const service = sharedService();
  const consoleUrl = `${service.adminUrl}/console/`;
  let browser: Browser;
  let page: Page;
  let projectUrl = '';
  let secretKey = '';

  beforeAll(async () => {
    browser = await Browser.launch();
    page = await browser.page();
    page.setDefaultTimeout(15_000);
  });
  afterAll(async () => {
    await browser?.close();
  });

  async function check(name: string): Promise<void> {
    await screenshots(page, name);
    expect(await accessibilityViolations(page)).toEqual([]);
  }

  async function createKey(kind: 'secret' | 'publishable', origins?: string): Promise<string> {
    await page.getByLabel('Kind').selectOption(kind);
    if (origins) await page.getByLabel('Origins').fill(origins);
    await page.getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByTestId('new-key').filter({ hasText: kind === 'secret' ? /^ak_/ : /^pk_/ });
    await shown.waitFor();
    return (await shown.textContent())!.trim();
  }

  it('signs in with the admin token, refusing a wrong one in words', async () => {
    const refused = await browser.page([/401/]);
    await refused.goto(consoleUrl);
    await refused.getByLabel('Admin token').fill('adm_wrong');
    await refused.getByRole('button', { name: 'Sign in' }).click();
    await refused.getByRole('alert').filter({ hasText: 'The admin token was not accepted' }).waitFor();
    await refused.close();
    await page.goto(consoleUrl);
    await check('sign-in');
    await page.getByLabel('Admin token').fill(service.adminToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Projects' }).waitFor();
    expect(await page.evaluate('[sessionStorage.length, localStorage.length]')).toEqual([1, 0]);
    await check('projects');
  });

  it('creates a project, then a secret and a publishable key, each shown once', async () => {
    await page.getByRole('button', { name: 'New project' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Browser shop');
    await page.getByLabel('Instructions').fill('Answer briefly.');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('heading', { name: 'Browser shop' }).waitFor();
    projectUrl = page.url().replace(/\/keys$/, '');
    secretKey = await createKey('secret');
    expect(secretKey).toMatch(/^ak_/);
    const publishable = await createKey('publishable', 'https://shop.example');
    expect(publishable).toMatch(/^pk_/);
    await page.getByText('https://shop.example').first().waitFor();
    await check('keys');
    await page.getByLabel('Name', { exact: true }).fill('Browser store');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: 'Browser store' }).waitFor();
  });

  it('shows an upsert sent through the API until it completes, then its collection and items', async () => {
    const res = await fetch(`${service.url}/v1/upserts`, {
      method: 'POST',
      headers: { 'Api-Key': secretKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        collection: { slug: 'faq', metadata: { topic: { type: 'string' } } },
        items: [
          { id: 'hours', data: { title: 'Opening hours', text: 'The shop is open from 9am to 5pm, Monday to Friday.' }, metadata: { topic: 'visits' } },
          { id: 'returns', data: { title: 'Returns', text: 'Items can be returned within 30 days with the receipt.' }, metadata: { topic: 'orders' } },
        ],
      }),
    });
    expect(res.status).toBe(201);
    await page.goto(`${projectUrl}/upserts`);
    // The page refreshes itself while the upsert is unfinished: no reload here.
    await page.getByTestId('upsert-row').filter({ hasText: 'completed' }).waitFor({ timeout: 30_000 });
    await check('upserts');
    await page.getByRole('link', { name: 'Collections' }).click();
    await page.getByTestId('items-count').filter({ hasText: '2' }).waitFor();
    await page.getByText('topic (string)').waitFor();
    await check('collections');
    await page.getByRole('link', { name: 'Items' }).click();
    await page.getByRole('button', { name: 'returns' }).click();
    await page.locator('.detail').getByText('within 30 days').first().waitFor();
    await page.getByTestId('chunks').getByText('within 30 days').waitFor();
    await page.getByLabel('Item id').fill('hours');
    await page.getByRole('button', { name: 'returns' }).waitFor({ state: 'detached' });
    await check('items');
    // Words in the items: what the search finds, and the item it points to.
    await page.getByLabel('Item id').fill('');
    await page.getByLabel('Text', { exact: true }).fill('receipt');
    await page.getByTestId('hits').getByRole('button', { name: 'returns' }).click();
    expect(await page.getByLabel('Item id').inputValue()).toBe('returns');
    await page.locator('.detail').getByText('within 30 days').first().waitFor();
    await page.getByLabel('Text', { exact: true }).fill('bicycles on mars');
    await page.getByText('Nothing found for these words.').waitFor();
  });

  it('streams an answer in the playground with its cited sources highlighted, takes feedback and a follow-up', async () => {
    await page.getByRole('link', { name: 'Playground' }).click();
    await page.getByLabel('Question').fill('When is the shop open?');
    await page.getByRole('button', { name: 'Ask' }).click();
    const answer = page.getByTestId('answer').first();
    await answer.getByText('9am').waitFor();
    await page.locator('[data-testid=source].cited mark').first().waitFor();
    await page.getByRole('button', { name: 'Helpful', exact: true }).click();
    await page.locator('button[aria-pressed=true]').waitFor();
    await page.getByLabel('Follow-up').fill('And how long do I have to return an item?');
    await page.getByRole('button', { name: 'Ask' }).click();
    await page.getByTestId('answer').nth(1).getByText('30 days').waitFor();
    await check('playground');
  });

  it('lists the chat, counts the feedback in the chart and the questions the data did not answer', async () => {
    await page.getByRole('button', { name: 'New chat' }).click();
    await page.getByLabel('Question').fill('Do you sell bicycles on Mars?');
    await page.getByRole('button', { name: 'Ask' }).click();
    await page.getByRole('button', { name: 'Helpful', exact: true }).waitFor();
    await page.getByRole('link', { name: 'Conversations' }).click();
    const feedback = page.getByTestId('feedback-chart').locator('svg');
    expect(await feedback.getAttribute('aria-label')).toContain('positive: 1');
    const perDay = await page.getByTestId('questions-chart').locator('svg').getAttribute('aria-label');
    expect(perDay).toContain(`${new Date().toISOString().slice(5, 10)}: 3`);
    await page.getByTestId('unanswered').getByText('bicycles on Mars').waitFor();
    await page.getByRole('button', { name: 'When is the shop open?' }).click();
    await page.getByText('feedback: positive').waitFor();
    await check('conversations');
  });

  it('met no console error, page error or failed request on the way', () => {
    expect(browser.problems).toEqual([]);
  });
});
