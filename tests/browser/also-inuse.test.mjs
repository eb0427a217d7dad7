// Memory other programs already hold on the GPU, in the folded "Also on this GPU" section; the link
// carries it (inuse) and opens the section; the breakdown shows its line; English and German; 375 px wide.
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
const headlineIs = (page, re) => page.waitForFunction((source) =>
  new RegExp(source).test(document.querySelector('[data-testid="headline"]').textContent), re.source);

test('Memory already in use: folded until used, counted on the card, kept by the link (EN/DE)', async () => {
  // Llama 3.1 8B in BF16 at 8k: 16.06 GB of weights and 1.07 GB of KV cache (tests/cli_tests.cmake json_breakdown)
  // fit an RTX 4090's 24 GiB (25.77 GB); with 8 GiB (8.59 GB) in use, 25.77 − 8.59 = 17.18 GB is left, less than the
  // weights, cache and the CUDA context's 0.54 GB: no longer on one card.
  const { page, problems } = await open('?model=llama-3.1-8b&context=8192&gpu=rtx-4090');
  await headlineIs(page, /^Fits on one GeForce RTX 4090/);
  const section = page.locator('[data-testid="also-on-gpu"]');
  assert.equal(await section.evaluate((d) => d.open), false);
  assert.equal(await page.locator('#also-on-gpu > summary').textContent(), 'Also on this GPU');
  assert.equal(await page.locator('[data-line="in_use"]').count(), 0);  // no line while nothing is in use
  await page.locator('#also-on-gpu > summary').click();
  await page.locator('#inuse').fill('8GB');
  await headlineIs(page, /^(Needs 2 × GeForce RTX 4090|Does not fit on one GeForce RTX 4090)/);
  assert.equal(new URL(page.url()).searchParams.get('inuse'), '8GB');
  const line = page.locator('[data-line="in_use"]');
  await line.waitFor({ state: 'visible' });
  assert.equal(await line.locator('th').textContent(), 'Already in use (other programs)');
  assert.equal(await line.locator('td').first().textContent(), '8.59');  // GB, as the column's head says
  // The shared link opens the section with the figure in it.
  const again = await open(new URL(page.url()).search);
  assert.equal(await again.page.locator('[data-testid="also-on-gpu"]').evaluate((d) => d.open), true);
  assert.equal(await again.page.locator('#inuse').inputValue(), '8GB');
  await again.page.locator('#lang').selectOption('de');
  await again.page.waitForFunction(() => document.querySelector('#also-on-gpu > summary').textContent === 'Außerdem auf dieser GPU');
  assert.equal(await again.page.locator('label[for="inuse"] [data-i18n="inputs.inuse"]').textContent(), 'Bereits belegter Speicher');
  await again.page.waitForFunction(() => /Bereits belegt \(andere Programme\)/.test(document.querySelector('[data-line="in_use"]')?.textContent ?? ''));
  // Cleared, the figure leaves the link and the line goes.
  await again.page.locator('#inuse').fill('');
  await again.page.waitForFunction(() => !new URL(location.href).searchParams.has('inuse'));
  await again.page.locator('[data-line="in_use"]').waitFor({ state: 'detached' });
  assert.deepEqual(problems, []);
  assert.deepEqual(again.problems, []);
});

test('vLLM beside 15 GB in use on an RTX A6000: would not start, and the note names the share that starts', async () => {
  // 47.4 GiB driver total (data/gpus.json); 47.4 − 0.5 (CUDA context) − 15 = 31.9 GiB free < ceil(0.92 × 47.4) =
  // 43.6 GiB (vLLM PR #19312's start check); 31.9 / 47.4 = 0.673 → 0.67.
  const { page, problems } = await open('?model=llama-3.1-8b&engine=vllm&gpu=rtx-a6000&context=8192&inuse=15GB', { width: 375, height: 800 });
  assert.equal(await page.locator('[data-testid="also-on-gpu"]').evaluate((d) => d.open), true);
  await page.waitForFunction(() => /vLLM would not start: .*gpu_memory_utilization 0\.67 starts/.test(document.querySelector('#notes').textContent));
  assert.match(await page.locator('#command-text').textContent(), /--gpu-memory-utilization 0\.67/);
  // Nothing wider than the phone's screen.
  const wider = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(wider <= 0, `the page is ${wider}px wider than 375px`);
  // In German the headline and the note say the same.
  await page.locator('#lang').selectOption('de');
  await page.waitForFunction(() => /^vLLM würde auf einer NVIDIA RTX A6000 nicht starten: .* mit 0,67 startet es$/
    .test(document.querySelector('[data-testid="headline"]').textContent));
  await page.waitForFunction(() => /Mit gpu_memory_utilization 0,67 startet es, mit kleinerem KV-Pool/.test(document.querySelector('#notes').textContent));
  // The remedy is that share, and applying it starts vLLM (its KV pool smaller).
  const apply = page.locator('#remedies tr[data-remedy="gpu-util-in-use"] button.apply');
  await apply.waitFor();
  await apply.click();
  await page.waitForFunction(() => new URL(location.href).searchParams.get('gpuutil') === '0.67');
  await page.waitForFunction(() => /^Passt auf/.test(document.querySelector('[data-testid="headline"]').textContent));
  assert.deepEqual(problems, []);
});
