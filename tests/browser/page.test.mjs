// The served page in headless Chromium: inputs change, the core recomputes, the DOM shows it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { mkdirSync, readFileSync } from 'node:fs';
import { openBrowser, newPage, openInWatchingShifts, root } from './helpers.mjs';

let session;
before(async () => { session = await openBrowser(); });
after(async () => { await session?.close(); });

// The page formats with the browser's locale; Chromium headless here is en-US.
const totalText = (page) => page.locator('[data-testid="total-gb"]').textContent();
const kvCell = (page) => page.locator('tr[data-line="kv_cache"] td').first().textContent();

test('changing the context updates the total immediately', async () => {
  const { page, problems } = await newPage(session);
  await page.goto(`${session.base}/?model=llama-3.1-8b&weights=bf16&context=8192`);
  await page.locator('#summary').waitFor({ state: 'visible' });
  // KV: 2 × 8 KV heads × 128 × 2 B × 32 layers = 131,072 B/token × 8192 = 1,073,741,824 B = 1.07 GB.
  assert.equal(await kvCell(page), '1.07');
  const before = await totalText(page);
  await page.locator('#context').fill('16384');
  // Twice the tokens, twice the KV: 2,147,483,648 B = 2.15 GB; the total follows.
  await page.waitForFunction(() => document.querySelector('tr[data-line="kv_cache"] td').textContent === '2.15');
  assert.notEqual(await totalText(page), before);
  assert.match(page.url(), /context=16384/);
  assert.deepEqual(problems, []);
});

test('choosing fp32 weights doubles the bf16 weights line', async () => {
  const { page, problems } = await newPage(session);
  await page.goto(`${session.base}/?model=llama-2-7b&context=4096`);
  await page.locator('#summary').waitFor({ state: 'visible' });
  await page.locator('label[for="weights-fp32"]').click();
  // 6,738,415,616 params × 4 B = 26,953,662,464 B = 26.95 GB (bf16: × 2 B = 13.48 GB).
  await page.waitForFunction(() => document.querySelector('tr[data-line="weights"] td').textContent === '26.95');
  assert.match(page.url(), /weights=fp32/);
  assert.deepEqual(problems, []);
});

test('a bad input names the field and never shows NaN', async () => {
  const { page, problems } = await newPage(session);
  await page.goto(`${session.base}/?model=llama-3.1-8b`);
  await page.locator('#summary').waitFor({ state: 'visible' });
  await page.locator('#batch').fill('0');
  await page.locator('#input-error').waitFor({ state: 'visible' });
  // The field's label, then the core's own sentence (in English the page shows the core's text as it is).
  assert.match(await page.locator('#input-error').textContent(), /^Batch size: expected a whole number from 1 to 1,000,000; got 0$/);
  const body = await page.locator('body').textContent();
  assert.doesNotMatch(body, /NaN|Infinity|undefined/);
  assert.deepEqual(problems, []);
});

// An input the core cannot use: its message stands where the answer stood and under the field, which is outlined
// and focused; no figure of the last answer stays on screen (a greyed result reads as the answer to the new input).
for (const [lang, width] of [['en', 1280], ['de', 375]]) {
  test(`an unusable input hides the results and is named beside the headline and at the field (${lang}, ${width} px)`, async () => {
    const { page, problems } = await newPage(session, { width, height: 800 });
    await page.goto(`${session.base}/?model=llama-3.1-8b&context=8192`);
    await page.locator('#summary').waitFor({ state: 'visible' });
    if (lang === 'de') await page.locator('#lang').selectOption('de');
    const label = lang === 'de' ? 'Kontextlänge' : 'Context length';
    // 400 digits: beyond what a double holds exactly, so it must be refused, never read as 8192 or Infinity.
    // Typed or pasted as a person would: the number field cannot read it and holds '' (validity.badInput).
    await page.locator('#context').selectText();
    await page.keyboard.insertText('9'.repeat(400));
    await page.locator('#result-error').waitFor({ state: 'visible' });
    assert.ok((await page.locator('#result-error').textContent()).startsWith(`${label}: `));
    for (const id of ['summary', 'answer-bar', 'gpu-section', 'charts-section', 'remedies-section', 'ranking-section', 'embed-section']) {
      assert.equal(await page.locator(`#${id}`).isHidden(), true, `#${id} stays hidden`);
    }
    assert.equal(await page.locator('#context').getAttribute('aria-invalid'), 'true');
    // The field's message follows the field itself.
    assert.equal(await page.evaluate(() => document.querySelector('#context').nextElementSibling?.id), 'input-error');
    assert.equal(await page.locator('#context').evaluate((e) => e === document.activeElement), true);
    await page.locator('#context').fill('4096');
    await page.locator('#summary').waitFor({ state: 'visible' });
    assert.equal(await page.locator('#result-error').isHidden(), true);
    assert.equal(await page.locator('#context').getAttribute('aria-invalid'), null);

    // From a link: focus moves to the field the message names, which is on screen.
    await page.goto(`${session.base}/?model=llama-3.1-8b&batch=0`);
    await page.locator('#result-error').waitFor({ state: 'visible' });
    assert.equal(await page.locator('#batch').evaluate((e) => e === document.activeElement), true);
    const box = await page.locator('#input-error').boundingBox();
    assert.ok(box && box.y >= 0 && box.y + box.height <= 800, `the field's message is in view (y ${box?.y})`);
    // Opened with the error, the pickers still show what the core uses for them, not a blank.
    const pickers = () => page.evaluate(() => ['engine', 'kv', 'weights-format'].map((id) => document.getElementById(id).value));
    assert.deepEqual(await pickers(), ['transformers', 'bf16', 'bf16']);
    await page.goto(`${session.base}/?model=no-such-model`);
    await page.locator('#result-error').waitFor({ state: 'visible' });
    assert.deepEqual(await pickers(), ['transformers', 'bf16', 'bf16']);
    assert.equal(await page.locator('#model').inputValue(), 'no-such-model');
    // Other fields keep what they showed (here the core's default context, as the empty field's placeholder)
    // rather than blanking out.
    await page.goto(`${session.base}/?model=llama-3.1-8b`);
    await page.locator('#summary').waitFor({ state: 'visible' });
    const context = await page.locator('#context').getAttribute('placeholder');
    assert.equal(context, '8192');
    await page.locator('#batch').fill('0');
    await page.locator('#result-error').waitFor({ state: 'visible' });
    assert.equal(await page.locator('#context').getAttribute('placeholder'), context);
    assert.deepEqual(problems, []);
  });
}

test('a whole number written as 1e3 in a link is read as 1000', async () => {
  const { page, problems } = await newPage(session);
  await page.goto(`${session.base}/?model=llama-3.1-8b&context=1e3`);
  await page.locator('#summary').waitFor({ state: 'visible' });
  // The field keeps the link's text; the line under it says what it was read as.
  assert.equal(await page.locator('#context').inputValue(), '1e3');
  assert.equal(await page.locator('#context-read').textContent(), '= 1,000 tokens');
  // KV: 131,072 B/token (above) × 1000 tokens = 131,072,000 B = 0.13 GB.
  assert.equal(await kvCell(page), '0.13');
  assert.deepEqual(problems, []);
});

test('a hostile model name from the URL renders as text', async () => {
  const { page, problems } = await newPage(session);
  let dialog = false;
  page.on('dialog', async (d) => { dialog = true; await d.dismiss(); });
  await page.goto(`${session.base}/?model=${encodeURIComponent('<img src=x onerror=alert(1)>')}`);
  await page.locator('#input-error').waitFor({ state: 'visible' });
  assert.match(await page.locator('#input-error').textContent(), /no model in the list is called "<img src=x onerror=alert\(1\)>"/);
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

test('the headline names one GPU with the free memory, or how many are needed', async () => {
  const { page, problems } = await newPage(session);
  // No GPU chosen: the cards people have. ≈ 18.5 GB (below) is over a 16 GiB card and inside the 20 GiB Radeon RX
  // 7900 XT, the smallest consumer card that holds it (21.47 − 18.55 ≈ 2.9 GB free; in GiB 20 − 17.28 ≈ 2.7).
  await page.goto(`${session.base}/?model=llama-3.1-8b&context=8192`);
  await page.locator('#summary').waitFor({ state: 'visible' });
  // The class's memory is the figure its GPU table row shows: 20 GiB = 21.47 GB, "21.5 GB" (one decimal), and in
  // GiB the "20 GiB" printed on the box.
  assert.match(await page.getByTestId('headline').textContent(), /^Fits 21\.5 GB cards such as the AMD Radeon RX 7900 XT, with 2\.\d GB free$/);
  assert.equal(await page.locator('#gpus tr[data-gpu="rx-7900-xt"] td.num').first().textContent(), '21.5 GB');
  assert.equal(await page.locator('#gpus tr[data-gpu="rtx-4090"] td.num').first().textContent(), '25.8 GB');
  {
    const gib = await newPage(session);
    await gib.page.addInitScript(() => localStorage.setItem('vramfit.unit', 'GiB'));
    await gib.page.goto(`${session.base}/?model=llama-3.1-8b&context=8192`);
    await gib.page.locator('#summary').waitFor({ state: 'visible' });
    assert.match(await gib.page.getByTestId('headline').textContent(), /^Fits 20 GiB cards such as the AMD Radeon RX 7900 XT, with 2\.\d GiB free$/);
    assert.equal(await gib.page.locator('#gpus tr[data-gpu="rtx-4090"] td.num').first().textContent(), '24.0 GiB');
    assert.deepEqual(gib.problems, []);
    await gib.page.context().close();
  }
  await page.goto(`${session.base}/?model=llama-3.1-8b&context=8192&gpu=rtx-4090`);
  await page.locator('#summary').waitFor({ state: 'visible' });
  // 16.06 GB of bf16 weights + 1.07 GB KV + activations and overhead ≈ 18.5 GB, well inside 24 GiB = 25.77 GB.
  assert.match(await page.getByTestId('headline').textContent(), /^Fits on one GeForce RTX 4090 with [67]\.\d GB free$/);
  await page.goto(`${session.base}/?model=llama-3.1-70b&context=8192&gpu=h100-sxm`);
  // 70.55 B params × 2 B = 141.1 GB of weights alone: more than one 80 GiB (85.9 GB) card, less than two.
  await page.waitForFunction(() => document.querySelector('[data-testid="headline"]').textContent === 'Needs 2 × NVIDIA H100 SXM');
  assert.deepEqual(problems, []);
});

test('the URL round-trips the whole state and back/forward restore it', async () => {
  const { page, problems } = await newPage(session);
  await page.goto(`${session.base}/`);
  await page.locator('#summary').waitFor({ state: 'visible' });
  await page.locator('#model').fill('Llama 2 7B');
  await page.waitForURL(/model=llama-2-7b/);
  await page.locator('label[for="weights-int8"]').click();
  await page.locator('#batch').fill('4');
  await page.locator('#gpu').selectOption('rtx-3090');
  await page.waitForURL(/gpu=rtx-3090/);
  const url = page.url();
  assert.match(url, /model=llama-2-7b/);
  assert.match(url, /weights=int8/);
  assert.match(url, /batch=4/);
  const total = await totalText(page);
  const fresh = await newPage(session);
  await fresh.page.goto(url);
  await fresh.page.locator('#summary').waitFor({ state: 'visible' });
  assert.equal(await totalText(fresh.page), total);
  assert.equal(await fresh.page.locator('#model').inputValue(), 'Llama 2 7B');
  assert.equal(await fresh.page.locator('#batch').inputValue(), '4');
  assert.equal(await fresh.page.locator('#gpu').inputValue(), 'rtx-3090');
  assert.equal(await fresh.page.locator('#weights-int8').isChecked(), true);
  // Back: before the GPU was chosen (weights and GPU push history entries; typing replaces).
  await page.goBack();
  await page.waitForFunction(() => !location.search.includes('gpu='));
  assert.equal(await page.locator('#gpu').inputValue(), '');
  await page.goForward();
  await page.waitForFunction(() => location.search.includes('gpu=rtx-3090'));
  assert.equal(await page.locator('#gpu').inputValue(), 'rtx-3090');
  assert.deepEqual([...problems, ...fresh.problems], []);
});

test('every breakdown number opens its formula, inputs and source from the core', async () => {
  const { page } = await newPage(session);
  await page.goto(`${session.base}/?model=llama-3.1-8b&context=8192`);
  await page.locator('#summary').waitFor({ state: 'visible' });
  const buttons = page.locator('#breakdown button[data-explain]');
  // One per breakdown line the core reports, plus the total.
  assert.equal(await buttons.count(), await page.locator('#breakdown tr').count());
  assert.ok(await buttons.count() >= 5);
  await page.locator('tr[data-line="weights"] button').click();
  await page.locator('#explain').waitFor({ state: 'visible' });
  // The dialog shows the core's own explanation text for that line…
  const core = await page.evaluate(async () => {
    const { openCalculator } = await import('./src/js/core.js');
    const r = (await openCalculator()).answer({ question: 'estimate', model: 'llama-3.1-8b', context: 8192 });
    return r.explanations.find((e) => e.key === 'weights');
  });
  assert.equal(await page.locator('#explain-formula').textContent(), core.formula.text);
  assert.equal(await page.locator('#explain-source').textContent(), core.source.text);
  // …whose inputs reach the known figure: 8,030,261,248 params × 2 B = 16,060,522,496 B.
  assert.match((await page.locator('#explain-values').textContent()).replace(/\D/g, ''), /16060522496/);
  await page.keyboard.press('Escape');
  await page.locator('#explain').waitFor({ state: 'hidden' });
});

test('the parameter count opens how it was counted, the published figure and the config it came from', async () => {
  const { page, problems } = await newPage(session);
  await page.goto(`${session.base}/?model=llama-3.1-8b&context=8192`);
  await page.locator('#summary').waitFor({ state: 'visible' });
  await page.locator('#model-facts button[data-explain="params"]').click();
  await page.locator('#explain').waitFor({ state: 'visible' });
  // Meta's published count for Llama 3.1 8B: 8,030,261,248.
  assert.equal(await page.locator('#explain-values').textContent(), '8,030,261,248 parameters (published: 8,030,261,248)');
  assert.match(await page.locator('#explain-source').textContent(), /meta-llama\/Llama-3\.1-8B\/blob\/main\/config\.json/);
  assert.equal(await page.locator('#explain-title').textContent(), 'How “Parameter count” is computed');
  await page.keyboard.press('Escape');
  assert.deepEqual(problems, []);
});

test('the GPU table sorts by a column and filters by segment', async () => {
  const { page } = await newPage(session);
  await page.goto(`${session.base}/?model=llama-3.1-8b&context=8192`);
  await page.locator('#summary').waitFor({ state: 'visible' });
  await page.locator('button[data-sort="memory"]').click();
  assert.equal(await page.locator('#gpu-head th[aria-sort="ascending"] button').getAttribute('data-sort'), 'memory');
  const memories = await page.locator('#gpus tr td:nth-child(3)').allTextContents();
  const values = memories.map((m) => Number(m.replace(/[^\d.]/g, '')));
  assert.deepEqual(values, [...values].sort((a, b) => a - b));
  await page.locator('button[data-sort="memory"]').press('Enter'); // keyboard: second press reverses
  assert.equal(await page.locator('#gpu-head th[aria-sort="descending"] button').getAttribute('data-sort'), 'memory');
  await page.locator('#segment').selectOption('apple');
  const segments = new Set(await page.locator('#gpus tr td:nth-child(2)').allTextContents());
  assert.deepEqual([...segments], ['Apple']);
  assert.match(await page.locator('#gpu-count').textContent(), /^28 of 136 GPUs$/);
});

test('copy as Markdown, copy link and CSV carry the figures shown', async () => {
  const { page, problems } = await newPage(session);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: session.base });
  await page.goto(`${session.base}/?model=llama-3.1-8b&context=8192`);
  await page.locator('#summary').waitFor({ state: 'visible' });
  await page.locator('#copy-markdown').click();
  await page.locator('#action-status').filter({ hasText: 'Copied.' }).waitFor();
  const markdown = await page.evaluate(() => navigator.clipboard.readText());
  // 8,030,261,248 params × 2 B = 16,060,522,496 B = 16.06 GB.
  assert.match(markdown, /\| Weights \| 16\.06 \| 8\d\.\d% \|/);
  assert.match(markdown, new RegExp(`\\| \\*\\*Total\\*\\* \\| \\*\\*${(await totalText(page)).replace(' GB', '').replace('.', '\\.')}\\*\\* \\| 100% \\|`));
  await page.locator('#copy-link').click();
  await page.waitForFunction(async () => (await navigator.clipboard.readText()) === location.href);
  const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#download-csv').click()]);
  const csv = readFileSync(await download.path(), 'utf8');
  assert.equal(download.suggestedFilename(), 'vramfit-llama-3.1-8b.csv');
  assert.match(csv, /"breakdown","weights","Weights",16060522496,/);
  assert.match(csv, /"breakdown","total","Total",\d+,1,/);
  assert.match(csv, /"gpu","rtx-4090","GeForce RTX 4090",25769803776,"fits",1,\d+/);
  assert.deepEqual(problems, []);
});

test('German is switchable, remembered, and formats numbers the German way; GiB toggles', async () => {
  const { page, problems } = await newPage(session);
  await page.goto(`${session.base}/?model=llama-3.1-8b&context=8192&gpu=rtx-4090`);
  await page.locator('#summary').waitFor({ state: 'visible' });
  await page.locator('#lang').selectOption('de');
  await page.waitForFunction(() => document.querySelector('tr[data-line="weights"] td').textContent === '16,06');
  assert.match(await page.getByTestId('headline').textContent(), /^Passt auf eine GeForce RTX 4090, \d,\d GB bleiben frei$/);
  assert.equal(await page.locator('html').getAttribute('lang'), 'de');
  await page.reload();
  await page.locator('#summary').waitFor({ state: 'visible' });
  assert.match(await totalText(page), /^\d+,\d\d GB$/);
  await page.locator('label[for="unit-GiB"]').click();
  // 16,060,522,496 B / 2^30 = 14.957 GiB.
  assert.equal(await page.locator('tr[data-line="weights"] td').first().textContent(), '14,96');
  assert.match(await totalText(page), /^\d+,\d\d GiB$/);
  assert.deepEqual(problems, []);
});

test('report lines the page does not know yet still render, by key name', async () => {
  const { page } = await newPage(session);
  await page.goto(`${session.base}/`);
  const lines = await page.evaluate(async () => {
    const { breakdownLines } = await import('./src/js/render/view.js');
    const { translator } = await import('./src/js/i18n/i18n.js');
    const t = translator('en');
    return breakdownLines({ total: 6, new_thing: 1, weights: 5 }).map((l) => `${t(`line.${l.key}`)}:${l.bytes}:${l.colour}`);
  });
  assert.deepEqual(lines, ['Weights:5:seg-weights', 'new_thing:1:seg-extra-0']);
});

test('the mode tabs switch between inference, fine-tune and train, by arrow keys too', async () => {
  const { page, problems } = await newPage(session);
  await page.goto(`${session.base}/?model=llama-3.1-8b`);
  await page.locator('#summary').waitFor({ state: 'visible' });
  await page.locator('#mode-inference').focus();
  await page.keyboard.press('ArrowRight');
  await page.waitForURL(/mode=finetune/);
  assert.equal(await page.locator('#mode-finetune').getAttribute('aria-selected'), 'true');
  await page.locator('tr[data-line="gradients"]').waitFor();
  assert.equal(await page.locator('#context-label').textContent(), 'Sequence length');
  await page.keyboard.press('ArrowRight');
  await page.waitForURL(/mode=train/);
  await page.locator('#finetune-controls').waitFor({ state: 'hidden' });
  assert.equal(await page.locator('#train-controls').isVisible(), true);
  await page.keyboard.press('Home');
  await page.waitForFunction(() => !location.search.includes('mode='));
  await page.locator('tr[data-line="kv_cache"]').waitFor();
  assert.equal(await page.locator('#train-controls').isHidden(), true);
  assert.deepEqual(problems, []);
});

test('charts come from the core per point and download as SVG', async () => {
  const { page, problems } = await newPage(session);
  await page.goto(`${session.base}/?model=llama-3.1-8b&context=8192&gpu=rtx-4090`);
  await page.locator('#chart-context svg').waitFor();
  // One stacked area per breakdown line.
  assert.equal(await page.locator('#chart-context polygon.area').count(), await page.locator('#breakdown tr').count() - 1);
  assert.match(await page.locator('#chart-context .capacity-label').textContent(), /^GeForce RTX 4090: 25\.8 GB$/);
  const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#chart-batch [data-download="svg"]').click()]);
  const svg = readFileSync(await download.path(), 'utf8');
  assert.match(svg, /^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  assert.match(svg, /fill="rgb\(/); // colours resolved for use outside the page
  const [png] = await Promise.all([page.waitForEvent('download'), page.locator('#chart-batch [data-download="png"]').click()]);
  assert.deepEqual([...readFileSync(await png.path()).subarray(1, 4)], [0x50, 0x4e, 0x47]); // "PNG"
  assert.deepEqual(problems, []);
});

test('usable at 360 px: nothing scrolls sideways', async () => {
  const { page, problems } = await newPage(session, { width: 360, height: 800 });
  await page.goto(`${session.base}/?model=llama-3.1-70b&context=32768`);
  await page.locator('#chart-batch svg').waitFor();
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 360));
  // German's long component names ("Optimiererzustände"), the what-would-help cards, and figures of ten digits.
  for (const query of ['?mode=train&gpu=a100-80gb-sxm', '?mode=finetune&ft=qlora&gpu=rtx-4090', '?model=gpt2&context=100000000&batch=1000000']) {
    await page.goto(`${session.base}/${query}`);
    if (query.startsWith('?mode')) await page.locator('#lang').selectOption('de');
    await page.locator('#chart-batch svg').waitFor();
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 360), query);
    if (query.startsWith('?mode')) await page.locator('#lang').selectOption('en');
  }
  assert.deepEqual(problems, []);
});

test('a mode or method the page has no tab for names the field and what is allowed', async () => {
  const { page, problems } = await newPage(session);
  await page.goto(`${session.base}/?mode=banana`);
  await page.locator('#input-error').waitFor({ state: 'visible' });
  assert.equal(await page.locator('#input-error').textContent(), 'Mode: must be one of inference, finetune, train, got "banana"');
  await page.goto(`${session.base}/?mode=finetune&ft=dora`);
  await page.locator('#input-error').waitFor({ state: 'visible' });
  assert.match(await page.locator('#input-error').textContent(), /^Method: must be one of lora, qlora, grpo, got "dora"$/);
  // An alias the core accepts shows as the control's own choice: adam is AdamW.
  await page.goto(`${session.base}/?mode=train&optimizer=adam`);
  await page.locator('#summary').waitFor({ state: 'visible' });
  await page.waitForFunction(() => document.querySelector('#optimizer').value === 'adamw');
  // A value a number field cannot hold is quoted in the message, since the field itself shows nothing.
  await page.goto(`${session.base}/?context=abc`);
  await page.locator('#input-error').waitFor({ state: 'visible' });
  assert.match(await page.locator('#input-error').textContent(), /got "abc"$/);
  assert.deepEqual(problems.filter((p) => !/cannot be parsed, or is out of range/.test(p)), []);
});

test('vLLM on a chosen GPU: the summary is that GPU\'s own run', async () => {
  // vLLM's batch defaults and KV capacity depend on the GPU, so its total on an H100 differs from the run over
  // the whole list; the summary, its notes and what would help all use the H100 run.
  const { page, problems } = await newPage(session);
  await page.goto(`${session.base}/?engine=vllm&model=qwen2.5-72b&gpu=h100-sxm&context=32768&batch=16`);
  await page.locator('#remedies tr').first().waitFor();
  const shown = await page.locator('#total-gb').textContent();
  const expected = await page.evaluate(async () => {
    const { openCalculator } = await import('./src/js/core.js');
    const calc = await openCalculator();
    const request = { model: 'qwen2.5-72b', weights: 'bf16', engine: 'vllm', context: 32768, batch: 16 };
    const onGpu = calc.answer({ ...request, question: 'estimate', gpu: 'h100-sxm' });
    return { total: onGpu.breakdown.total, remedies: calc.answer({ ...request, question: 'remedies', gpu: 'h100-sxm' }).bytes };
  });
  assert.equal(expected.total, expected.remedies);
  assert.equal(shown, `${(expected.total / 1e9).toFixed(2)} GB`);
  assert.doesNotMatch(await page.locator('#notes').textContent(), /Choose a GPU/);
  // The GPU table's row for the chosen GPU is that same run: it agrees with the headline.
  await page.goto(`${session.base}/?engine=vllm&weights=int4&gpu=rtx-4090`);
  await page.locator('#gpus tr[data-gpu="rtx-4090"]').waitFor();
  const headline = await page.locator('#headline').textContent();
  const verdict = await page.locator('#gpus tr[data-gpu="rtx-4090"] .badge').textContent();
  assert.equal(/^Fits on one/.test(headline), verdict === 'fits', `${headline} / ${verdict}`);
  assert.deepEqual(problems, []);
});

// vLLM takes gpu_memory_utilization of the card and fills what its weights and peak leave with KV cache: the
// headline gives that room in tokens and whole sequences (the core's pool, pinned within 2 % of llm-d-benchmark's
// vLLM 0.11 H100 logs in tests/unit/memory/test_vllm.cpp), never "free" memory vLLM has already taken.
test('vLLM on a chosen GPU: the headline gives its KV room and concurrency, in English and German', async () => {
  const { page, problems } = await newPage(session);
  await page.goto(`${session.base}/?engine=vllm&model=llama-3.1-8b&gpu=h100-sxm&context=8192`);
  await page.locator('#summary').waitFor({ state: 'visible' });
  const pool = await page.evaluate(async () => {
    const { openCalculator } = await import('./src/js/core.js');
    const calc = await openCalculator();
    return calc.answer({ question: 'estimate', model: 'llama-3.1-8b', engine: 'vllm', gpu: 'h100-sxm', context: 8192 }).vllm;
  });
  assert.ok(pool.max_concurrency >= 1);
  const en = await page.locator('#headline').textContent();
  assert.equal(en, `Fits on one NVIDIA H100 SXM: vLLM keeps ${pool.kv_capacity_tokens.toLocaleString('en-US')} tokens of KV cache, ` +
    `${pool.max_concurrency} sequences of 8,192 at once`);
  assert.doesNotMatch(en, /free/);
  await page.locator('#lang').selectOption('de');
  await page.waitForFunction(() => document.querySelector('#headline').textContent.startsWith('Passt auf eine'));
  assert.match(await page.locator('#headline').textContent(), new RegExp(`vLLM hält ${pool.kv_capacity_tokens.toLocaleString('de-DE').replace('.', '\\.')} Tokens KV-Cache bereit, ${pool.max_concurrency} Sequenzen zu 8\\.192 gleichzeitig$`));
  assert.deepEqual(problems, []);
});

test('the served page and the single-file build declare a strict CSP', async () => {
  const html = readFileSync(path.join(root, 'dist/index.html'), 'utf8');
  const single = readFileSync(path.join(root, 'dist/vramfit.html'), 'utf8');
  for (const page of [html, single]) {
    const csp = page.match(/http-equiv="Content-Security-Policy" content="([^"]+)"/)[1];
    assert.doesNotMatch(csp, /'unsafe-inline'|'unsafe-eval'|'unsafe-hashes'/);
    // Only the Hub and its file hosts beside the page itself, and only to connect (a lookup asked for by name).
    const wildcards = csp.match(/[^\s;]*\*[^\s;]*/g) ?? [];
    assert.deepEqual(wildcards, ['https://*.huggingface.co', 'https://*.hf.co']);
    assert.match(csp, /connect-src (?:'self' )?https:\/\/huggingface\.co https:\/\/\*\.huggingface\.co https:\/\/hf\.co https:\/\/\*\.hf\.co;/);
    assert.match(csp, /script-src [^;]*'wasm-unsafe-eval'/);
  }
  // Two inline scripts, each allowed by its hash: the language set before painting (lang.js) and the page.
  assert.match(single, /script-src 'sha256-[A-Za-z0-9+/=]{44}' 'sha256-[A-Za-z0-9+/=]{44}' 'wasm-unsafe-eval'/);
  assert.doesNotMatch(html, /\sstyle="|<style|<script>/);
});

test('at 375 px a bar carries the answer while the inputs fill the screen, and steps aside for the results', async () => {
  const { page, problems } = await newPage(session, { width: 375, height: 800 });
  await page.goto(`${session.base}/?model=llama-3.1-8b&context=8192`);
  await page.locator('#summary').waitFor({ state: 'visible' });
  const bar = page.locator('#answer-bar');
  await bar.waitFor({ state: 'visible' });
  assert.equal(await page.locator('#answer-total').textContent(), await page.locator('#total-gb').textContent());
  assert.equal(await page.locator('#answer-headline').textContent(), await page.locator('#headline').textContent());
  // It follows the inputs: a longer context raises the total it shows.
  const before = await page.locator('#answer-total').textContent();
  await page.locator('#context').fill('65536');
  await page.waitForURL(/context=65536/);
  assert.notEqual(await page.locator('#answer-total').textContent(), before);
  assert.equal(await page.locator('#answer-total').textContent(), await page.locator('#total-gb').textContent());
  await bar.click();
  await bar.waitFor({ state: 'hidden' });
  // A bad input hides it rather than leave the last answer standing.
  await page.locator('#context').fill('0');
  await page.locator('#input-error').waitFor({ state: 'visible' });
  await page.evaluate(() => window.scrollTo(0, 0));
  assert.equal(await page.locator('#answer-bar').isHidden(), true);
  await page.setViewportSize({ width: 1280, height: 800 });
  assert.equal(await bar.isVisible(), false);
  assert.deepEqual(problems, []);
});

test('screenshots at 1280 and 375 px', async () => {
  const dir = process.env.UPDATE_SCREENSHOTS ? path.join(root, 'docs') : path.join(root, 'test-results');
  mkdirSync(dir, { recursive: true });
  for (const width of [1280, 375]) {
    const { page } = await newPage(session, { width, height: 900 });
    await page.goto(`${session.base}/?model=llama-3.1-8b&context=8192`);
    await page.locator('#chart-batch svg').waitFor();
    await page.screenshot({ path: path.join(dir, `screenshot-${width}.png`) });
  }
  // What would help, for the seed article's example: 13B in 16 bits on a 24 GB card.
  const { page } = await newPage(session, { width: 1280, height: 900 });
  await page.goto(`${session.base}/?model=llama-2-13b&gpu=rtx-4090&context=4096`);
  await page.locator('#remedies tr').first().waitFor();
  await page.locator('#remedies-section').screenshot({ path: path.join(dir, 'screenshot-remedies.png') });
});

test('the model input finds a preset by its Ollama tag or Hugging Face id', async () => {
  const { page, problems } = await newPage(session);
  await page.goto(`${session.base}/`);
  await page.locator('#summary').waitFor({ state: 'visible' });
  // An Ollama tag stays as typed (it answers as Ollama runs that tag); a Hub id becomes the preset's id.
  await page.locator('#model').fill('qwen3:30b-a3b');
  await page.waitForURL(/model=qwen3(%3A|:)30b-a3b/);
  assert.equal(await page.locator('#engine').inputValue(), 'ollama');
  await page.locator('#model').fill('openai/GPT-OSS-20B');
  await page.waitForURL(/model=gpt-oss-20b/);
  // The type-ahead's labels carry the repo and tags, so the browser offers the preset for them.
  const labels = await page.locator('#model-list option').evaluateAll((os) => os.map((o) => o.label));
  assert.ok(labels.some((l) => l.includes('Qwen/Qwen3-30B-A3B') && l.includes('qwen3:30b-a3b')));
  assert.deepEqual(problems, []);
});

// Cumulative layout shift (the Layout Instability API, shifts without recent input) from navigation until the
// details below the summary are in, for a returning visitor in each language: the budget is 0.02.
for (const lang of ['en', 'de']) {
  test(`nothing on screen moves while the page starts (${lang}, 1280 and 375 px)`, async () => {
    for (const [width, query] of [[1280, '?model=llama-3.1-8b&context=8192'], [375, '?model=llama-3.1-8b&context=8192'],
      [1280, '?model=llama-3.1-8b&gpu=rtx-4090&mode=train&gpus=2&zero=3']]) {
      const { page, problems } = await newPage(session, { width, height: 900 });
      await openInWatchingShifts(page, lang);
      await page.goto(`${session.base}/${query}`);
      await page.locator('#gpu-section').waitFor({ state: 'visible' });
      await page.locator('#charts-section').waitFor({ state: 'visible' });
      await page.waitForTimeout(300);
      const shifted = await page.evaluate(() => window.shifted);
      assert.ok(shifted <= 0.02, `${width} px ${query}: layout shift ${shifted.toFixed(3)}`);
      assert.equal(await page.locator('html').getAttribute('lang'), lang);
      assert.deepEqual(problems, []);
      await page.close();
    }
  });
}

// Every option of every choice fits its select when picked (its text measured in the select's own font), and the
// mode tabs stay on one line: in both languages, at 1280 and 375 px, in each mode.
test('choices and mode tabs are never cut off, in English and German at 1280 and 375 px', async () => {
  for (const lang of ['en', 'de']) {
    for (const width of [1280, 375]) {
      for (const mode of ['inference', 'finetune', 'finetune&ft=grpo', 'train']) {
        const { page, problems } = await newPage(session, { width, height: 900 });
        await page.addInitScript((l) => localStorage.setItem('vramfit.lang', l), lang);
        await page.goto(`${session.base}/?model=llama-3.1-8b&gpu=rtx-4090&mode=${mode}`);
        await page.locator('#summary').waitFor({ state: 'visible' });
        const cut = await page.evaluate(() => {
          const ctx = document.createElement('canvas').getContext('2d');
          // The GPU and all-formats lists hold catalogue names of any length; they span the whole panel.
          const selects = [...document.querySelectorAll('#inputs select')].filter((s) => s.offsetParent && s.id !== 'gpu' && s.id !== 'weights-format');
          return selects.flatMap((s) => {
            const style = getComputedStyle(s);
            ctx.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
            const room = s.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 20;  // 20 px: the arrow
            return [...s.options].map((o) => o.textContent).filter((text) => ctx.measureText(text).width > room).map((text) => `${s.id}: ${text}`);
          });
        });
        assert.deepEqual(cut, [], `${lang} ${width} px ${mode}`);
        const tabs = await page.locator('#mode-tabs').evaluate((t) => ({ scroll: t.scrollWidth, client: t.clientWidth, rows: new Set([...t.children].map((c) => c.offsetTop)).size }));
        assert.ok(tabs.scroll <= tabs.client && tabs.rows === 1, `${lang} ${width} px: tabs ${JSON.stringify(tabs)}`);
        assert.deepEqual(problems, []);
        await page.close();
      }
    }
  }
});
