// A checkpoint is read whole or asked for: nvidia/Llama-3.1-70B-Instruct-FP8's config.json names no quantization
// (its format is in its hf_quant_config.json). Dropped alone under its name, the page asks for that file by the
// drop, in English and German, and counts the weights as bf16 until it comes; dropping it next completes the answer.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { openBrowser, newPage, root } from './helpers.mjs';

let session;
before(async () => { session = await openBrowser(); });
after(async () => { await session?.close(); });

const configs = path.join(root, 'tests/data/configs');
const CONFIG = 'nvidia--Llama-3.1-70B-Instruct-FP8_config.json';
const QUANT = 'nvidia--Llama-3.1-70B-Instruct-FP8_hf_quant_config.json';
const file = (name, as = name) => ({ name: as, mimeType: 'application/json', buffer: readFileSync(path.join(configs, name)) });
const ASK = {
  en: 'This looks like an NVIDIA FP8 checkpoint: add its hf_quant_config.json here (drop or pick it). Until then its '
    + 'weights are counted as bf16.',
  de: 'Das sieht nach einem NVIDIA-Checkpoint in FP8 aus: Legen Sie hier seine hf_quant_config.json ab (oder wählen '
    + 'Sie sie aus). Bis dahin zählen seine Gewichte als bf16.',
};
// Llama 3.1 70B in bf16: 70,553,706,496 parameters (HF Hub API safetensors.total of meta-llama/Llama-3.3-70B-Instruct,
// the same architecture) × 2 B = 141.11 GB. In FP8 with lm_head in bf16 (the hf_quant_config.json): 72.66 GB, where
// the published files hold 72.7 GB (tests/unit/questions/test_checkpoint_files.cpp).
const BF16 = { en: '141.11', de: '141,11' };
const FP8 = { en: '72.66', de: '72,66' };
const weightsCell = (page, text) => page.waitForFunction((t) =>
  document.querySelector('tr[data-line="weights"] td')?.textContent === t, text);

async function open(lang, width) {
  const { page, problems } = await newPage(session, { width, height: 900 });
  await page.addInitScript((l) => localStorage.setItem('vramfit.lang', l), lang);
  await page.goto(`${session.base}/?model=llama-3.1-8b&context=4096`);
  await page.locator('#summary').waitFor({ state: 'visible' });
  return { page, problems };
}

for (const [lang, width] of [['en', 1280], ['de', 1280], ['en', 375], ['de', 375]]) {
  test(`${lang} at ${width} px: an NVIDIA checkpoint's config.json alone asks for its hf_quant_config.json, which completes it`, async () => {
    const { page, problems } = await open(lang, width);
    const ask = page.locator('#checkpoint-ask');
    assert.equal(await ask.isHidden(), true);
    await page.locator('#file').setInputFiles(file(CONFIG));
    await ask.waitFor({ state: 'visible' });
    assert.equal(await ask.textContent(), ASK[lang]);
    await weightsCell(page, BF16[lang]);
    // The prompt sits in the file drop, under what was read.
    assert.equal(await page.locator('#drop #file-status + #checkpoint-ask').count(), 1);
    // Its hf_quant_config.json dropped alone next joins it: FP8 weights, and nothing more is asked.
    await page.locator('#file').setInputFiles(file(QUANT));
    await page.locator('#file-status').filter({ hasText: `${CONFIG} + ${QUANT}` }).waitFor();
    await weightsCell(page, FP8[lang]);
    assert.equal(await ask.isHidden(), true);
    assert.deepEqual(problems, []);
  });
}

test('a checkpoint folder dropped without its hf_quant_config.json asks for it by the folder\'s name', async () => {
  const { page, problems } = await open('en', 1280);
  const text = readFileSync(path.join(configs, CONFIG), 'utf8');
  await page.evaluate((config) => {
    const child = { isFile: true, isDirectory: false, name: 'config.json', fullPath: '/Llama-3.1-70B-Instruct-FP8/config.json',
      file: (ok) => ok(new File([config], 'config.json')) };
    const folder = { isFile: false, isDirectory: true, name: 'Llama-3.1-70B-Instruct-FP8', fullPath: '/Llama-3.1-70B-Instruct-FP8',
      createReader: () => { let given = false; return { readEntries: (ok) => { ok(given ? [] : [child]); given = true; } }; } };
    const drop = new Event('drop', { bubbles: true, cancelable: true });
    Object.defineProperty(drop, 'dataTransfer', { value: { items: [{ webkitGetAsEntry: () => folder }], files: [] } });
    document.querySelector('#drop').dispatchEvent(drop);
  }, text);
  await page.locator('#checkpoint-ask').waitFor({ state: 'visible' });
  assert.equal(await page.locator('#checkpoint-ask').textContent(), ASK.en);
  // The note among the results names the checkpoint as its folder is named.
  assert.match(await page.locator('#notes').textContent(), /Llama-3\.1-70B-Instruct-FP8: the name says FP8, but its config\.json names no quantization/);
  await weightsCell(page, BF16.en);
  await page.locator('#file').setInputFiles(file(QUANT, 'hf_quant_config.json'));
  await weightsCell(page, FP8.en);
  assert.equal(await page.locator('#checkpoint-ask').isHidden(), true);
  assert.deepEqual(problems, []);
});

test('a config.json dropped under no telling name asks for nothing: there is nothing to go on', async () => {
  const { page, problems } = await open('en', 1280);
  await page.locator('#file').setInputFiles(file(CONFIG, 'config.json'));
  await page.locator('#file-status').filter({ hasText: 'Using config.json.' }).waitFor();
  await weightsCell(page, BF16.en);
  assert.equal(await page.locator('#checkpoint-ask').isHidden(), true);
  // Back to the presets: no prompt stays behind.
  await page.locator('#file').setInputFiles(file(CONFIG));
  await page.locator('#checkpoint-ask').waitFor({ state: 'visible' });
  await page.locator('#file-clear').click();
  await page.waitForFunction(() => document.querySelector('#model').value === 'Llama 3.1 8B');
  assert.equal(await page.locator('#checkpoint-ask').isHidden(), true);
  assert.deepEqual(problems, []);
});
