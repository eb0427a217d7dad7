// Issue 31, vision: a vision model's images per request and their size under "Also on this GPU", shown only for a
// model with a vision tower; the link keeps them; the vision encoder has its own line (EN/DE, and at 375 px).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser, newPage } from './helpers.mjs';

let session;
before(async () => { session = await openBrowser(); });
after(async () => { await session?.close(); });

async function open(query, viewport) {
  const { page, problems } = await newPage(session, viewport);
  await page.goto(`${session.base}/${query}`);
  await page.locator('#summary').waitFor({ state: 'visible' });
  return { page, problems };
}

test('images and their size for a vision model, kept by the link, with the vision encoder\'s line (EN/DE)', async () => {
  // A text model: the section is folded and holds no image controls.
  const text = await open('?model=llama-3.1-8b');
  assert.equal(await text.page.locator('#also-on-gpu').getAttribute('open'), null);
  assert.equal(await text.page.locator('#also-vision').isHidden(), true);
  assert.equal(await text.page.locator('tr[data-line="vision_encoder"]').count(), 0);
  // Gemma 3 27B under transformers: the tower's bf16 weights on their own line; two images of 1024x768.
  const { page, problems } = await open('?model=gemma-3-27b&engine=transformers');
  await page.locator('tr[data-line="vision_encoder"]').waitFor();
  assert.match(await page.locator('tr[data-line="vision_encoder"] th').textContent(), /Vision encoder/);
  await page.locator('#also-on-gpu > summary').click();
  await page.locator('#also-vision').waitFor({ state: 'visible' });
  const before = await page.locator('tr[data-line="vision_encoder"] td.num').first().textContent();
  await page.locator('#images').fill('2');
  await page.locator('#imgsize').fill('1024x768');
  await page.waitForFunction((was) =>
    document.querySelector('tr[data-line="vision_encoder"] td.num').textContent !== was, before);
  const link = new URL(page.url()).searchParams;
  assert.deepEqual([link.get('images'), link.get('imgsize')], ['2', '1024x768']);
  assert.match(await page.locator('#notes').textContent(), /2 images of 256 tokens each/);
  // The shared link opens the section by itself, with the same values.
  const again = await open(new URL(page.url()).search);
  assert.notEqual(await again.page.locator('#also-on-gpu').getAttribute('open'), null);
  assert.equal(await again.page.locator('#images').inputValue(), '2');
  assert.equal(await again.page.locator('#imgsize').inputValue(), '1024x768');
  await again.page.locator('#lang').selectOption('de');
  await again.page.waitForFunction(() => document.querySelector('#also-on-gpu > summary').textContent === 'Außerdem auf dieser GPU');
  assert.equal(await again.page.locator('label[for="images"] span').first().textContent(), 'Bilder je Anfrage');
  assert.match(await again.page.locator('tr[data-line="vision_encoder"] th').textContent(), /Vision-Encoder/);
  assert.deepEqual(problems, []);
  assert.deepEqual(again.problems, []);
  assert.deepEqual(text.problems, []);
});

test('at 375 px the image controls fit the screen', async () => {
  const { page, problems } = await open('?model=gemma-3-27b&images=1', { width: 375, height: 800 });
  await page.locator('#also-vision').waitFor({ state: 'visible' });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `the page is ${overflow} px wider than the screen`);
  for (const id of ['images', 'imgsize']) {
    const box = await page.locator(`#${id}`).boundingBox();
    assert.ok(box && box.x >= 0 && box.x + box.width <= 375, `#${id} at ${JSON.stringify(box)}`);
  }
  assert.deepEqual(problems, []);
});
