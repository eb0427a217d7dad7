// Issue 31, part 4: other models kept loaded on the same GPU, inside the folded "Also on this GPU" section; the link
// carries them (also=id@context,…) and opens the section; the breakdown shows a line per model; English and German;
// 1280 and 375 px wide.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { openBrowser, newPage, root } from './helpers.mjs';

let session;
before(async () => { session = await openBrowser(); });
after(async () => { await session?.close(); });

const shots = process.env.SCREENSHOTS ?? path.join(root, 'build', 'screenshots');

async function open(query, viewport) {
  const { page, problems } = await newPage(session, viewport);
  await page.goto(`${session.base}/${query}`);
  await page.locator('#summary').waitFor({ state: 'visible' });
  return { page, problems };
}

test('Other models: added in the section, a line each in the breakdown, kept by the link (EN/DE)', async () => {
  const { page, problems } = await open('?model=qwen3-8b&engine=llamacpp&context=8192&gpu=rtx-4090');
  const section = page.locator('[data-testid="also-on-gpu"]');
  assert.equal(await section.evaluate((d) => d.open), false);
  await page.locator('#also-on-gpu > summary').click();
  assert.equal(await page.locator('[data-i18n="inputs.alsomodels"]').textContent(), 'Other models loaded first');
  await page.locator('[data-testid="also-add"]').click();
  await page.locator('[data-testid="also-model"]').first().selectOption('qwen3-0.6b');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('also') === 'qwen3-0.6b');
  // llama-server's default context (common.h n_ctx 4096) for a model given without one.
  const line = page.locator('[data-line="other_model:qwen3-0.6b@4096"]');
  await line.waitFor({ state: 'visible' });
  assert.equal(await line.locator('th').textContent(), 'Other model: qwen3-0.6b, 4096 tokens');
  // A context of its own, typed: the link and the line follow.
  await page.locator('[data-testid="also-context"]').first().fill('8k');
  await page.locator('[data-testid="also-context"]').first().press('Tab');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('also') === 'qwen3-0.6b@8k');
  await page.locator('[data-line="other_model:qwen3-0.6b@8192"]').waitFor({ state: 'visible' });
  // Two llama-server lines, the other model's first.
  await page.waitForFunction(() => /^llama-server -m Qwen3-0\.6B[^\n]*-c 8192[^\n]*\n\s*llama-server -m Qwen3-8B/
    .test(document.querySelector('#command-text').textContent));
  mkdirSync(shots, { recursive: true });
  await section.screenshot({ path: path.join(shots, 'also-models-1280.png') });
  // The shared link opens the section with the row in it; in German the labels and the line follow.
  const again = await open(new URL(page.url()).search, { width: 375, height: 800 });
  assert.equal(await again.page.locator('[data-testid="also-on-gpu"]').evaluate((d) => d.open), true);
  assert.equal(await again.page.locator('[data-testid="also-model"]').inputValue(), 'qwen3-0.6b');
  assert.equal(await again.page.locator('[data-testid="also-context"]').inputValue(), '8k');
  const wider = await again.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(wider <= 0, `the page is ${wider}px wider than 375px`);
  await again.page.locator('[data-testid="also-on-gpu"]').screenshot({ path: path.join(shots, 'also-models-375.png') });
  await again.page.locator('#lang').selectOption('de');
  await again.page.waitForFunction(() => document.querySelector('[data-i18n="inputs.alsomodels"]').textContent === 'Weitere Modelle, zuerst geladen');
  await again.page.waitForFunction(() => /Weiteres Modell: qwen3-0\.6b, 8192 Tokens/
    .test(document.querySelector('[data-line="other_model:qwen3-0.6b@8192"]')?.textContent ?? ''));
  // The row drawn in English speaks German too, and a row added in German is German from the start.
  const rows = again.page.locator('.also-row');
  assert.equal(await rows.first().locator('[data-testid="also-context"]').getAttribute('placeholder'), 'Standard');
  assert.equal(await rows.first().locator('[data-testid="also-model"]').getAttribute('aria-label'), 'Weiteres Modell');
  await again.page.locator('[data-testid="also-add"]').click();
  assert.equal(await rows.count(), 2);
  const added = rows.nth(1);
  assert.equal(await added.locator('[data-testid="also-model"]').inputValue(), '');
  assert.equal(await added.locator('[data-testid="also-model"] option').first().textContent(), 'Modell wählen');
  assert.equal(await added.locator('[data-testid="also-model"]').getAttribute('aria-label'), 'Weiteres Modell');
  assert.equal(await added.locator('[data-testid="also-context"]').getAttribute('placeholder'), 'Standard');
  assert.equal(await added.locator('[data-testid="also-context"]').getAttribute('aria-label'), 'Sein Kontext (Tokens)');
  assert.equal(await added.locator('[data-testid="also-remove"]').getAttribute('aria-label'), 'Dieses Modell entfernen');
  // A row with no model yet stays out of the link, and stays through an answer and a change of language.
  assert.equal(new URL(again.page.url()).searchParams.get('also'), 'qwen3-0.6b@8k');
  await added.locator('[data-testid="also-context"]').fill('2048');
  await added.locator('[data-testid="also-context"]').press('Tab');
  await again.page.locator('#lang').selectOption('en');
  await again.page.waitForFunction(() => document.querySelector('.also-row:last-child input')?.placeholder === 'default');
  assert.equal(await rows.count(), 2);
  assert.equal(await added.locator('[data-testid="also-context"]').inputValue(), '2048');
  assert.equal(await added.locator('[data-testid="also-model"] option').first().textContent(), 'Choose a model');
  assert.equal(new URL(again.page.url()).searchParams.get('also'), 'qwen3-0.6b@8k');
  await again.page.locator('#lang').selectOption('de');
  await again.page.waitForFunction(() => document.querySelector('.also-row:last-child input')?.placeholder === 'Standard');
  await again.page.locator('[data-testid="also-on-gpu"]').screenshot({ path: path.join(shots, 'also-models-375-de.png') });
  // Chosen, its model joins the link with the context typed before.
  await added.locator('[data-testid="also-model"]').selectOption('qwen3-0.6b');
  await again.page.waitForFunction(() => new URL(location.href).searchParams.get('also') === 'qwen3-0.6b@8k,qwen3-0.6b@2048');
  // Removed, the model leaves the link and its line goes.
  await added.locator('[data-testid="also-remove"]').click();
  await again.page.waitForFunction(() => new URL(location.href).searchParams.get('also') === 'qwen3-0.6b@8k');
  await rows.first().locator('[data-testid="also-remove"]').click();
  await again.page.waitForFunction(() => !new URL(location.href).searchParams.has('also'));
  await again.page.locator('[data-line="other_model:qwen3-0.6b@8192"]').waitFor({ state: 'detached' });
  assert.equal(await rows.count(), 0);
  assert.equal(await again.page.evaluate(() => document.activeElement?.dataset.testid), 'also-add');
  assert.deepEqual(problems, []);
  assert.deepEqual(again.problems, []);
});

test('Other models: a bad context is refused naming the field, in English', async () => {
  const { page, problems } = await newPage(session);
  await page.goto(`${session.base}/?model=qwen3-8b&gpu=rtx-4090&also=qwen3-0.6b@lots`);
  await page.locator('#result-error').waitFor({ state: 'visible' });
  assert.equal(await page.locator('[data-testid="also-on-gpu"]').evaluate((d) => d.open), true);
  await page.waitForFunction(() => /^Other models loaded first: "qwen3-0\.6b@lots": the context after @/
    .test(document.querySelector('#result-error')?.textContent ?? ''));
  assert.deepEqual(problems, []);
});

test('Other models: a file named in a typed link is asked for again, not called an unknown model (EN/DE)', async () => {
  // A link never carries a file (the page leaves it out): one typed by hand names a file this browser does not have.
  const query = '?model=qwen3-8b&engine=llamacpp&gpu=rtx-4090&also=draft-q8.gguf%404096';
  const { page, problems } = await newPage(session);
  await page.goto(`${session.base}/${query}`);
  await page.locator('#result-error').waitFor({ state: 'visible' });
  await page.waitForFunction(() => /^Other models loaded first: The other model draft-q8\.gguf is a file: pick it again under Other models loaded first/
    .test(document.querySelector('#result-error')?.textContent ?? ''));
  assert.doesNotMatch(await page.locator('#result-error').textContent(), /unknown|not a preset/i);
  const german = await newPage(session);
  await german.page.addInitScript(() => localStorage.setItem('vramfit.lang', 'de'));
  await german.page.goto(`${session.base}/${query}`);
  await german.page.waitForFunction(() => /Das weitere Modell draft-q8\.gguf ist eine Datei: Wählen Sie sie unter „Weitere Modelle, zuerst geladen“ erneut aus/
    .test(document.querySelector('#result-error')?.textContent ?? ''));
  assert.deepEqual(problems, []);
  assert.deepEqual(german.problems, []);
});

test('Other models: a model\'s own config.json, picked here, weighs what its preset weighs and stays out of the link (EN/DE)', async () => {
  const VLLM = '?model=qwen3-8b&engine=vllm&gpu=h100-sxm&context=8192';
  const lineOf = (page, key) => page.locator(`tr[data-line="${key}"] td`).first().textContent();
  const preset = await open(`${VLLM}&also=qwen3-0.6b%404096`);
  await preset.page.locator('tr[data-line="other_model:qwen3-0.6b@4096"]').waitFor();
  const presetLine = await lineOf(preset.page, 'other_model:qwen3-0.6b@4096');

  // A preset row from the link, then a row of files picked here: the link keeps the preset's row alone.
  const { page, problems } = await open(`${VLLM}&also=qwen3-0.6b%402048`);
  await page.locator('#also-on-gpu > summary').waitFor();
  assert.equal(await page.locator('[data-testid="also-on-gpu"]').evaluate((d) => d.open), true);
  // Qwen3-0.6B's own config.json (tests/hub/fixtures): the preset's config, its BF16 tensors as the config implies.
  await page.locator('[data-testid="also-file"]').setInputFiles(path.join(root, 'tests/hub/fixtures/vramfit-test--qwen3-0.6b-draft/config.json'));
  const row = page.locator('.also-row.also-file');
  await row.waitFor();
  assert.equal(await row.locator('[data-testid="also-file-name"]').textContent(), 'config.json');
  assert.match(await row.locator('[data-testid="also-file-status"]').textContent(), /^config\.json was read in this browser .*nothing was sent, and the link leaves it out/);
  await row.locator('[data-testid="also-context"]').fill('4096');
  await row.locator('[data-testid="also-context"]').press('Tab');
  const key = 'other_model:config.json@4096';
  await page.locator(`tr[data-line="${key}"]`).waitFor();
  // The same config.json as the preset's, the same context: vLLM starts it with the same share of the GPU.
  assert.equal(await lineOf(page, key), presetLine);
  await page.locator('tr[data-line="other_model:qwen3-0.6b@2048"]').waitFor();
  // Neither the link nor the embed code names the file; both still carry the preset's row (the embed code shown).
  await page.waitForFunction(() => new URL(location.href).searchParams.get('also') === 'qwen3-0.6b@2048');
  await page.locator('#embed-section').waitFor({ state: 'visible' });
  await page.waitForFunction(() => /also=qwen3-0\.6b%402048/.test(document.querySelector('#embed-code').value));
  assert.doesNotMatch(await page.locator('#embed-code').inputValue(), /config\.json/);
  // In German the row says the same.
  await page.locator('#lang').selectOption('de');
  await page.waitForFunction(() => /^config\.json wurde in diesem Browser gelesen .*der Link lässt es aus/
    .test(document.querySelector('.also-file [data-testid="also-file-status"]')?.textContent ?? ''));
  assert.equal(await page.locator('label[for="also-file"]').textContent(), 'Oder ein Modell über seine Dateien hinzufügen: eine .gguf, oder seine config.json mit seinen .safetensors');
  // Removed, its line goes and the preset's row stays.
  await row.locator('[data-testid="also-remove"]').click();
  await page.locator(`tr[data-line="${key}"]`).waitFor({ state: 'detached' });
  assert.equal(new URL(page.url()).searchParams.get('also'), 'qwen3-0.6b@2048');
  assert.deepEqual(problems, []);
  assert.deepEqual(preset.problems, []);
});

test('Other models: files the page cannot use are refused under the picker, in the language shown', async () => {
  const { page, problems } = await open('?model=qwen3-8b&engine=llamacpp&context=8192&gpu=rtx-4090');
  await page.locator('#also-on-gpu > summary').click();
  await page.locator('[data-testid="also-file"]').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('x') });
  await page.waitForFunction(() => document.querySelector('#also-file-status').textContent === 'notes.txt is not a config.json, .gguf or .safetensors file');
  assert.equal(await page.locator('.also-row').count(), 0);
  // A language change redraws it from the page's state.
  await page.locator('#lang').selectOption('de');
  await page.waitForFunction(() => document.querySelector('#also-file-status').textContent === 'notes.txt ist keine config.json, .gguf- oder .safetensors-Datei');
  // Files that are read replace it.
  await page.locator('[data-testid="also-file"]').setInputFiles(path.join(root, 'tests/hub/fixtures/vramfit-test--qwen3-0.6b-draft/config.json'));
  await page.locator('.also-row.also-file').waitFor();
  assert.equal(await page.locator('#also-file-status').textContent(), '');
  assert.deepEqual(problems, []);
});

// The page's own module, reached as Embind builds it: each function the module exports is set on its module object
// once (emscripten's embind exposePublicSymbol, `Module[name] = fn` for a name it does not hold yet). A setter on
// Object.prototype for one of those names sees that object first and hands it to the test; the function is then kept
// on the object itself, as embind expects of it.
function catchModule() {
  Object.defineProperty(Object.prototype, 'forget_read', {
    configurable: true,
    set(fn) {
      Object.defineProperty(this, 'forget_read', { value: fn, writable: true, configurable: true, enumerable: true });
      globalThis.vramfitModuleForTest = this;
    },
  });
}

test('Other models: a removed row\'s read is let go by the module, so a request naming its key is refused', async () => {
  const { page, problems } = await newPage(session);
  await page.addInitScript(catchModule);
  await page.goto(`${session.base}/?model=qwen3-8b&engine=llamacpp&context=8192&gpu=rtx-4090`);
  await page.locator('#summary').waitFor({ state: 'visible' });
  await page.locator('#also-on-gpu > summary').click();
  await page.locator('[data-testid="also-file"]').setInputFiles(path.join(root, 'tests/hub/fixtures/vramfit-test--qwen3-0.6b-draft/config.json'));
  const row = page.locator('.also-row.also-file');
  await row.waitFor();
  const name = await row.locator('[data-testid="also-file-name"]').textContent();
  // The key the page keeps the read under (also-models.js keyOf), named as the page's requests name it.
  const ask = () => page.evaluate((model) => JSON.parse(globalThis.vramfitModuleForTest.answer(JSON.stringify({
    model: 'qwen3-8b', engine: 'llamacpp', context: 8192, gpu: 'rtx-4090', also: model,
    also_read: { [model]: `also_read.${model}` } }))), name);
  const kept = await ask();
  assert.equal(kept.ok, true, JSON.stringify(kept.error));
  await row.locator('[data-testid="also-remove"]').click();
  await row.waitFor({ state: 'detached' });
  const gone = await ask();
  assert.equal(gone.ok, false);
  assert.equal(gone.error.message.id, 'read.not_kept');
  assert.equal(gone.error.field, `also_read.${name}`);
  assert.deepEqual(problems, []);
});
