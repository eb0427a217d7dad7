// axe-core (WCAG 2.x A/AA rules) on the page, the embed view and the element example: 0 violations,
// in light and dark colour schemes; plus the page driven by keyboard alone.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { openBrowser } from './helpers.mjs';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
let session;
before(async () => { session = await openBrowser(); });
after(async () => { await session?.close(); });

async function violations(url, colorScheme, ready, width = 1280) {
  // bypassCSP lets the test inject axe; the page itself still runs under its CSP in every other test.
  const context = await session.browser.newContext({ bypassCSP: true, colorScheme, viewport: { width, height: 900 } });
  const page = await context.newPage();
  await page.goto(url);
  await ready(page);
  await page.addScriptTag({ content: axeSource });
  const result = await page.evaluate(() => window.axe.run(document, { runOnly: ['wcag2a', 'wcag2aa', 'wcag21aa', 'best-practice'] }));
  await context.close();
  return result.violations.map((v) => `${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
}

for (const colorScheme of ['light', 'dark']) {
  test(`axe finds 0 violations on the page (${colorScheme})`, async () => {
    // With the charts and the what-would-help table drawn (both follow the first answer).
    const found = await violations(`${session.base}/?model=llama-3.1-8b&context=8192`, colorScheme,
      async (page) => { await page.locator('#chart-batch svg').waitFor(); await page.locator('#remedies tr').first().waitFor(); });
    assert.deepEqual(found, []);
  });
}

test('axe finds 0 violations at 360 px, where the tables scroll in their own boxes', async () => {
  const drawn = async (page) => { await page.locator('#ranking tr').first().waitFor(); await page.locator('#remedies tr').first().waitFor(); };
  assert.deepEqual(await violations(`${session.base}/?model=llama-3.1-8b&context=8192`, 'light', drawn, 360), []);
});

test('axe finds 0 violations in fine-tune mode with a GPU chosen (training controls, speed and cost)', async () => {
  assert.deepEqual(await violations(`${session.base}/?model=llama-2-7b&mode=finetune&gpu=rtx-4090`, 'dark',
    async (page) => { await page.locator('#chart-batch svg').waitFor(); await page.locator('#remedies tr').first().waitFor(); }), []);
  assert.deepEqual(await violations(`${session.base}/?model=llama-3.1-8b&gpu=rtx-4090`, 'light',
    (page) => page.locator('#ranking-section').waitFor()), []);
});

test('axe finds 0 violations on embed.html and the element example', async () => {
  assert.deepEqual(await violations(`${session.base}/embed.html?model=llama-3.1-8b`, 'light',
    (page) => page.locator('[data-testid="headline"]').waitFor()), []);
  assert.deepEqual(await violations(`${session.base}/examples/element.html`, 'dark',
    (page) => page.waitForFunction(() => document.querySelector('#large').report?.ok)), []);
});

test('the scenario can be changed with the keyboard alone', async () => {
  const context = await session.browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${session.base}/?model=llama-2-7b&context=4096`);
  await page.locator('#summary').waitFor({ state: 'visible' });
  await page.locator('#model').focus();
  await page.keyboard.press('Tab'); // → the checked weights radio (bf16)
  assert.equal(await page.evaluate(() => document.activeElement.id), 'weights-bf16');
  await page.keyboard.press('ArrowRight'); // bf16 → fp8
  await page.waitForURL(/weights=fp8/);
  // Past the inference controls (all weight formats, engine, KV cache precision) to the context field.
  for (let i = 0; i < 4; i++) await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'context');
  await page.keyboard.press('Control+A');
  await page.keyboard.type('2048');
  await page.waitForURL(/context=2048/);
  // A breakdown number opens its explanation with Enter and closes with Escape.
  await page.locator('tr[data-line="kv_cache"] button').focus();
  await page.keyboard.press('Enter');
  await page.locator('#explain').waitFor({ state: 'visible' });
  await page.keyboard.press('Escape');
  await page.locator('#explain').waitFor({ state: 'hidden' });
  await context.close();
});
