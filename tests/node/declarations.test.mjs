// wasm/vramfit.d.ts against the real module: answers the .wasm gives (every question, both modes, errors, the
// name reader and the catalog) are written out as object literals typed by the declarations and checked by tsc, so a
// key the module writes and the file does not declare (or one it declares and the module no longer writes) fails
// here; tests/types/usage.ts calls the declared API as a client would.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dist = process.env.VRAMFIT_DIST ?? path.join(root, 'dist');
const { default: createVramfit } = await import(path.join(dist, 'vramfit.mjs'));
const module = await createVramfit({ wasmBinary: readFileSync(path.join(dist, 'vramfit.wasm')) });
const ask = (request) => JSON.parse(module.answer(JSON.stringify(request)));

// Each answer with the type the declarations give it; the scenarios reach the optional parts (engine blocks, per
// GPU, placement in system RAM, several GPUs, Macs, training offload, remedies with a GPU).
const SAMPLES = [
  ['EstimateAnswer', { model: 'llama-3.1-8b' }],
  ['EstimateAnswer', { model: 'llama-3.1-8b', engine: 'vllm', gpu: 'h100-sxm' }],
  ['EstimateAnswer', { model: 'qwen3.6-35b-a3b', engine: 'sglang', gpu: 'h100-sxm' }],
  ['EstimateAnswer', { model: 'llama-3.1-70b', weights: 'q4_k_m', engine: 'llamacpp', gpu: 'rtx-3090', context: 4096 }],
  ['EstimateAnswer', { model: 'llama-3.1-70b', weights: 'q4_k_m', engine: 'llamacpp', gpu: 'rtx-3090', gpus: 2 }],
  ['EstimateAnswer', { model: 'llama-3.1-8b', engine: 'ollama', engine_version: '0.11.10', gpu: 'rtx-4060', context: 8192 }],
  ['EstimateAnswer', { model: 'gemma-3-27b', engine: 'ollama', weights: 'q4_k_m', gpu: 'rtx-4090', context: 8192 }],
  ['EstimateAnswer', { model: 'llama-3.1-8b', weights: 'mlx-4bit', engine: 'mlx', gpu: 'apple-m4-max-128gb' }],
  ['EstimateAnswer', { model: 'llama-3.1-70b', engine: 'vllm', gpu: 'h100-sxm', gpus: 4 }],
  ['EstimateAnswer', { params: 7e9 }],
  ['TrainingAnswer', { model: 'llama-2-7b', mode: 'lora', gpu: 'rtx-4090' }],
  ['TrainingAnswer', { model: 'llama-2-7b', mode: 'train', gpus: 4, zero: 3, offload: 'optimizer' }],
  ['LimitsAnswer', { question: 'limits', model: 'llama-3.1-8b', gpu: 'rtx-4090' }],
  ['CurveAnswer', { question: 'curve', model: 'llama-3.1-8b', axis: 'context', gpu: 'rtx-4090' }],
  ['GpuRankingAnswer', { question: 'gpu_ranking', model: 'llama-3.1-70b', weights: 'q4_k_m', engine: 'llamacpp' }],
  ['BiggestModelAnswer', { question: 'biggest_model', gpu: 'rtx-4090' }],
  ['RemediesAnswer', { question: 'remedies', model: 'llama-3.1-70b', gpu: 'rtx-4090' }],
  ['RemediesAnswer', { question: 'remedies', mode: 'train', model: 'llama-3.1-8b', gpu: 'rtx-4090' }],
  ['SeveralAnswer', { questions: ['estimate', 'limits'], model: 'llama-3.1-8b', gpu: 'rtx-4090' }],
  ['ErrorAnswer', { model: 'llama-3.1-8b', context: -1 }],
];

function samplesFile() {
  const lines = ["import type * as V from './vramfit';"];
  SAMPLES.forEach(([type, request], i) => {
    const answer = ask(request);
    assert.equal(answer.ok, type !== 'ErrorAnswer', `${JSON.stringify(request)}: ${JSON.stringify(answer.error ?? '')}`);
    lines.push(`export const a${i}: V.${type} = ${JSON.stringify(answer)};`);
  });
  lines.push(`export const catalog: V.Catalog = ${module.catalog()};`);
  for (const [i, name] of ['llama-3.1-8b', 'meta-llama/Llama-3.1-8B', 'bartowski/x-GGUF:Q4_K_M', 'llama3.1:8b', 'draft.gguf', ''].entries())
    lines.push(`export const name${i}: V.NameReading = ${module.read_model_name(name, '')};`);
  // A draft's read kept by key, and a description the core refuses.
  const config = readFileSync(path.join(root, 'tests/hub/fixtures/vramfit-test--qwen3-0.6b-draft/config.json'), 'utf8');
  lines.push(`export const kept0: V.KeptRead = ${module.keep_read('draft_read', JSON.stringify({ name: 'qwen3-0.6b', config }))};`);
  lines.push(`export const kept1: V.KeptRead = ${module.keep_read('draft_read', '{"files": 3}')};`);
  module.forget_read('draft_read');
  return lines.join('\n');
}

test('the module\'s answers are what wasm/vramfit.d.ts declares, and a client typed by it compiles', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'vramfit-types-'));
  try {
    copyFileSync(path.join(root, 'wasm/vramfit.d.ts'), path.join(dir, 'vramfit.d.ts'));
    copyFileSync(path.join(root, 'tests/types/usage.ts'), path.join(dir, 'usage.ts'));
    writeFileSync(path.join(dir, 'answers.ts'), samplesFile());
    const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
    let output = '';
    try {
      execFileSync(process.execPath, [tsc, '--noEmit', '--strict', '--target', 'es2022', '--module', 'es2022',
        '--moduleResolution', 'bundler', '--lib', 'es2022,dom', path.join(dir, 'answers.ts'), path.join(dir, 'usage.ts')],
      { encoding: 'utf8' });
    } catch (error) {
      output = `${error.stdout}${error.stderr}`.replaceAll(dir + path.sep, '');
    }
    assert.equal(output, '');
  } finally {
    if (!process.env.VRAMFIT_KEEP_TYPES) rmSync(dir, { recursive: true, force: true });
  }
});

test('the check fails on an answer the declarations do not describe', () => {
  // A key the declarations lack, in a literal typed by them: tsc must refuse it, or the test above proves nothing.
  const dir = mkdtempSync(path.join(tmpdir(), 'vramfit-types-'));
  try {
    copyFileSync(path.join(root, 'wasm/vramfit.d.ts'), path.join(dir, 'vramfit.d.ts'));
    const answer = ask({ model: 'llama-3.1-8b' });
    answer.breakdown.undeclared_line = 1;
    writeFileSync(path.join(dir, 'answers.ts'),
      `import type * as V from './vramfit';\nexport const a: V.EstimateAnswer = ${JSON.stringify(answer)};\n`);
    const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
    assert.throws(() => execFileSync(process.execPath, [tsc, '--noEmit', '--strict', '--target', 'es2022',
      '--module', 'es2022', '--moduleResolution', 'bundler', path.join(dir, 'answers.ts')], { encoding: 'utf8' }),
    (error) => /undeclared_line/.test(error.stdout));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
