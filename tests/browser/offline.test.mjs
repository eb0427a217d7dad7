// Offline: after one visit the service worker serves the site with the network gone; the single-file
// build works from file:// with nothing but itself.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { openBrowser, newPage, root } from './helpers.mjs';

let session;
before(async () => { session = await openBrowser(); });
after(async () => { await session?.close(); });

test('after the first visit the page computes with the network offline', async () => {
  const { page, problems } = await newPage(session);
  await page.goto(`${session.base}/?model=llama-3.1-8b&context=8192`);
  await page.locator('#summary').waitFor({ state: 'visible' });
  // Wait until the worker controls the page and has cached the shell.
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
    if (!navigator.serviceWorker.controller) {
      await new Promise((resolve) => navigator.serviceWorker.addEventListener('controllerchange', resolve, { once: true }));
    }
    // The cache is named after the site's content (scripts/bundle.mjs); every file of the site is in it.
    const names = (await caches.keys()).filter((k) => k.startsWith('vramfit-'));
    if (names.length !== 1) throw new Error(`expected one vramfit cache, found ${names}`);
    const cache = await caches.open(names[0]);
    for (const file of ['vramfit.wasm', 'vramfit.mjs', 'js/app.js', 'css/app.css', 'embed.html']) {
      if (!(await cache.match(file))) throw new Error(`${file} not cached`);
    }
  });
  await page.context().setOffline(true);
  await page.goto(`${session.base}/?model=llama-2-7b&weights=fp16&context=4096`);
  await page.locator('#summary').waitFor({ state: 'visible' });
  // 6,738,415,616 params × 2 B = 13,476,831,232 B = 13.48 GB.
  assert.equal(await page.locator('tr[data-line="weights"] td').first().textContent(), '13.48');
  await page.locator('#context').fill('8192');
  await page.waitForURL(/context=8192/);
  assert.deepEqual(problems.filter((p) => !/ERR_INTERNET_DISCONNECTED|Failed to load resource/.test(p)), []);
  await page.context().setOffline(false);
});

test('the single-file build works from file:// with no other file and no network', async () => {
  const context = await session.browser.newContext({ offline: true });
  const page = await context.newPage();
  const problems = [];
  const requests = [];
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
  page.on('request', (r) => { if (!r.url().startsWith('data:') && !r.url().startsWith('blob:')) requests.push(r.url()); });
  const file = pathToFileURL(path.join(root, 'dist/vramfit.html')).href;
  await page.goto(`${file}?model=llama-3.1-8b&context=8192`);
  await page.locator('#summary').waitFor({ state: 'visible' });
  // 8,030,261,248 params × 2 B = 16.06 GB of weights, as on the served page.
  assert.equal(await page.locator('tr[data-line="weights"] td').first().textContent(), '16.06');
  const total = await page.locator('[data-testid="total-gb"]').textContent();
  await page.locator('#batch').fill('2');
  await page.waitForFunction((t) => document.querySelector('[data-testid="total-gb"]').textContent !== t, total);
  assert.deepEqual(requests.map((u) => u.split('?')[0]), [file]);
  assert.deepEqual(problems, []);
  await context.close();
});
