// A card the list does not have, by its numbers ("Other card…"), or a listed card with other memory; the
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

test('"Other card…" takes FP8 and FP4 compute, the maker and shared memory, kept by the link; German names it (375 px)', async () => {
  const { page, problems } = await newPage(session, { width: 375, height: 800 });
  await page.goto(`${session.base}/?model=llama-3.1-8b&context=8192&gpu=custom&gpumem=128GB&gpubw=256`);
  await page.locator('#summary').waitFor({ state: 'visible' });
  for (const id of ['gpufp8', 'gpufp4', 'gpuvendor', 'gpuunified']) assert.equal(await page.locator(`#${id}`).isVisible(), true, id);
  assert.equal(await page.locator('label[for="gpuunified"]').textContent(), 'Shares the computer\'s memory');
  await page.locator('#gpufp8').fill('330');
  await page.locator('#gpufp4').fill('660');
  await page.locator('#gpuvendor').selectOption('amd');
  await page.locator('#gpuunified').selectOption('yes');
  // An AMD machine whose GPU shares its 128 GB: Linux's default GTT limit, half of 128 GiB, as for a Strix Halo.
  await headlineIs(page, /Custom card, 128 GB, 256 GB\/s.*\(of its [\d.]+ GB, the GPU may use [\d.]+ GB by Linux's default\)$/);
  const link = new URL(page.url()).searchParams;
  assert.deepEqual(['gpufp8', 'gpufp4', 'gpuvendor', 'gpuunified'].map((k) => link.get(k)), ['330', '660', 'amd', 'yes']);
  // Nothing wider than the phone.
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), true);
  // The shared link opens the same card, its fields filled, and in German the card's name is German everywhere.
  const { page: again, problems: againProblems } = await newPage(session, { width: 375, height: 800 });
  await again.goto(`${session.base}/${new URL(page.url()).search}`);
  await again.locator('#summary').waitFor({ state: 'visible' });
  assert.equal(await again.locator('#gpuvendor').inputValue(), 'amd');
  assert.equal(await again.locator('#gpuunified').inputValue(), 'yes');
  assert.equal(await again.locator('#gpufp8').inputValue(), '330');
  await again.locator('#lang').selectOption('de');
  await again.waitForFunction(() => /Karte nach Ihren Werten, 128 GB, 256 GB\/s/.test(document.querySelector('[data-testid="headline"]').textContent));
  assert.equal(await again.locator('label[for="gpuvendor"]').textContent(), 'Hersteller');
  assert.equal(await again.locator('label[for="gpuunified"]').textContent(), 'Teilt den Speicher des Computers');
  const texts = await again.evaluate(() => [document.querySelector('[data-testid="headline"]').textContent,
    document.querySelector('#gpus').textContent, document.querySelector('#notes').textContent]);
  for (const text of texts) assert.doesNotMatch(text, /Custom card/);
  assert.match(texts[1], /Karte nach Ihren Werten, 128 GB, 256 GB\/s/);
  // Like a listed card: the maker and the sharing are the listed card's, so their fields go.
  await again.locator('#gpuvendor').selectOption('');
  await again.locator('#gpuunified').selectOption('');
  await again.locator('#gpulike').selectOption('rtx-4090');
  await again.locator('#custom-gpu-own').waitFor({ state: 'hidden' });
  assert.deepEqual(problems, []);
  assert.deepEqual(againProblems, []);
});
