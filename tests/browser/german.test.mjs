// The German page says the core's notes, errors and remedy costs in German: for scenarios that bring many notes,
// no text node in the results reads as an English sentence (English function words between other words), at
// 1280 and 375 px. Names, flags and formulas may stay as they are (vLLM, --tensor-parallel-size, max_model_len).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { openBrowser, newPage, root, englishTexts } from './helpers.mjs';

let session;
before(async () => { session = await openBrowser(); });
after(async () => { await session?.close(); });

const SCENARIOS = [
  { name: 'vLLM without a GPU', query: '?model=llama-3.1-8b&engine=vllm' },
  { name: 'llama.cpp partial offload', query: '?model=llama-3.1-70b&engine=llamacpp&weights=q4_k_m&gpu=rtx-4090' },
  { name: 'training with ZeRO', query: '?model=llama-2-7b&mode=train&gpus=4&zero=1&gpu=a100-80gb-sxm' },
  { name: 'remedies for llama-2-13b on an RTX 4090', query: '?model=llama-2-13b&gpu=rtx-4090' },
  { name: 'an error input', query: '?model=llama-2-7b&context=0' },
  { name: 'a DeepSeek config import', query: '?', file: 'deepseek-ai--DeepSeek-V3_config.json' },
  { name: 'SGLang on an H100', query: '?model=llama-3.1-8b&engine=sglang&gpu=h100-sxm' },
  { name: 'Ollama partial offload on an RTX 4060', query: '?model=llama-3.1-8b&engine=ollama&gpu=rtx-4060&context=8192' },
  { name: 'llama.cpp across 2 RTX 3090', query: '?model=llama-3.1-70b&engine=llamacpp&weights=q4_k_m&gpu=rtx-3090&gpus=2' },
  { name: 'a Mac', query: '?model=llama-3.1-8b&gpu=apple-m3-max-36gb' },
  { name: 'a Mac short of its default wired limit', query: '?model=llama-3.1-70b&engine=llamacpp&weights=q4_k_m&context=16384&gpu=apple-m2-max-64gb' },
];

for (const width of [1280, 375]) {
  for (const s of SCENARIOS) {
    test(`German at ${width} px, ${s.name}: no English sentence in the results`, async () => {
      const { page, problems } = await newPage(session, { width, height: 900 });
      await page.addInitScript(() => localStorage.setItem('vramfit.lang', 'de'));
      await page.goto(`${session.base}/${s.query}`);
      if (s.file) {
        const buffer = readFileSync(path.join(root, 'tests/data/configs', s.file));
        await page.locator('#file').setInputFiles({ name: 'config.json', mimeType: 'application/json', buffer });
        await page.waitForFunction(() => /config\.json/.test(document.querySelector('#file-status')?.textContent ?? ''));
      }
      await page.waitForFunction(() => document.querySelector('#notes li, #remedies tr') || !document.querySelector('#result-error')?.hidden);
      await page.waitForTimeout(300);
      assert.equal(await page.evaluate(() => document.documentElement.lang), 'de');
      assert.deepEqual(await englishTexts(page), []);
      assert.deepEqual(problems, []);
      await page.context().close();
    });
  }
}

test('the detector finds the English page\'s sentences (it is not blind)', async () => {
  const { page } = await newPage(session, { width: 1280, height: 900 });
  await page.addInitScript(() => localStorage.setItem('vramfit.lang', 'en'));
  await page.goto(`${session.base}/?model=llama-3.1-70b&engine=llamacpp&weights=q4_k_m&gpu=rtx-4090`);
  await page.waitForFunction(() => document.querySelector('#notes li'));
  assert.ok((await englishTexts(page)).length > 0);
  await page.context().close();
});
