// The served page in headless Chromium: inputs change, the core recomputes, the DOM shows it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { mkdirSync } from 'node:fs';
import { openBrowser, newPage, root } from './helpers.mjs';

let session;
before(async () => { session = await openBrowser(); });
after(async () => { await session?.close(); });

// The page formats with the browser's locale; Chromium headless here is en-US.
const totalText = (page) => page.locator('[data-testid="total-gb"]').textContent();

test('changing the context updates the total immediately', async () => {
  const { page, problems } = await newPage(session);
  await page.goto(`${session.base}/?model=llama-3.1-8b&weights=bf16&context=8192`);
  await page.locator('#summary').waitFor({ state: 'visible' });
  // 16,060,522,496 weights + 1,073,741,824 KV + 839,373,824 activations + 536,870,912 overhead
  // = 18,510,509,056 B = 18.51 GB.
  assert.equal(await totalText(page), '18.51 GB');
  await page.locator('#context').fill('16384');
  // KV doubles (+1,073,741,824), activations double less logits (+838,860,800): 20,423,111,680 B = 20.42 GB.
  await page.waitForFunction(() => document.querySelector('[data-testid="total-gb"]').textContent === '20.42 GB');
  assert.match(page.url(), /context=16384/);
  assert.deepEqual(problems, []);
});

test('choosing INT4 weights shrinks the weights line to a quarter of bf16', async () => {
  const { page, problems } = await newPage(session);
  await page.goto(`${session.base}/?model=llama-2-7b&context=4096`);
  await page.locator('#summary').waitFor({ state: 'visible' });
  await page.locator('label[for="weights-int4"]').click();
  // 6,738,415,616 params × 0.5 B = 3,369,207,808 B = 3.37 GB.
  await page.waitForFunction(() => document.querySelector('tr[data-line="weights"] td').textContent === '3.37');
  assert.match(page.url(), /weights=int4/);
  assert.deepEqual(problems, []);
});

test('a bad input names the field and never shows NaN', async () => {
  const { page, problems } = await newPage(session);
  await page.goto(`${session.base}/?model=llama-3.1-8b`);
  await page.locator('#summary').waitFor({ state: 'visible' });
  await page.locator('#batch').fill('0');
  await page.locator('#input-error').waitFor({ state: 'visible' });
  assert.match(await page.locator('#input-error').textContent(), /^Batch size: must be between 1 and 1000000/);
  const body = await page.locator('body').textContent();
  assert.doesNotMatch(body, /NaN|Infinity|undefined/);
  assert.deepEqual(problems, []);
});

test('a hostile model name from the URL renders as text', async () => {
  const { page, problems } = await newPage(session);
  let dialog = false;
  page.on('dialog', async (d) => { dialog = true; await d.dismiss(); });
  await page.goto(`${session.base}/?model=${encodeURIComponent('<img src=x onerror=alert(1)>')}`);
  await page.locator('#input-error').waitFor({ state: 'visible' });
  assert.match(await page.locator('#input-error').textContent(), /unknown model "<img src=x onerror=alert\(1\)>"/);
  assert.equal(await page.locator('img').count(), 0);
  assert.equal(dialog, false);
  assert.deepEqual(problems.filter((p) => !p.includes('foreign')), []);
});

test('the GPU list marks fits, tight and does not fit', async () => {
  const { page } = await newPage(session);
  await page.goto(`${session.base}/?model=llama-3.1-8b&context=8192`);
  await page.locator('#summary').waitFor({ state: 'visible' });
  // 18.51 GB total: an RTX 4090 (24 GiB = 25.77 GB) fits, an 8 GiB RTX 4060 does not.
  assert.equal(await page.locator('tr[data-gpu="rtx-4090"] .badge').textContent(), 'fits');
  assert.match(await page.locator('tr[data-gpu="rtx-4060"] .badge').textContent(), /^does not fit/);
});

test('screenshots at 1280 and 375 px', async () => {
  const dir = process.env.UPDATE_SCREENSHOTS ? path.join(root, 'docs') : path.join(root, 'test-results');
  mkdirSync(dir, { recursive: true });
  for (const width of [1280, 375]) {
    const { page } = await newPage(session, { width, height: 900 });
    await page.goto(`${session.base}/?model=llama-3.1-8b&context=8192`);
    await page.locator('#summary').waitFor({ state: 'visible' });
    await page.screenshot({ path: path.join(dir, `screenshot-${width}.png`), fullPage: width === 375 ? false : false });
  }
});
