// Loads the real vramfit.wasm through its Embind bindings and checks known figures.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dist = process.env.VRAMFIT_DIST ?? path.join(root, 'dist');
// Node's fetch rejects file paths (TOOLCHAIN.md point 5): hand the module its bytes.
const { default: createVramfit } = await import(path.join(dist, 'vramfit.mjs'));
const module = await createVramfit({ wasmBinary: readFileSync(path.join(dist, 'vramfit.wasm')) });
const evaluate = (request) => JSON.parse(module.evaluate(JSON.stringify(request)));

test('Llama-3.1-8B in bf16 at 8192 tokens has the known weights and KV cache', () => {
  const r = evaluate({ model: 'llama-3.1-8b', weights: 'bf16', context: 8192, batch: 1 });
  assert.equal(r.ok, true);
  // 8,030,261,248 params × 2 B; KV 2 × 8 × 128 × 2 B × 32 layers = 131,072 B/token × 8192.
  assert.equal(r.breakdown.weights, 16060522496);
  assert.equal(r.breakdown.kv_cache, 1073741824);
  assert.equal(r.kv_cache.bytes_per_token, 131072);
  const { weights, kv_cache, activations, overhead, total } = r.breakdown;
  assert.equal(total, weights + kv_cache + activations + overhead);
});

test('OPT-13B keeps 819,200 B of fp16 KV per token (the vLLM paper example)', () => {
  const r = evaluate({ model: 'opt-13b', weights: 'fp16', context: 1 });
  assert.equal(r.kv_cache.bytes_per_token, 819200);
});

test('errors cross as results naming the field, not as exceptions', () => {
  const r = evaluate({ model: 'llama-3.1-8b', context: 0 });
  assert.equal(r.ok, false);
  assert.equal(r.error.field, 'context');
  assert.match(r.error.message, /between 1 and/);
  const bad = JSON.parse(module.evaluate('{not json'));
  assert.equal(bad.ok, false);
  assert.equal(bad.error.field, 'request');
});

test('the catalog lists presets, GPUs and dtypes', () => {
  const c = JSON.parse(module.catalog());
  assert.ok(c.models.some((m) => m.id === 'llama-3.1-405b'));
  assert.ok(c.gpus.length >= 50);
  assert.deepEqual(c.dtypes.map((d) => d.name), ['fp32', 'fp16', 'bf16', 'fp8', 'int8', 'int4']);
});

test('the wasm and the native CLI print the same numbers', async (t) => {
  const cli = process.env.VRAMFIT_CLI ?? path.join(root, 'build/native/cli/vramfit');
  const { execFileSync } = await import('node:child_process');
  let native;
  try {
    native = JSON.parse(execFileSync(cli, ['--model', 'qwen2.5-7b', '--weights', 'int4', '--context', '32k', '--batch', '4', '--json']));
  } catch (e) {
    if (e.code === 'ENOENT') return t.skip('native CLI not built');
    throw e;
  }
  const web = evaluate({ model: 'qwen2.5-7b', weights: 'int4', context: 32768, batch: 4 });
  assert.deepEqual(web.breakdown, native.breakdown);
  assert.deepEqual(web.gpus, native.gpus);
});
