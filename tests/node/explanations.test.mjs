// Every explanation the core writes (the dialog behind each number of a breakdown, and behind each remedy's
// saving) has a message id for its formula, its values and its source, so the page shows all three in German
// too; and each id's template renders its values with nothing left unfilled. Asked of the real .wasm over a
// spread of models, engines, modes and GPUs that reaches each kind of explanation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MESSAGES, messageText } from '../../web/js/i18n/messages.js';
import { makeFormat } from '../../web/js/i18n/format.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dist = process.env.VRAMFIT_DIST ?? path.join(root, 'dist');
const { default: createVramfit } = await import(path.join(dist, 'vramfit.mjs'));
const module = await createVramfit({ wasmBinary: readFileSync(path.join(dist, 'vramfit.wasm')) });

// Dense, MoE with MLA, sliding windows, hybrid linear attention, Mamba, an encoder, a vision wrapper, a bare count.
const MODELS = ['llama-3.1-8b', 'deepseek-v3', 'gemma-3-27b', 'qwen3-next-80b-a3b', 'nemotron-h-56b', 'bert-base',
  'qwen3-vl-8b', 'gpt-oss-20b'];
const inference = [];
for (const model of MODELS) {
  for (const engine of ['transformers', 'vllm', 'sglang']) inference.push({ model, engine, gpu: 'h100-sxm' }, { model, engine });
  // llama.cpp and Ollama load GGUF files, MLX its own formats: FP8 and MXFP4 checkpoints are converted first.
  for (const engine of ['llamacpp', 'ollama']) {
    inference.push({ model, engine, gpu: 'h100-sxm' }, { model, engine, weights: 'q4_k_m' });
  }
  inference.push({ model, engine: 'mlx', weights: 'mlx-4bit', gpu: 'apple-m2-ultra-192gb' });
  inference.push({ model, engine: 'transformers', attention: 'eager', gpu: 'rtx-4090' });
}
inference.push({ params: '7e9' }, { params: '7e9', engine: 'vllm', gpu: 'h100-sxm' }, { params: '7e9', engine: 'llamacpp' });
inference.push({ model: 'llama-3.1-8b', engine: 'vllm', gpu: 'h100-sxm', kv_allocation: 'paged', avg_tokens: 1000 });
inference.push({ model: 'llama-3.1-70b', engine: 'vllm', gpu: 'h100-sxm', gpus: 4 });
inference.push({ model: 'llama-3.1-70b', engine: 'llamacpp', weights: 'q4_k_m', gpu: 'rtx-3090', gpus: 2 });
const training = [];
for (const model of ['llama-3.1-8b', 'qwen3-30b-a3b', 'deepseek-v3', 'qwen3-next-80b-a3b']) {
  for (const mode of ['train', 'lora', 'qlora', 'grpo']) training.push({ model, mode, gpu: 'h100-sxm' }, { model, mode });
}
training.push({ model: 'llama-3.1-8b', mode: 'train', gpu: 'a100-80gb-sxm', gpus: 8, zero: 3 });
// Training time and its cost (the GPU's catalog price), with full recomputation.
training.push({ model: 'llama-3.1-8b', mode: 'train', gpu: 'h100-sxm', checkpointing: 'full', tokens: '1e9' });
training.push({ model: 'llama-3.1-8b', mode: 'lora', gpu: 'h100-sxm', tokens: '1e9' });
// Layers of several kinds (dense, MoE, without MLP), each named once in one layer's line.
training.push({ model: 'llama-3.3-nemotron-super-49b', mode: 'lora', gpu: 'h100-sxm' }, { model: 'gemma-4-26b-a4b', mode: 'lora' },
  { model: 'mimo-v2-flash', mode: 'lora' });
training.push({ params: '7e9', mode: 'train' });

// The scenarios the core refuses, by the id of its error: anything else refused is a mistake in this list.
const REFUSED = new Map([
  ['deepseek-v3 llamacpp', 'weights'], ['deepseek-v3 ollama', 'weights'],  // its FP8 checkpoint is no GGUF file
  ['qwen3-next-80b-a3b train', 'mode'], ['qwen3-next-80b-a3b lora', 'mode'],  // linear attention is not modelled
  ['qwen3-next-80b-a3b qlora', 'mode'], ['qwen3-next-80b-a3b grpo', 'mode'],  // for training
]);

function explanationsOf(request) {
  const answer = JSON.parse(module.answer(JSON.stringify({ ...request, questions: ['estimate', 'remedies'] })));
  if (!answer.ok) return { error: `${answer.error.field}: ${answer.error.message.text}` };
  const [estimate, remedies] = answer.answers;
  const out = [];
  if (estimate.ok) out.push(...estimate.explanations);
  if (remedies.ok) for (const r of remedies.remedies) out.push(r.explanation);
  return { found: out };
}

const f = makeFormat('de-DE', 'GB');
for (const [name, scenarios] of [['inference', inference], ['training', training]]) {
  test(`every ${name} explanation has an id for its formula, values and source, and a German template`, () => {
    const missing = new Map();  // what is missing → the first scenario that shows it
    const unfilled = new Set();
    let seen = 0;
    for (const request of scenarios) {
      const { found, error } = explanationsOf(request);
      if (error) {  // a refused scenario has no explanations; its message is another test's
        const expected = REFUSED.get(`${request.model} ${request.mode ?? request.engine}`);
        assert.ok(expected && error.startsWith(`${expected}:`), `${JSON.stringify(request)} refused: ${error}`);
        continue;
      }
      if (request.tokens) {
        assert.ok(found.some((x) => x.key === 'cost_usd'), `${JSON.stringify(request)}: no cost explanation`);
      }
      for (const x of found) {
        for (const part of ['formula', 'values', 'source']) {
          seen++;
          const i18n = x[part];
          if (!i18n?.id || MESSAGES.de[i18n.id] === undefined) {
            const what = `${x.key}.${part}: ${(i18n?.text ?? '').slice(0, 90)}`;
            if (!missing.has(what)) missing.set(what, JSON.stringify(request));
            continue;
          }
          const german = messageText('de', f, i18n);
          if (/\{\w+\}/.test(german)) unfilled.add(`${i18n.id}: ${german}`);
        }
      }
    }
    assert.ok(seen > 300, `only ${seen} explanation texts: the scenarios no longer reach them`);
    const listed = [...missing].map(([what, where]) => `${what}  (${where})`).sort();
    assert.equal(listed.length, 0, `${listed.length} explanation texts without a template:\n${listed.join('\n')}`);
    assert.equal(unfilled.size, 0, `templates left with a {value} unfilled:\n${[...unfilled].join('\n')}`);
  });
}
