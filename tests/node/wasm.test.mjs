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
  const { weights, kv_cache, activations, overhead, allocator_reserve, total } = r.breakdown;
  assert.equal(total, weights + kv_cache + activations + overhead + allocator_reserve);
  assert.ok(r.range.low <= total && total <= r.range.high && r.range.drivers.length > 0);
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
  assert.deepEqual(c.kv_dtypes.map((d) => d.name), ['fp32', 'fp16', 'bf16', 'fp8', 'q8_0', 'q4_0']);
  assert.equal(c.kv_dtypes.find((d) => d.name === 'q8_0').bits, 8.5);  // 34 B per 32 elements
  assert.deepEqual(c.engines, ['transformers', 'vllm', 'llamacpp']);
  assert.ok(c.weight_formats.includes('q4_k_m') && c.weight_formats.includes('nf4'));
});

test('llama.cpp buffers through the wasm match the Llama-3-8B log (560.00 MiB compute, -fa off)', () => {
  const r = evaluate({ model: 'llama-3.1-8b', engine: 'llamacpp', weights: 'q4_k_m', context: 8192, attention: 'eager' });
  assert.equal(r.ok, true);
  assert.equal(r.llamacpp.compute_buffer_bytes, 560 * 1024 * 1024);
  assert.equal(r.breakdown.weights, 4617396224);  // "CUDA0 buffer size = 4403.49 MiB"
  assert.equal(r.llamacpp.host_weights_bytes, 295501824);  // "CPU buffer size = 281.81 MiB"
});

test('vLLM reports KV capacity and concurrency on a GPU', () => {
  const r = evaluate({ model: 'llama-3.1-8b', engine: 'vllm', gpu: 'h100-sxm', context: 8192 });
  assert.equal(r.ok, true);
  assert.equal(r.vllm.kv_capacity_tokens, r.vllm.num_blocks * 16);
  assert.equal(r.vllm.max_concurrency, Math.floor(r.vllm.num_blocks / 512));  // 8192 / 16 blocks per sequence
});

test('solve and memory_curve bindings', () => {
  const l = JSON.parse(module.solve(JSON.stringify({ model: 'llama-3.1-8b', gpu: 'rtx-4090' })));
  assert.equal(l.ok, true);
  const at = evaluate({ model: 'llama-3.1-8b', context: l.max_context });
  const over = evaluate({ model: 'llama-3.1-8b', context: l.max_context + 1 });
  assert.ok(at.breakdown.total <= l.budget_bytes && over.breakdown.total > l.budget_bytes);
  const c = JSON.parse(module.memory_curve(JSON.stringify({ model: 'qwen2.5-7b', axis: 'context', points: 256 })));
  assert.equal(c.ok, true);
  assert.equal(c.x.length, c.total.length);
  assert.equal(c.total[10], evaluate({ model: 'qwen2.5-7b', context: c.x[10] }).breakdown.total);
  const b = JSON.parse(module.memory_curve(JSON.stringify({ model: 'qwen2.5-7b', axis: 'batch', values: [1, 2, 4] })));
  assert.deepEqual(b.xs, [1, 2, 4]);
  assert.equal(b.totals[2], evaluate({ model: 'qwen2.5-7b', batch: 4 }).breakdown.total);
  assert.equal(JSON.parse(module.memory_curve(JSON.stringify({ model: 'qwen2.5-7b', axis: 'width' }))).error.field, 'axis');
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
  assert.deepEqual(web.range, native.range);
  assert.deepEqual(web.gpus, native.gpus);
});
