// Issue 34: a card the list does not have, by its numbers ("Other card…"), or a listed card with other memory; the
// link keeps it. And the field for the GPU's share of the memory on every machine whose GPU shares it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser, newPage } from './helpers.mjs';

let session;
before(async () => { session = await openBrowser(); });
after(async () => { await session?.close(); });

async function open(query) {
  const { page, problems } = await newPage(session);
  await page.goto(`${session.base}/${query}`);
  await page.locator('#summary').waitFor({ state: 'visible' });
  return { page, problems };
}
const headlineIs = (page, re) => page.waitForFunction((source) =>
  new RegExp(source).test(document.querySelector('[data-testid="headline"]').textContent), re.source);

test('"Other card…": a card by its memory and bandwidth, then like an RTX 4090, kept by the link (EN/DE)', async () => {
  // Llama 3.1 8B in BF16 at 8k: 16.06 GB of weights and 1.07 GB of KV cache (tests/cli_tests.cmake json_breakdown),
  // far below 48 GB.
  const { page, problems } = await open('?model=llama-3.1-8b&context=8192');
  assert.equal(await page.locator('#custom-gpu').isHidden(), true);
  assert.equal(await page.locator('#gpu option').last().textContent(), 'Other card…');
  await page.locator('#gpu').selectOption('custom');
  await page.locator('#custom-gpu').waitFor({ state: 'visible' });
  // No memory yet: the field that needs it is named.
  await page.locator('#input-error').waitFor({ state: 'visible' });
  assert.equal(await page.locator('#gpumem').getAttribute('aria-invalid'), 'true');
  await page.locator('#gpumem').fill('48GB');
  await page.locator('#gpubw').fill('1008');
  await headlineIs(page, /^Fits on one Custom card, 48 GB, 1008 GB\/s with [\d.]+ GB free$/);
  const link = new URL(page.url()).searchParams;
  assert.deepEqual([link.get('gpu'), link.get('gpumem'), link.get('gpubw')], ['custom', '48GB', '1008']);
  assert.match(await page.locator('#notes').textContent(), /the figures are your own/);
  // Like a listed card: its figures with the memory given.
  await page.locator('#gpulike').selectOption('rtx-4090');
  await headlineIs(page, /^Fits on one GeForce RTX 4090 \(48 GB\) with [\d.]+ GB free$/);
  assert.equal(new URL(page.url()).searchParams.get('gpu'), 'rtx-4090');
  assert.equal(await page.locator('#gpu').inputValue(), 'custom');
  // The shared link opens the same card.
  const again = await open(new URL(page.url()).search);
  await headlineIs(again.page, /^Fits on one GeForce RTX 4090 \(48 GB\) with/);
  assert.equal(await again.page.locator('#gpumem').inputValue(), '48GB');
  assert.equal(await again.page.locator('#gpulike').inputValue(), 'rtx-4090');
  await again.page.locator('#lang').selectOption('de');
  await again.page.waitForFunction(() => document.querySelector('#gpu > option:last-child').textContent === 'Andere Karte…');
  assert.equal(await again.page.locator('label[for="gpulike"]').textContent(), 'Ähnlich wie');
  // A card picked from the list is that card again: the figures leave the link.
  await again.page.locator('#gpu').selectOption('rtx-4090');
  await again.page.locator('#custom-gpu').waitFor({ state: 'hidden' });
  assert.equal(new URL(again.page.url()).searchParams.get('gpumem'), null);
  assert.deepEqual(problems, []);
  assert.deepEqual(again.problems, []);
});

test('"Other card…" stays open while it is filled in: a listed card chosen as "like" before any memory', async () => {
  const { page, problems } = await open('?model=llama-3.1-8b&context=8192');
  await page.locator('#gpu').selectOption('custom');
  await page.locator('#custom-gpu').waitFor({ state: 'visible' });
  await page.locator('#gpulike').selectOption('rtx-4090');
  // The answer is the listed card's until a memory is given; the panel and the like choice stay.
  await headlineIs(page, /GeForce RTX 4090/);
  assert.equal(await page.locator('#custom-gpu').isVisible(), true);
  assert.equal(await page.locator('#gpulike').inputValue(), 'rtx-4090');
  await page.locator('#gpumem').fill('48GB');
  await headlineIs(page, /^Fits on one GeForce RTX 4090 \(48 GB\) with [\d.]+ GB free$/);
  assert.deepEqual(problems, []);
});

test('the share of the memory is asked of every machine whose GPU shares it, labelled as that machine sets it', async () => {
  // Strix Halo 128 GB: Linux's GTT default, half of 128 GiB = 65,536 MiB.
  const { page, problems } = await open('?model=llama-3.1-8b&gpu=ryzen-ai-max-395-128gb');
  await page.locator('#wired-controls').waitFor({ state: 'visible' });
  assert.equal(await page.locator('#wired').getAttribute('placeholder'), '65536');
  assert.equal(await page.locator('#wired-unit').textContent(), '(MB, GTT limit or BIOS carve-out)');
  // DGX Spark: the 121.69 GiB CUDA reports (data/gpus.json driver_visible_gib), 124,610 MiB.
  await page.locator('#gpu').selectOption('dgx-spark');
  await page.waitForFunction(() => document.querySelector('#wired').placeholder === '124610');
  assert.equal(await page.locator('#wired-unit').textContent(), '(MB, memory free)');
  await page.locator('#gpu').selectOption('rtx-4090');
  await page.locator('#wired-controls').waitFor({ state: 'hidden' });
  assert.deepEqual(problems, []);
});
