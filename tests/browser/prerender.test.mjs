// The plain URL's answer is written into dist/index.html (scripts/prerender.mjs), so it is in the first paint.
// Here: it is the answer the page itself computes, it shows before any script has run, nothing moves when the
// page renders its own over it, and it never shows where the page is about to answer something else.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser, newPage, openInWatchingShifts } from './helpers.mjs';

let session;
before(async () => { session = await openBrowser(); });
after(async () => { await session?.close(); });

// The page as the HTML alone shows it: the module scripts (and so the .wasm) never load.
async function withoutScripts(page) {
  await page.route('**/js/*.js', (route) => route.abort());
}
const summaryShown = (page) => page.locator('#summary').isVisible();

test('the plain URL paints its answer before any script runs, and it is the one the page computes', async () => {
  const { page } = await newPage(session);
  await withoutScripts(page);
  await page.goto(`${session.base}/`);
  assert.ok(await summaryShown(page), 'no answer in the HTML');
  const written = await page.locator('#summary').innerText();
  assert.match(await page.locator('#headline').textContent(), /^Fits .* free$/);

  const live = await newPage(session);
  await live.page.goto(`${session.base}/`);
  await live.page.waitForFunction(() => performance.getEntriesByName('vramfit:first-result').length > 0);
  assert.equal(await live.page.locator('#summary').innerText(), written);
  assert.equal(await live.page.locator('[data-prerendered]').count(), 0, 'the page answers for itself from here on');
  // The bar waits for the widths the page sets (the CSP drops style attributes): visible once it has them.
  assert.equal(await live.page.locator('#bar').evaluate((n) => getComputedStyle(n).visibility), 'visible');
});

test('nothing moves when the page renders its own answer over the written one (1280 and 375 px)', async () => {
  for (const width of [1280, 375]) {
    const { page, problems } = await newPage(session, { width, height: 900 });
    await openInWatchingShifts(page, 'en');
    await page.goto(`${session.base}/`);
    await page.locator('#charts-section').waitFor({ state: 'visible' });
    await page.waitForTimeout(300);
    const shifted = await page.evaluate(() => window.shifted);
    assert.ok(shifted <= 0.02, `${width} px: layout shift ${shifted.toFixed(3)}`);
    assert.deepEqual(problems, []);
  }
});

test('a shared link, German or GiB never shows the written answer, only "loading" until its own', async () => {
  const cases = [
    ['a shared link', '/?model=qwen3-8b', null],
    ['GiB remembered', '/', ['vramfit.unit', 'GiB']],
    ['German remembered', '/', ['vramfit.lang', 'de']],
  ];
  for (const [what, url, stored] of cases) {
    const { page } = await newPage(session);
    if (stored) await page.addInitScript(([k, v]) => localStorage.setItem(k, v), stored);
    await withoutScripts(page);
    await page.goto(`${session.base}${url}`);
    assert.equal(await summaryShown(page), false, `${what}: the plain URL's answer is on screen`);
    assert.equal(await page.locator('#answer-bar').evaluate((n) => getComputedStyle(n).display), 'none', what);
    assert.equal(await page.locator('#status').evaluate((n) => getComputedStyle(n).display), 'block', what);
  }
});

test('the plain URL fetches the .wasm after its first paint; a shared link fetches it at once', async () => {
  const { page, problems } = await newPage(session);
  await page.goto(`${session.base}/`);
  await page.waitForFunction(() => performance.getEntriesByName('vramfit:first-result').length > 0);
  const [fcp, wasm] = await page.evaluate(() => [performance.getEntriesByName('first-contentful-paint')[0].startTime,
    performance.getEntriesByType('resource').find((e) => e.name.endsWith('/vramfit.wasm'))?.startTime]);
  // The paint's time is when the frame reached the screen; the page waits for the browser to report it.
  assert.ok(wasm !== undefined && wasm >= fcp, `.wasm requested at ${wasm} ms, first paint at ${fcp} ms`);

  // lang.js starts its fetch and compile in <head>, before anything is painted.
  await page.goto(`${session.base}/?model=qwen3-8b`);
  await page.waitForFunction(() => performance.getEntriesByName('vramfit:first-result').length > 0);
  const [sharedFcp, sharedWasm, requests] = await page.evaluate(() => [
    performance.getEntriesByName('first-contentful-paint')[0].startTime,
    performance.getEntriesByType('resource').find((e) => e.name.endsWith('/vramfit.wasm'))?.startTime,
    performance.getEntriesByType('resource').filter((e) => e.name.endsWith('/vramfit.wasm')).length]);
  assert.ok(sharedWasm !== undefined && sharedWasm < sharedFcp, `.wasm requested at ${sharedWasm} ms, first paint at ${sharedFcp} ms`);
  assert.equal(requests, 1, 'the .wasm fetched once');
  assert.deepEqual(problems, []);
});

test('when the .wasm cannot load, the written answer goes and the failure is said', async () => {
  // The plain URL fetches it from js/core.js, a shared link from lang.js: both reach the page's error.
  for (const [query, failure] of [['', (route) => route.abort()], ['?model=qwen3-8b', (route) => route.fulfill({ status: 404, body: 'gone' })]]) {
    const { page } = await newPage(session);
    await page.route('**/vramfit.wasm', failure);
    await page.goto(`${session.base}/${query}`);
    await page.locator('#status').waitFor({ state: 'visible' });
    await page.waitForFunction(() => document.documentElement.classList.contains('ready'));
    assert.equal(await summaryShown(page), false, `${query || 'plain URL'}: an answer beside the failure`);
    assert.match(await page.locator('#status').textContent(), query ? /HTTP 404/ : /\S/);
    assert.equal(await page.locator('[data-prerendered]').count(), 0);
  }
});

test('a browser set to German with nothing remembered never shows the English written answer', async () => {
  const context = await session.browser.newContext({ locale: 'de-DE' });
  const page = await context.newPage();
  await page.route('**/js/*.js', (route) => route.abort());
  await page.goto(`${session.base}/`);
  assert.equal(await page.evaluate(() => document.documentElement.classList.contains('other-answer')), true);
  assert.equal(await page.locator('#summary').evaluate((n) => getComputedStyle(n).display), 'none');
  await context.close();
});
