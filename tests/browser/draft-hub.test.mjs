// Issue 31: a draft model named by its Hugging Face repository under "Also on this GPU", looked up only when the
// person asks, as the main model's box does. The Hub is the local stand-in of tests/hub/server.mjs behind Playwright
// routes (hub-routes.mjs): nothing leaves the machine. vramfit-test/qwen3-0.6b-draft holds Qwen3-0.6B's tensors as
// its config.json implies (tests/hub/README.md).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { openBrowser, newPage, root } from './helpers.mjs';
import { startHub } from '../hub/server.mjs';
import { openOnHub, offHub, CDN, HUB_HOSTS } from './hub-routes.mjs';

let session;
let hub;
before(async () => {
  session = await openBrowser();
  hub = await startHub({ cdnOrigin: CDN });
});
after(async () => {
  await hub?.close();
  await session?.close();
});

const SCENARIO = '?model=qwen3-8b&engine=llamacpp&weights=q8_0&context=4096';
const draftCell = (page) => page.locator('tr[data-line="draft"] td').first().textContent();

const open = (query) => openOnHub(session, hub, query);

test('a draft by Hub id: nothing is asked until the lookup, then it weighs what the preset weighs', async () => {
  // The preset's line first: llama.cpp drafts in the format given for the model, Q8_0 here, as the repository's file
  // holds it (the file's 468,189,184 B beside token_embd on the GPU: tests/node/lookup-draft-cli.test.mjs works it out by hand).
  const preset = await open(`${SCENARIO}&draft=qwen3-0.6b`);
  await preset.page.locator('#summary').waitFor({ state: 'visible' });
  const presetLine = await draftCell(preset.page);

  const { page, problems, seen } = await open(SCENARIO);
  await page.locator('#summary').waitFor({ state: 'visible' });
  await page.locator('#also-on-gpu > summary').click();
  // What is said before anything is sent: only the name goes to huggingface.co, and only on the button.
  assert.match(await page.locator('#draft-hub-status').textContent(), /looked up on Hugging Face only when you press the button.*Nothing else you enter leaves this browser/);
  await page.locator('#draft-repo').fill('vramfit-test/qwen3-0.6b-draft-GGUF:Q8_0');
  assert.deepEqual(seen, []);
  await page.locator('#draft-lookup').click();
  await page.waitForFunction(() => document.querySelector('#draft-hub-status').textContent.startsWith('Read from huggingface.co/'), null, { timeout: 45_000 });
  await page.locator('tr[data-line="draft"]').waitFor();
  assert.equal(await draftCell(page), presetLine);
  assert.equal(new URL(page.url()).searchParams.get('draft'), 'vramfit-test/qwen3-0.6b-draft-GGUF:Q8_0');
  assert.equal(await page.locator('#draft').inputValue(), 'vramfit-test/qwen3-0.6b-draft-GGUF:Q8_0');
  // Only the listing and the header were read, by ranges: the file's 636,290,432 B are never asked for.
  assert.ok(seen.length > 0 && seen.every((s) => HUB_HOSTS.test(s.url)));
  const reads = seen.filter((s) => s.url.includes('.gguf') || s.url.startsWith(CDN));
  assert.ok(reads.length > 0 && reads.every((s) => /^bytes=\d+-\d+$/.test(s.range ?? '')), JSON.stringify(reads));
  const asked = reads.filter((s) => s.url.startsWith(CDN)).reduce((sum, s) => {
    const [, from, to] = /^bytes=(\d+)-(\d+)$/.exec(s.range);
    return sum + Number(to) - Number(from) + 1;
  }, 0);
  assert.ok(asked < 16 * 2 ** 20, `${asked} B asked`);

  // A link carrying the name offers the lookup again and shows no figure for a draft not read.
  const again = await open(new URL(page.url()).search);
  await again.page.waitForFunction(() => /look it up under Draft model/.test(document.body.textContent));
  assert.equal(await again.page.locator('#draft-repo').inputValue(), 'vramfit-test/qwen3-0.6b-draft-GGUF:Q8_0');
  assert.deepEqual(again.seen, []);
  assert.deepEqual(offHub(problems), []);
  assert.deepEqual(preset.problems, []);
});

test('the draft\'s Hub box in German', async () => {
  const { page, problems } = await newPage(session);
  await page.addInitScript(() => localStorage.setItem('vramfit.lang', 'de'));
  await page.goto(`${session.base}/${SCENARIO}`);
  await page.locator('#summary').waitFor({ state: 'visible' });
  await page.locator('#also-on-gpu > summary').click();
  assert.match(await page.locator('#draft-hub-status').textContent(), /erst auf Hugging Face nachgeschlagen, wenn Sie die Schaltfläche drücken/);
  assert.match(await page.locator('label[for="draft-repo"]').textContent(), /^Oder ein Modell auf Hugging Face/);
  assert.deepEqual(problems, []);
});

test('another model by Hub id, with its context: its line is the preset\'s for the same model', async () => {
  const lineOf = (page, key) => page.locator(`tr[data-line="${key}"] td`).first().textContent();
  const VLLM = '?model=qwen3-8b&engine=vllm&gpu=h100-sxm&context=8192';
  const preset = await open(`${VLLM}&also=qwen3-0.6b%404096`);
  await preset.page.locator('tr[data-line="other_model:qwen3-0.6b@4096"]').waitFor();
  const presetLine = await lineOf(preset.page, 'other_model:qwen3-0.6b@4096');

  const { page, problems, seen } = await open(VLLM);
  await page.locator('#summary').waitFor({ state: 'visible' });
  await page.locator('#also-on-gpu > summary').click();
  await page.locator('[data-testid="also-add-hub"]').click();
  assert.match(await page.locator('[data-testid="also-hub-status"]').textContent(), /Nothing else you enter leaves this browser/);
  await page.locator('[data-testid="also-context"]').last().fill('4096');
  await page.locator('[data-testid="also-context"]').last().dispatchEvent('change');
  await page.locator('[data-testid="also-hub-name"]').fill('vramfit-test/qwen3-0.6b-draft');
  assert.deepEqual(seen, []);
  await page.locator('[data-testid="also-hub-lookup"]').click();
  const key = 'other_model:vramfit-test/qwen3-0.6b-draft@4096';
  await page.locator(`tr[data-line="${key}"]`).waitFor({ timeout: 45_000 });
  // The same config.json as the preset's, its BF16 tensors as the config implies (tests/hub/README.md): vLLM starts it
  // with the same share of the GPU.
  assert.equal(await lineOf(page, key), presetLine);
  assert.equal(new URL(page.url()).searchParams.get('also'), 'vramfit-test/qwen3-0.6b-draft@4096');
  assert.ok(seen.every((s) => HUB_HOSTS.test(s.url)));
  assert.deepEqual(offHub(problems), []);
  assert.deepEqual(preset.problems, []);
});

test('a draft\'s own config.json, picked here: read in this browser, as heavy as the preset', async () => {
  const preset = await open(`${SCENARIO}&draft=qwen3-0.6b`);
  await preset.page.locator('#summary').waitFor({ state: 'visible' });
  const presetLine = await draftCell(preset.page);
  const { page, problems, seen } = await open(SCENARIO);
  await page.locator('#summary').waitFor({ state: 'visible' });
  await page.locator('#also-on-gpu > summary').click();
  // Qwen3-0.6B's own config.json (tests/hub/fixtures): llama.cpp drafts it in the model's format, as the preset.
  await page.locator('#draft-file').setInputFiles(path.join(root, 'tests/hub/fixtures/vramfit-test--qwen3-0.6b-draft/config.json'));
  await page.locator('tr[data-line="draft"]').waitFor();
  assert.equal(await draftCell(page), presetLine);
  assert.match(await page.locator('#draft-hub-status').textContent(), /^config\.json was read in this browser .*nothing was sent/);
  assert.deepEqual(seen, []);
  // A file picked here stays in this browser, its name too: neither the link nor the embed code names it.
  assert.equal(new URL(page.url()).searchParams.get('draft'), null);
  // The embed code shown carries the scenario (so it is drawn), without the draft.
  await page.locator('#embed-section').waitFor({ state: 'visible' });
  await page.waitForFunction(() => /model=qwen3-8b/.test(document.querySelector('#embed-code').value));
  assert.doesNotMatch(await page.locator('#embed-code').inputValue(), /config\.json|draft=/);
  // Files the page cannot use: refused under the draft, in the language shown.
  await page.locator('#draft-file').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('x') });
  await page.waitForFunction(() => document.querySelector('#draft-hub-status').textContent === 'notes.txt is not a config.json, .gguf or .safetensors file');
  await page.locator('#lang').selectOption('de');
  await page.waitForFunction(() => document.querySelector('#draft-hub-status').textContent === 'notes.txt ist keine config.json, .gguf- oder .safetensors-Datei');
  await page.locator('#lang').selectOption('en');
  // A link that names a file by hand: the page asks for it rather than guess.
  const again = await open(`${SCENARIO}&draft=draft.gguf`);
  await again.page.waitForFunction(() => /pick it again under Draft model/.test(document.body.textContent));
  assert.deepEqual(problems, []);
  assert.deepEqual(again.problems, []);
});

// vramfit-test/qwen3-0.6b-draft-quants-GGUF holds Qwen3-0.6B's tensors twice: every matrix in Q8_0, and in F16
// (tests/hub/README.md). llama-server fetches a Hub draft itself: "--spec-draft-hf, -hfd, -hfrd, --hf-repo-draft
// <user>/<model>[:quant]: Same as --hf-repo, but for the draft model" (ggml-org/llama.cpp tools/server/README.md at
// 00dc8057, generated from common/arg.cpp), and common/download.cpp's find_best_model (at 0216dab3) takes the first
// .gguf whose path matches QUANT followed by "." or "-", case-insensitive: "F16" names qwen3-0.6b-draft-F16.gguf.
const QUANTS = 'vramfit-test/qwen3-0.6b-draft-quants-GGUF';

test('a Hub draft with two quantizations: the other one picked reads only its header; llama-server gets -hfd repo:QUANT', async () => {
  // llama.cpp drafts a preset in the format given for the model, F16 here: the F16 file's tensors as the preset's.
  const F16 = '?model=qwen3-8b&engine=llamacpp&weights=f16&context=4096';
  const preset = await open(`${F16}&draft=qwen3-0.6b`);
  await preset.page.locator('tr[data-line="draft"]').waitFor();
  const presetLine = await draftCell(preset.page);

  const { page, problems, seen } = await open(F16);
  await page.locator('#summary').waitFor({ state: 'visible' });
  await page.locator('#also-on-gpu > summary').click();
  assert.equal(await page.locator('#draft-quant-controls').isHidden(), true);
  await page.locator('#draft-repo').fill(`${QUANTS}:Q8_0`);
  await page.locator('#draft-lookup').click();
  await page.waitForFunction(() => document.querySelector('#draft-hub-status').textContent.startsWith('Read from huggingface.co/'), null, { timeout: 45_000 });
  assert.deepEqual(await page.locator('#draft-quant option').evaluateAll((os) => os.map((o) => o.value)), ['Q8_0', 'F16']);
  assert.equal(await page.locator('#draft-quant').inputValue(), 'Q8_0');
  await page.waitForFunction((repo) => document.querySelector('#command-text').textContent
    .includes(` --spec-type draft-simple -hfd ${repo}:Q8_0 --spec-draft-n-max 16`), QUANTS);
  const q8Line = await draftCell(page);
  assert.notEqual(q8Line, presetLine);

  const before = seen.length;
  await page.locator('#draft-quant').selectOption('F16');
  await page.waitForFunction((repo) => new URL(location.href).searchParams.get('draft') === `${repo}:F16`, QUANTS);
  await page.waitForFunction((line) => document.querySelector('tr[data-line="draft"] td')?.textContent === line, presetLine, { timeout: 45_000 });
  assert.equal(await page.locator('#draft-quant').inputValue(), 'F16');
  const command = await page.locator('#command-text').textContent();
  assert.match(command, new RegExp(` --spec-type draft-simple -hfd ${QUANTS}:F16 --spec-draft-n-max 16`));
  assert.doesNotMatch(command, / -md /);
  // The listing is not asked for again: only the F16 file's header, by ranges.
  const again = seen.slice(before);
  assert.ok(again.length > 0 && again.every((s) => !s.url.includes('/api/models/') && /^bytes=\d+-\d+$/.test(s.range ?? '')), JSON.stringify(again));
  assert.ok(again.some((s) => s.url.includes('qwen3-0.6b-draft-F16.gguf')), JSON.stringify(again));
  assert.deepEqual(offHub(problems), []);
  assert.deepEqual(preset.problems, []);
});

test('another model by Hub id with two quantizations: the row offers the other one, and the link names it', async () => {
  const VLLM = '?model=qwen3-8b&engine=llamacpp&gpu=rtx-4090&context=4096';
  const { page, problems } = await open(VLLM);
  await page.locator('#summary').waitFor({ state: 'visible' });
  await page.locator('#also-on-gpu > summary').click();
  await page.locator('[data-testid="also-add-hub"]').click();
  await page.locator('[data-testid="also-context"]').last().fill('4096');
  await page.locator('[data-testid="also-context"]').last().dispatchEvent('change');
  await page.locator('[data-testid="also-hub-name"]').fill(`${QUANTS}:Q8_0`);
  await page.locator('[data-testid="also-hub-lookup"]').click();
  const key = `other_model:${QUANTS}@4096`;
  await page.locator(`tr[data-line="${key}"]`).waitFor({ timeout: 45_000 });
  const quant = page.locator('[data-testid="also-hub-quant"]');
  assert.deepEqual(await quant.locator('option').evaluateAll((os) => os.map((o) => o.value)), ['Q8_0', 'F16']);
  assert.equal(await quant.inputValue(), 'Q8_0');
  const q8 = await page.locator(`tr[data-line="${key}"] td`).first().textContent();
  await quant.selectOption('F16');
  await page.waitForFunction((repo) => new URL(location.href).searchParams.get('also') === `${repo}:F16@4096`, QUANTS);
  // Its F16 matrices hold twice the bytes of Q8_0's less the scales (34 B per 32 weights against 64 B): more memory.
  await page.waitForFunction(([k, before]) => {
    const cell = document.querySelector(`tr[data-line="${k}"] td`)?.textContent;
    return cell && cell !== before;
  }, [key, q8], { timeout: 45_000 });
  assert.equal(await page.locator('[data-testid="also-hub-quant"]').inputValue(), 'F16');
  assert.deepEqual(offHub(problems), []);
});

// vramfit-test/lying-gguf's bad-tensor-count.gguf says 1,000,000,000 tensors in a 1 MiB file (tests/hub/README.md):
// the reader refuses its header. The refusal is kept in the page's state, not as text, so a language change after
// the lookup says it again in the language shown (messages/errors-files.js: gguf.too_many_tensors).
const LYING = 'vramfit-test/lying-gguf';
const refusal = {
  en: /bad-tensor-count\.gguf: .*1000000000 tensors cannot fit in a file of this size/,
  de: /bad-tensor-count\.gguf: .*1000000000 Tensoren passen nicht in eine Datei dieser Größe/,
};
const errorSays = (page, lang) => page.waitForFunction(
  (source) => new RegExp(source).test(document.querySelector('#result-error')?.textContent ?? ''),
  refusal[lang].source, { timeout: 45_000 });

async function switchesLanguage(page) {
  await errorSays(page, 'en');
  await page.locator('#lang').selectOption('de');
  await errorSays(page, 'de');
  assert.doesNotMatch(await page.locator('#result-error').textContent(), /cannot fit/);
  await page.locator('#lang').selectOption('en');
  await errorSays(page, 'en');
}

test('a Hub draft whose file the reader refuses: the refusal follows the language shown', async () => {
  const { page, problems } = await open(SCENARIO);
  await page.locator('#summary').waitFor({ state: 'visible' });
  await page.locator('#also-on-gpu > summary').click();
  await page.locator('#draft-repo').fill(LYING);
  await page.locator('#draft-lookup').click();
  await switchesLanguage(page);
  assert.deepEqual(offHub(problems), []);
});

test('another model on the Hub whose file the reader refuses: the refusal follows the language shown', async () => {
  const { page, problems } = await open('?model=qwen3-8b&engine=llamacpp&gpu=rtx-4090&context=4096');
  await page.locator('#summary').waitFor({ state: 'visible' });
  await page.locator('#also-on-gpu > summary').click();
  await page.locator('[data-testid="also-add-hub"]').click();
  await page.locator('[data-testid="also-hub-name"]').fill(LYING);
  await page.locator('[data-testid="also-hub-lookup"]').click();
  await switchesLanguage(page);
  assert.deepEqual(offHub(problems), []);
});

test('the model itself on the Hub, its file refused by the reader: the refusal follows the language shown', async () => {
  const { page, problems } = await open('?engine=llamacpp&context=4096');
  await page.locator('#model').fill(LYING);
  await page.locator('#hub-lookup').waitFor({ state: 'visible' });
  await page.locator('#hub-lookup').click();
  await switchesLanguage(page);
  assert.deepEqual(offHub(problems), []);
});
