// How the speed block's figures are estimated: a folded section under the speeds with the core's decode and
// prefill explanations, worded in the page's language with the page's digits (EN/DE, 1280 and 375 px).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openBrowser, newPage, readsEnglish } from './helpers.mjs';

let session;
before(async () => { session = await openBrowser(); });
after(async () => { await session?.close(); });

// A dense model, a mixture of experts with recurrent state on several GPUs, a format the card computes weight-only
// (the prefill's note on its compute path), and experts left in system RAM.
const SCENARIOS = [
  '?model=llama-3.1-8b&engine=llamacpp&weights=q4_k_m&gpu=rtx-4090&context=8192&prompt=2048',
  '?model=qwen3.6-35b-a3b&engine=sglang&gpu=h100-sxm&gpus=2&batch=8',
  '?model=llama-3.1-8b&engine=vllm&weights=fp8&gpu=rtx-3090&context=8192',
  // llama.cpp's --fit leaves experts in system RAM: the clause on the CPU's reads.
  '?model=qwen3-30b-a3b&engine=llamacpp&weights=q4_k_m&gpu=rtx-4060&context=8192',
];

async function open(query, lang, viewport) {
  const { page, problems } = await newPage(session, viewport);
  await page.addInitScript((l) => localStorage.setItem('vramfit.lang', l), lang);
  await page.goto(`${session.base}/${query}`);
  await page.locator('#speed-how').waitFor({ state: 'visible' });
  await page.locator('#speed-how > summary').click();
  await page.locator('#speed-how-text p').first().waitFor({ state: 'visible' });
  return { page, problems };
}

const parts = (page) => page.locator('#speed-how-text p').allTextContents();

for (const query of SCENARIOS) {
  test(`the speeds explained in German: no English sentence, every figure written (${query})`, async () => {
    const { page, problems } = await open(query, 'de');
    assert.equal(await page.locator('#speed-how > summary').textContent(), 'Wie diese Geschwindigkeiten geschätzt werden');
    const texts = await parts(page);
    assert.equal(texts.length, 2, texts.join('\n'));
    assert.ok(texts[0].startsWith('Generierung: Jeder Schritt liest '), texts[0]);
    assert.ok(texts[1].startsWith('Prefill: '), texts[1]);
    if (query.includes('rtx-4060')) assert.match(texts[0], /die Experten von \d+ Schichten .*bleiben im Arbeitsspeicher/);
    for (const text of texts) {
      assert.ok(!readsEnglish(text), text);
      assert.doesNotMatch(text, /NaN|undefined|null|\{\w+\}|\[object/);
      // German digits: a decimal comma in the figures (GB/s, %), never an English decimal point between digits.
      assert.doesNotMatch(text.replace(/sm_\d+|E · \(1 − \(1 − k\/E\)\^B\)/g, ''), /\d\.\d{1,2}(?!\d)/, text);
    }
    assert.deepEqual(problems, []);
  });
}

test('in English the page shows the core\'s own sentences, and at 375 px nothing is wider than the screen', async () => {
  for (const [lang, viewport] of [['en', { width: 1280, height: 900 }], ['en', { width: 375, height: 800 }],
    ['de', { width: 375, height: 800 }]]) {
    const { page, problems } = await open(SCENARIOS[0], lang, viewport);
    const texts = await parts(page);
    if (lang === 'en') {
      assert.equal(await page.locator('#speed-how > summary').textContent(), 'How these speeds are estimated');
      assert.ok(texts[0].startsWith('Decode: Each step reads '), texts[0]);
      assert.match(texts[1], /^Prefill: [\d.]+ TFLOP for 2,?048 prompt tokens/);
    }
    const wide = await page.evaluate(() => {
      const edge = Math.min(document.documentElement.clientWidth, document.querySelector('#speed').getBoundingClientRect().right);
      return [...document.querySelectorAll('#speed-how, #speed-how *')]
        .filter((n) => n.getBoundingClientRect().right > edge + 1).map((n) => n.id || n.tagName);
    });
    assert.deepEqual(wide, []);
    assert.deepEqual(problems, []);
  }
});
