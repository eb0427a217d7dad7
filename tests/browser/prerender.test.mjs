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

test('a shared link or GiB never shows the written answer, only "loading" until its own', async () => {
  const cases = [
    ['a shared link', '/?model=qwen3-8b', null],
    ['GiB remembered', '/', ['vramfit.unit', 'GiB']],
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

// The first moment the answer is on screen in the page's language: the headline visible, the page no longer hidden
// while its texts turn German (lang.js), its text and time.
function watchFirstAnswer() {
  const check = () => {
    const headline = document.getElementById('headline');
    if (headline?.textContent.trim() && !document.documentElement.classList.contains('translating')
        && headline.checkVisibility({ visibilityProperty: true })) {
      window.firstAnswer = { text: headline.textContent, at: performance.now() };
      return;
    }
    requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
}

test('a German reader sees the written answer in German before the .wasm loads, never the English one', async () => {
  for (const [how, contextOptions, remembered] of [['remembered', {}, 'de'], ['the browser\'s language', { locale: 'de-DE' }, null]]) {
    const context = await session.browser.newContext(contextOptions);
    const page = await context.newPage();
    if (remembered) await page.addInitScript((lang) => localStorage.setItem('vramfit.lang', lang), remembered);
    await page.addInitScript(watchFirstAnswer);
    // The .wasm waits until the written answer has been read: what is on screen then is the page's HTML.
    let release;
    const gate = new Promise((resolve) => { release = resolve; });
    await page.route('**/vramfit.wasm', async (route) => { await gate; await route.continue(); });
    await page.goto(`${session.base}/`);
    await page.waitForFunction(() => window.firstAnswer);
    const first = await page.evaluate(() => window.firstAnswer.text);
    // The plain URL's model (Llama 3.1 8B bf16, ≈ 18.5 GB) in the smallest consumer card that holds it, 20 GiB.
    assert.match(first, /^Passt auf Karten mit 21,5 GB wie die AMD Radeon RX 7900 XT, 2,\d GB bleiben frei$/, how);
    assert.ok(await page.locator('#summary[data-prerendered]').isVisible(), `${how}: the written answer`);
    const written = await page.locator('#summary').innerText();
    release();
    await page.waitForFunction(() => performance.getEntriesByName('vramfit:first-result').length > 0);
    assert.equal(await page.locator('#summary').innerText(), written, `${how}: the page computes what was written`);
    assert.equal(await page.locator('[data-prerendered], #prerendered-de').count(), 0);
    await context.close();
  }
});

// Machines are noisy: medians of three, alternating, and a generous factor.
test('a German reader\'s first answer comes as soon as an English reader\'s (plain URL and a shared link)', async () => {
  const times = { plain: { en: [], de: [] }, link: { en: [], de: [] } };
  for (let round = 0; round < 3; round++) {
    for (const lang of ['en', 'de']) {
      for (const [kind, url] of [['plain', '/'], ['link', '/?model=qwen3-8b']]) {
        const { page, problems } = await newPage(session);
        await page.addInitScript((l) => localStorage.setItem('vramfit.lang', l), lang);
        await page.addInitScript(watchFirstAnswer);
        await page.goto(`${session.base}${url}`);
        await page.waitForFunction(() => window.firstAnswer && performance.getEntriesByName('vramfit:first-result').length > 0);
        assert.equal(await page.evaluate(() => document.documentElement.lang), lang);
        times[kind][lang].push(await page.evaluate(() => window.firstAnswer.at));
        assert.deepEqual(problems, []);
        await page.context().close();
      }
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[1];
  for (const kind of ['plain', 'link']) {
    const en = median(times[kind].en), de = median(times[kind].de);
    assert.ok(de <= 1.5 * en + 150, `${kind}: German ${de.toFixed(0)} ms, English ${en.toFixed(0)} ms`);
  }
});
