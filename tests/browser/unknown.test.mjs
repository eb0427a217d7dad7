// "Unknown" as an answer: where an input the verdict depends on is not known, the headline says how sure
// it is and a line under it says why, in English and German; the validation link gives each kind's median error.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { openBrowser, newPage, root } from './helpers.mjs';

let session;
before(async () => { session = await openBrowser(); });
after(async () => { await session?.close(); });

// nvidia/Llama-3.1-70B-Instruct-FP8's config.json alone names no quantization: counted as bf16 (141.1 GB of weights)
// it needs two 80 GB H100s; as FP8, as its name says (its linear weights 1 B instead of 2: 68.45 GB less), it fits
// on one. The margin is smaller than that spread, so whether one H100 holds it is unknown until the file is read.
const CONFIG = 'nvidia--Llama-3.1-70B-Instruct-FP8_config.json';
const QUANT = 'nvidia--Llama-3.1-70B-Instruct-FP8_hf_quant_config.json';
const file = (name) => ({ name, mimeType: 'application/json',
  buffer: readFileSync(path.join(root, 'tests/data/configs', name)) });

const EXPECT = {
  en: { lead: /^Unknown: Needs 2 × NVIDIA H100 SXM/, why: /The checkpoint's hf_quant_config\.json was not read.*As FP8, as the checkpoint's name says: Fits on one NVIDIA H100 SXM/,
    kinds: /^checked against \d+ published figures, median error [\d.]+\s?%–[\d.]+\s?% by kind$/, title: /File sizes: .*Engine logs: /s },
  de: { lead: /^Unklar: Braucht 2 × NVIDIA H100 SXM/, why: /Die hf_quant_config\.json des Checkpoints wurde nicht gelesen.*Als FP8, wie der Name des Checkpoints sagt: Passt auf eine NVIDIA H100 SXM/,
    kinds: /^geprüft an \d+ veröffentlichten Werten, mittlerer Fehler \(Median\) je nach Art [\d,]+\s?%–[\d,]+\s?%$/, title: /Dateigrößen: .*Engine-Logs: /s },
};
const headlineMatches = (page, re) => page.waitForFunction((source) =>
  new RegExp(source).test(document.querySelector('#headline')?.textContent ?? ''), re.source);

for (const lang of ['en', 'de']) {
  test(`${lang}: a checkpoint without its quantization file reads "unknown" with the reason, until the file comes`, async () => {
    const { page, problems } = await newPage(session);
    await page.addInitScript((l) => localStorage.setItem('vramfit.lang', l), lang);
    await page.goto(`${session.base}/?model=llama-3.1-8b&gpu=h100-sxm&context=8192`);
    await page.locator('#summary').waitFor({ state: 'visible' });
    const reasons = page.getByTestId('certainty-reasons');
    assert.equal(await reasons.isHidden(), true);
    await page.locator('#file').setInputFiles(file(CONFIG));
    await headlineMatches(page, EXPECT[lang].lead);
    assert.match(await page.getByTestId('headline').getAttribute('class'), /certainty-unknown/);
    assert.equal(await reasons.isVisible(), true);
    assert.match(await reasons.textContent(), EXPECT[lang].why);
    assert.match(await page.getByTestId('validation-link').textContent(), EXPECT[lang].kinds);
    assert.match(await page.getByTestId('validation-link').getAttribute('title'), EXPECT[lang].title);
    // With the file the format is known: the headline is certain again.
    await page.locator('#file').setInputFiles(file(QUANT));
    await page.waitForFunction(() => !/^(Unknown|Unklar):/.test(document.querySelector('#headline')?.textContent ?? ''));
    await reasons.waitFor({ state: 'hidden' });
    assert.deepEqual(problems, []);
  });
}
