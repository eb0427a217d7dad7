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
  { name: 'Ollama partial offload on an RTX 4060', query: '?model=llama-3.1-8b&engine=ollama&version=0.11.10&gpu=rtx-4060&context=8192' },
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
        // The plain URL's written answer is on screen before the page takes files: wait for its own.
        await page.waitForFunction(() => performance.getEntriesByName('vramfit:first-result').length > 0);
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

// Inputs a person can get wrong on the page: each shows the core's error in German, beside the headline, with none
// of the English words the core's errors are made of.
const ERRORS = [
  { name: 'a context too large', query: '?model=llama-2-7b&context=999999999999',
    german: /Kontext.*erwartet wird eine ganze Zahl von Tokens zwischen 1 und 100\.000\.000.*angegeben: "999999999999"/ },
  { name: 'an unknown GPU in the URL', query: '?model=llama-2-7b&gpu=rtx-9999', german: /unbekannte GPU „rtx-9999“/ },
  { name: 'a config.json that cannot be read', query: '?',
    file: { name: 'config.json', text: '{"model_type": "llama", "hidden_size": "big"}' },
    german: /hidden_size: erwartet wird eine ganze Zahl ab 0, angegeben: "big"/ },
  { name: 'a config.json that is not an object', query: '?', file: { name: 'config.json', text: '[1, 2]' },
    german: /erwartet wird ein JSON-Objekt/ },
  { name: 'a .gguf that is not one', query: '?', file: { name: 'model.gguf', text: 'plain text, not a GGUF file at all' },
    german: /model\.gguf: keine GGUF-Datei/ },
  { name: 'a GPU count tensor parallel cannot use', query: '?model=llama-2-7b&engine=vllm&gpu=a100-80gb-sxm&gpus=3',
    german: /vLLM nutzt die 3 GPUs mit Pipeline-Parallelität.*die 32 Attention-Köpfe/, where: '#notes' },
];
const ENGLISH_ERROR = /\b(?:expected|unknown|got|must|could be|closest|not a|is not|offset|serves|does not)\b/;

for (const width of [1280, 375]) {
  for (const s of ERRORS) {
    test(`German at ${width} px, ${s.name}: the error is German, with no English sentence`, async () => {
      const { page, problems } = await newPage(session, { width, height: 900 });
      await page.addInitScript(() => localStorage.setItem('vramfit.lang', 'de'));
      await page.goto(`${session.base}/${s.query}`);
      if (s.file) {
        await page.waitForFunction(() => performance.getEntriesByName('vramfit:first-result').length > 0);
        await page.locator('#file').setInputFiles({ name: s.file.name, mimeType: 'application/octet-stream', buffer: Buffer.from(s.file.text) });
      }
      const where = s.where ?? '#result-error';
      await page.waitForFunction((sel) => {
        const node = document.querySelector(sel);
        return node && !node.hidden && node.textContent.trim() !== '' && !/^(?:Reading|Header werden)/.test(node.textContent);
      }, where);
      await page.waitForTimeout(200);
      const text = await page.locator(where).innerText();
      assert.match(text, s.german);
      assert.doesNotMatch(text, ENGLISH_ERROR);
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

test('the error detector finds the English page\'s error (it is not blind)', async () => {
  const { page } = await newPage(session, { width: 1280, height: 900 });
  await page.addInitScript(() => localStorage.setItem('vramfit.lang', 'en'));
  await page.goto(`${session.base}/?model=llama-2-7b&gpu=rtx-9999`);
  await page.waitForFunction(() => !document.querySelector('#result-error')?.hidden);
  assert.match(await page.locator('#result-error').innerText(), ENGLISH_ERROR);
  await page.context().close();
});

// Words the page once left in English on the German page, and what it says instead: a price's offer, the
// parameter count's unit, a GPU's name, counted nouns, the training modes, the GPU table and the explanations.
const WALK = [
  { name: 'a price from RunPod\'s community cloud', query: '?model=llama-3.1-8b&gpu=rtx-3090', german: [/RunPod, Community Cloud, auf Abruf/, /8,03 Mrd\. Parameter/] },
  { name: 'the GB200 row and the GPU table', query: '?model=llama-3.1-70b&gpu=gb200-per-gpu', german: [/NVIDIA GB200 \(1 GPU\)/, /Consumer/] },
  { name: 'LoRA', query: '?model=llama-3.1-8b&mode=finetune&ft=lora&gpu=rtx-4090', german: [/Gradient-Checkpointing/] },
  { name: 'GRPO', query: '?model=qwen3-8b&mode=finetune&ft=grpo&gpu=h100-sxm', german: [/Generierungen je Prompt/, /Optimiererzustände/] },
  { name: 'gpt-oss with vLLM', query: '?model=gpt-oss-120b&engine=vllm&gpu=h100-sxm', german: [/5,1\d Mrd\. aktiv/, /wie Modellkarten zählen/] },
];
const LEFT_IN_ENGLISH = /community cloud|on demand|per Blackwell|\d B Parameter|\w\((?:s|en)\)|Endkunden|Optimizer-States|Dekodieren|--engine|--weights|pass its path/;

for (const width of [1280, 375]) {
  for (const s of WALK) {
    test(`German at ${width} px, ${s.name}: no word left in English, explanations included`, async () => {
      const { page, problems } = await newPage(session, { width, height: 900 });
      await page.addInitScript(() => localStorage.setItem('vramfit.lang', 'de'));
      await page.goto(`${session.base}/${s.query}`);
      await page.waitForFunction(() => performance.getEntriesByName('vramfit:first-result').length > 0);
      await page.waitForTimeout(300);
      const texts = [await page.locator('main').innerText()];
      // Each figure's explanation ("how"), as the dialog shows it.
      for (const button of (await page.locator('#summary button[data-explain]').all()).slice(0, 8)) {
        await button.click();
        texts.push(await page.locator('#explain').innerText());
        await page.keyboard.press('Escape');
      }
      const text = texts.join('\n');
      for (const german of s.german) assert.match(text, german);
      assert.doesNotMatch(text, LEFT_IN_ENGLISH);
      assert.deepEqual(await englishTexts(page), []);
      assert.deepEqual(problems, []);
      await page.context().close();
    });
  }
}
