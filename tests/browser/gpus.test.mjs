// "GPUs I have": a count beside the GPU in every mode, a headline that answers for those cards, each GPU's part
// when there are several, and the engine's command for them. Figures pinned here are derived by hand.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser, newPage } from './helpers.mjs';

let session;
before(async () => { session = await openBrowser(); });
after(async () => { await session?.close(); });

const headline = (page) => page.getByTestId('headline').textContent();
const SCENARIO = '?model=llama-3.1-70b&weights=q4_k_m&engine=llamacpp&context=4096&gpu=rtx-3090';
const OWNED = {
  en: /^Fits on your 2 × GeForce RTX 3090 with \d+\.\d GB free each$/,
  de: /^Passt auf Ihre 2 × GeForce RTX 3090, auf jeder bleiben \d+,\d GB frei$/,
};

for (const lang of ['en', 'de']) {
  for (const width of [1280, 375]) {
    test(`two RTX 3090s for a 70B model at 4 bits: the headline answers for them, each GPU shown (${lang}, ${width} px)`, async () => {
      const { page, problems } = await newPage(session, { width, height: 900 });
      await page.goto(`${session.base}/${SCENARIO}`);
      await page.locator('#summary').waitFor({ state: 'visible' });
      if (lang === 'de') await page.locator('#lang').selectOption('de');
      // One card: 40 GB of weights do not fit in 24 GB; the per-GPU table stays away.
      assert.doesNotMatch(await headline(page), lang === 'de' ? /Ihre 2/ : /your 2/);
      assert.equal(await page.locator('#devices').isHidden(), true);
      const count = page.locator('#gpus-count');
      await count.scrollIntoViewIfNeeded();
      assert.equal(await count.isVisible(), true, 'the count stands beside the GPU in inference');
      await count.fill('2');
      await page.waitForFunction((re) => new RegExp(re).test(document.querySelector('[data-testid="headline"]').textContent),
        OWNED[lang].source);
      assert.match(await headline(page), OWNED[lang]);
      assert.match(page.url(), /gpus=2/);
      // llama.cpp's split of 80 layers over two equal cards: slots 0..80 (the output is slot 80), cut at 0.5, so
      // layers 0-40 on the first (40/81 < 0.5 < 41/81), 41-79 and the output on the second. Each layer's f16 KV cache
      // at 4096 tokens: 2 × 4096 × (8 KV heads × 128) × 2 B = 16,777,216 B; × 41 = 0.69 GB, × 39 = 0.65 GB.
      const rows = page.locator('#devices-rows tr');
      await page.locator('#devices').waitFor({ state: 'visible' });
      assert.equal(await rows.count(), 2);
      const cells = async (i) => rows.nth(i).locator('td').allTextContents();
      const [first, second] = [await cells(0), await cells(1)];
      assert.equal(first[0], '0–40');
      assert.equal(second[0], lang === 'de' ? '41–79 + Ausgabe' : '41–79 + output');
      assert.equal(first[2], lang === 'de' ? '0,69' : '0.69');
      assert.equal(second[2], lang === 'de' ? '0,65' : '0.65');
      // The free memory the headline gives is the fuller GPU's: the smaller of the two Free cells.
      const number = (text) => Number(text.replace(',', '.'));
      const least = Math.min(number(first[5]), number(second[5]));
      const said = Number((await headline(page)).match(/(\d+[.,]\d) GB/)[1].replace(',', '.'));
      assert.ok(Math.abs(said - least) <= 0.06, `headline ${said} GB, fuller GPU ${least} GB free`);
      assert.match(await page.getByTestId('command').textContent(), /^llama-server -m \S+ -c 4096 --tensor-split 1,1  # llama\.cpp b\d+$/);
      if (width === 375) {
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 0, `the page is ${overflow} px wider than the screen`);
      }
      assert.deepEqual(problems, []);
    });
  }
}

test('under vLLM the GPUs you have serve tensor parallel: the headline says your cards and the command the size', async () => {
  // A 70B model in FP8 on two H100s: 35 GB of weights on each, the rest KV room.
  const { page, problems } = await newPage(session);
  await page.goto(`${session.base}/?model=llama-3.1-70b&engine=vllm&weights=fp8&context=8192&gpu=h100-sxm&gpus=2`);
  await page.locator('#summary').waitFor({ state: 'visible' });
  assert.match(await headline(page), /^Fits on your 2 × NVIDIA H100 SXM: vLLM keeps [\d,]+ tokens of KV cache, [\d,]+ sequences of [\d,]+ at once$/);
  assert.match(await page.getByTestId('command').textContent(), /--tensor-parallel-size 2/);
  // vLLM's ranks are alike: one row for each of them.
  assert.equal(await page.locator('#devices-rows tr').count(), 1);
  assert.match(await page.locator('#devices-rows th').textContent(), /^Each of 2$/);
  assert.deepEqual(problems, []);
});

for (const lang of ['en', 'de']) {
  for (const width of [1280, 375]) {
    test(`a second, different card under llama.cpp: the layers split by each card's memory, in the URL (${lang}, ${width} px)`, async () => {
      const { page, problems } = await newPage(session, { width, height: 900 });
      await page.goto(`${session.base}/${SCENARIO}`);
      await page.locator('#summary').waitFor({ state: 'visible' });
      if (lang === 'de') await page.locator('#lang').selectOption('de');
      const second = page.locator('#gpu2');
      await second.scrollIntoViewIfNeeded();
      assert.equal(await second.isVisible(), true, 'llama.cpp shows the choice of a different card');
      await second.selectOption('rtx-4060-ti-16gb');
      await page.waitForFunction(() => document.querySelectorAll('#devices-rows tr').length === 2);
      assert.match(page.url(), /gpu2=rtx-4060-ti-16gb/);
      // Free memory at start as llama.cpp splits by it: CUDA's total less the CUDA context (512 MiB) and cuBLAS
      // workspace (32 MiB): RTX 3090 24,248 − 544 = 23,704 MiB; RTX 4060 Ti 16GB 15.57 GiB = 15,943.68 MiB (its CUDA
      // total under Linux, data/gpus.json), − 544 = 15,399 MiB whole. 23,704 / 39,103 = 0.6062 of the 81 slots (80
      // layers + output): il / 81 < 0.6062 for il <= 49, so layers 0-49 on the 3090, 50-79 and the output on the
      // 4060 Ti. KV per layer at 4096 tokens in f16: 2 × 4096 × 8 × 128 × 2 B = 16,777,216 B; × 50 = 0.84 GB,
      // × 30 = 0.50 GB.
      const rows = page.locator('#devices-rows tr');
      const [first, other] = [await rows.nth(0).locator('td').allTextContents(), await rows.nth(1).locator('td').allTextContents()];
      assert.equal(first[0], '0–49');
      assert.equal(other[0], lang === 'de' ? '50–79 + Ausgabe' : '50–79 + output');
      assert.equal(first[2], lang === 'de' ? '0,84' : '0.84');
      assert.equal(other[2], lang === 'de' ? '0,50' : '0.50');
      assert.match(await page.getByTestId('command').textContent(), /--tensor-split 23704,15399  # llama\.cpp b\d+$/);
      // Each card's free memory is its own: the 3090's 24 GiB = 25.77 GB less its 27.28 GB part = −1.51 GB; the
      // 4060 Ti's 16 GiB = 17.18 GB less 17.61 GB = −0.43 GB (the parts as the estimate gives them: 50 layers' weights
      // and KV cache on the 3090, 30 and the output on the 4060 Ti). The fuller one speaks in the headline.
      assert.equal(first[5], lang === 'de' ? '-1,51' : '-1.51');
      assert.equal(other[5], lang === 'de' ? '-0,43' : '-0.43');
      assert.equal(await headline(page), lang === 'de'
        ? 'Passt nicht auf Ihre GeForce RTX 3090 + GeForce RTX 4060 Ti 16GB: auf der vollsten fehlen 1,5 GB'
        : 'Does not fit on your GeForce RTX 3090 + GeForce RTX 4060 Ti 16GB: 1.5 GB short on the fullest one');
      // What would help is not worked out for unlike cards: said so, and no empty table.
      await page.waitForFunction((re) => new RegExp(re).test(document.querySelector('#remedies-section').innerText),
        lang === 'de' ? 'verschiedene Karten zusammen' : 'different cards together');
      assert.equal(await page.locator('table:has(#remedies)').isHidden(), true);
      // Two of the second card: three devices, the list in device order.
      await page.locator('#gpus2-count').fill('2');
      await page.waitForFunction(() => document.querySelectorAll('#devices-rows tr').length === 3);
      assert.match(page.url(), /gpus2=2/);
      assert.match(await page.getByTestId('command').textContent(), /--tensor-split 23704,15399,15399  # llama\.cpp b\d+$/);
      // vLLM splits every layer across alike cards: the list is refused on the second card's choice, no old figures.
      await page.locator('#engine').selectOption('vllm');
      await page.locator('#result-error').waitFor({ state: 'visible' });
      assert.equal(await second.getAttribute('aria-invalid'), 'true');
      assert.equal(await page.locator('#summary').isHidden(), true);
      assert.equal(await second.isVisible(), true, 'a chosen second card stays in view under any engine, to clear it');
      await second.selectOption('');
      await page.locator('#summary').waitFor({ state: 'visible' });
      assert.doesNotMatch(page.url(), /gpu2=/);
      if (width === 375) {
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 0, `the page is ${overflow} px wider than the screen`);
      }
      assert.deepEqual(problems, []);
    });
  }
}

test('a different card without a first one is an error on that choice, not a silent single card', async () => {
  const { page, problems } = await newPage(session);
  await page.goto(`${session.base}/?model=llama-3.1-8b&engine=llamacpp&gpu2=rtx-4090`);
  await page.locator('#result-error').waitFor({ state: 'visible' });
  assert.match(await page.locator('#result-error').textContent(), /^Different GPU: choose your first GPU above it first$/);
  assert.equal(await page.locator('#gpu2').getAttribute('aria-invalid'), 'true');
  assert.deepEqual(problems, []);
});
