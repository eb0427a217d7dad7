// Loads the real vramfit.wasm through its Embind bindings (answer, catalog, answer_file, answer_shards) and checks
// known figures.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { labelValue } from '../../web/js/render/remedies.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dist = process.env.VRAMFIT_DIST ?? path.join(root, 'dist');
// Node's fetch rejects file paths, so Emscripten 3.1.6's loader cannot fetch the .wasm: hand it the bytes.
const { default: createVramfit } = await import(path.join(dist, 'vramfit.mjs'));
const module = await createVramfit({ wasmBinary: readFileSync(path.join(dist, 'vramfit.wasm')) });
const answer = (question, request) => JSON.parse(module.answer(JSON.stringify({ question, ...request })));
const evaluate = (request) => answer('estimate', request);

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
  assert.match(r.error.message.text, /from 1 to 100,000,000/);
  const bad = JSON.parse(module.answer('{not json'));
  assert.equal(bad.ok, false);
  assert.equal(bad.error.field, 'request');
  const unknown = answer('cost', { model: 'llama-3.1-8b' });
  assert.deepEqual([unknown.ok, unknown.error.field], [false, 'question']);
  assert.match(unknown.error.message.text, /allowed: estimate, limits, curve, gpu_ranking, biggest_model, remedies/);
});

test('a request without a question asks for the estimate', () => {
  const request = { model: 'llama-3.1-8b', gpu: 'rtx-4090' };
  assert.equal(module.answer(JSON.stringify(request)), module.answer(JSON.stringify({ ...request, question: 'estimate' })));
});

test('the catalog lists presets, GPUs and dtypes', () => {
  const c = JSON.parse(module.catalog());
  assert.ok(c.models.some((m) => m.id === 'llama-3.1-405b'));
  assert.ok(c.gpus.length >= 50);
  assert.deepEqual(c.dtypes.map((d) => d.name), ['fp32', 'fp16', 'bf16', 'fp8', 'int8', 'int4']);
  assert.deepEqual(c.kv_dtypes.map((d) => d.name), ['fp32', 'fp16', 'bf16', 'fp8', 'q8_0', 'q4_0']);
  assert.equal(c.kv_dtypes.find((d) => d.name === 'q8_0').bits, 8.5);  // 34 B per 32 elements
  const names = c.weight_formats.map((w) => w.name);
  assert.ok(names.includes('q4_k_m') && names.includes('nf4'));
});

test('the catalog names each weight format\'s storage scheme, as the core reads the name', () => {
  const { weight_formats: formats } = JSON.parse(module.catalog());
  const scheme = (name) => formats.find((w) => w.name === name).scheme;
  assert.deepEqual(['bf16', 'int4', 'nf4', 'bnb-int8', 'gptq-4bit-128g', 'awq-4bit-128g', 'q4_k_m'].map(scheme),
    ['plain', 'mixed', 'bnb_nf4', 'bnb_int8', 'gptq', 'awq', 'gguf']);
  assert.ok(formats.every((w) => w.scheme !== ''));
});

test('the catalog carries the request\'s inputs: URL key, kind, range and allowed values', () => {
  const { inputs } = JSON.parse(module.catalog());
  const input = (key, use) => inputs.find((i) => i.key === key && (!use || i.use === use || i.use === 'both'));
  assert.deepEqual(input('engine').values, ['transformers', 'vllm', 'llamacpp', 'sglang', 'ollama', 'mlx']);
  assert.deepEqual(input('mode').values, ['inference', 'train', 'lora', 'qlora', 'grpo']);
  assert.deepEqual(input('offload').values, ['none', 'optimizer', 'params', 'nvme']);
  assert.ok(input('zero').values.includes('FULL_SHARD'));
  assert.deepEqual([input('kv_dtype').url, input('lora_rank').url, input('attn_implementation').url], ['kv', 'rank', 'attn']);
  assert.deepEqual([input('context').kind, input('context').min, input('attn_implementation').kind], ['tokens', 1, 'choice']);
  assert.equal(input('flash_attention'), undefined);  // one setting: --flash-attention is the CLI's alias
  assert.equal(input('budget_per_hour').max, null);  // unbounded
  // "gpus": in inference the GPUs you have (a number) or the ranking's list of GPU ids, a job's GPU count in
  // training; the page's one control for both.
  assert.deepEqual([input('gpus', 'inference').kind, input('gpus', 'training').kind, input('gpus', 'training').url,
    input('gpus', 'inference').url], ['list', 'count', 'gpus', 'gpus']);
  // Every choice the core offers is one it accepts.
  for (const value of input('optimizer').values) assert.equal(evaluate({ mode: 'lora', model: 'gpt2', optimizer: value }).ok, true, value);
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

test('the limits and curve questions', () => {
  const l = answer('limits', { model: 'llama-3.1-8b', gpu: 'rtx-4090' });
  assert.equal(l.ok, true);
  const at = evaluate({ model: 'llama-3.1-8b', context: l.max_context });
  const over = evaluate({ model: 'llama-3.1-8b', context: l.max_context + 1 });
  assert.ok(at.breakdown.total <= l.budget_bytes && over.breakdown.total > l.budget_bytes);
  const c = answer('curve', { model: 'qwen2.5-7b', axis: 'context', points: 256 });
  assert.equal(c.ok, true);
  assert.equal(c.xs.length, c.totals.length);
  assert.equal(c.totals[10], evaluate({ model: 'qwen2.5-7b', context: c.xs[10] }).breakdown.total);
  const b = answer('curve', { model: 'qwen2.5-7b', axis: 'batch', values: [1, 2, 4] });
  assert.deepEqual(b.xs, [1, 2, 4]);
  assert.equal(b.totals[2], evaluate({ model: 'qwen2.5-7b', batch: 4 }).breakdown.total);
  assert.equal(answer('curve', { model: 'qwen2.5-7b', axis: 'width' }).error.field, 'axis');
});

test('with a GPU the report carries speed and cost; $/1M tokens is the hour over its tokens', () => {
  const r = evaluate({ model: 'llama-3.1-8b', engine: 'llamacpp', weights: 'q4_k_m', gpu: 'rtx-4090', usd_per_kwh: 0.3 });
  assert.equal(r.ok, true);
  const d = r.decode_tokens_per_second;
  assert.ok(d.low > 0 && d.low <= d.high);
  assert.deepEqual(r.speed.decode_tokens_per_second, d);
  assert.deepEqual(r.prefill_tokens_per_second, r.speed.prefill_tokens_per_second);
  assert.ok(r.prefill_tokens_per_second.low > d.high);  // a prompt is processed far faster than tokens are made
  assert.equal(r.speed.compute_path, 'int8');
  // Time to first token: the 512-token prompt over the prefill speed, at the opposite ends (fast speed, short time).
  assert.deepEqual(r.time_to_first_token_seconds, r.speed.time_to_first_token_seconds);
  assert.ok(Math.abs(r.time_to_first_token_seconds.low - 512 / r.prefill_tokens_per_second.high) < 1e-9);
  // RTX 4090 at $0.34/h (data/gpus.json): $/1M = 0.34 / (tokens/s × 3600) × 1e6, low end at the fast speed.
  assert.equal(r.cost.usd_per_hour, 0.34);
  assert.ok(Math.abs(r.cost.usd_per_million_tokens.low - (0.34 / (d.high * 3600)) * 1e6) < 1e-9);
  // 450 W × 1 h = 0.45 kWh at $0.30 = $0.135 per hour.
  assert.ok(Math.abs(r.cost.energy.usd_per_hour - 0.135) < 1e-12);
  // An M2 Ultra prefills at its FP32 shader rate; the M5's Neural Accelerators have no published figure.
  const apple = evaluate({ model: 'llama-3.1-8b', engine: 'llamacpp', weights: 'q4_k_m', gpu: 'apple-m2-ultra-192gb' });
  assert.ok(apple.prefill_tokens_per_second.low > 0);
  assert.equal(apple.cost.usd_per_hour, null);
  const m5 = evaluate({ model: 'llama-3.1-8b', engine: 'llamacpp', weights: 'q4_k_m', gpu: 'apple-m5-max-128gb' });
  assert.equal(m5.prefill_tokens_per_second, null);
  assert.equal(m5.time_to_first_token_seconds, null);
  assert.match(m5.speed.prefill_unavailable.text, /no FP16 TFLOPS figure/);
  const none = evaluate({ model: 'llama-3.1-8b' });
  assert.equal(none.speed, null);
  assert.equal(none.decode_tokens_per_second, null);
});

const rankGpus = (request) => answer('gpu_ranking', request);

test('the GPU ranking ranks GPU × count with the cheapest and fastest picks', () => {
  const r = rankGpus({ model: 'llama-3.1-8b', gpus: ['rtx-4090', 'a100-80gb-sxm', 'h100-sxm'] });
  assert.equal(r.ok, true);
  assert.equal(r.ranking.length, 12);  // 3 GPUs × 1, 2, 4, 8
  for (const key of ['gpu', 'count', 'fits', 'free_bytes', 'tokens_per_second', 'usd_per_hour', 'usd_per_million_tokens', 'within_budget', 'note'])
    assert.ok(key in r.ranking[0], key);
  // $0.34 (RTX 4090) < $1.39 (A100 80 GB) < $3.78 (H100 SXM) per hour, one of each fits.
  assert.deepEqual([r.cheapest_per_hour.gpu, r.cheapest_per_hour.count], ['rtx-4090', 1]);
  assert.equal(r.fastest.gpu, 'h100-sxm');
  const first = r.ranking[r.cheapest_per_million_tokens.index];
  assert.equal(first.fits, true);
  const budget = rankGpus({ model: 'llama-3.1-70b', weights: 'bf16', budget_per_hour: 0.01 });
  assert.equal(budget.ok, true);
  assert.equal(budget.cheapest_per_hour, null);
  assert.equal(budget.fastest, null);
  assert.match(budget.notes.map((n) => n.text).join(' '), /Nothing that fits costs at most \$0\.01\/h/);
  const bad = rankGpus({ model: 'llama-3.1-8b', budget_per_hour: -1 });
  assert.deepEqual([bad.ok, bad.error.field], [false, 'budget_per_hour']);
  assert.equal(JSON.parse(module.answer('{')).error.field, 'request');
});

test('the biggest model question names the largest preset and format a card runs', () => {
  const b = answer('biggest_model', { gpu: 'rtx-4090', engine: 'llamacpp', weights: 'q8_0' });
  assert.equal(b.ok, true);
  // The seed article: 24 GB runs 13B in INT8 (today gpt-oss-20b's 20.9B), not a 30B.
  assert.ok(b.biggest.params >= 13e9 && b.biggest.params < 30e9, `${b.biggest.model}: ${b.biggest.params}`);
  assert.ok(b.biggest.free_bytes >= 0);
  assert.equal(answer('biggest_model', { engine: 'llamacpp' }).error.field, 'gpu');
});

test('the wasm and the native CLI print the same numbers', async (t) => {
  const cli = process.env.VRAMFIT_CLI ?? path.join(root, 'build/native/cli/vramfit');
  const { execFileSync } = await import('node:child_process');
  let native;
  try {
    native = JSON.parse(execFileSync(cli, ['--model', 'qwen2.5-7b', '--weights', 'int4', '--context', '32k', '--batch', '4', '--json']));
  } catch (e) {
    // Under CI (scripts/test.sh builds the CLI first) a missing CLI is a failure, not a skip.
    if (e.code === 'ENOENT' && !process.env.CI) return t.skip('native CLI not built');
    throw e;
  }
  const web = evaluate({ model: 'qwen2.5-7b', weights: 'int4', context: 32768, batch: 4 });
  assert.deepEqual(web.breakdown, native.breakdown);
  assert.deepEqual(web.range, native.range);
  assert.deepEqual(web.gpus, native.gpus);
  const args = ['--model', 'llama-3.1-70b', '--weights', 'bf16', '--engine', 'vllm', '--batch', '16', '--context', '4k'];
  const nativeSpeed = JSON.parse(execFileSync(cli, [...args, '--gpu', 'h100-sxm', '--json']));
  const webSpeed = evaluate({ model: 'llama-3.1-70b', weights: 'bf16', engine: 'vllm', batch: 16, context: 4096, gpu: 'h100-sxm' });
  assert.deepEqual(webSpeed.speed, nativeSpeed.speed);
  assert.deepEqual(webSpeed.cost, nativeSpeed.cost);
  const nativeRanking = JSON.parse(execFileSync(cli, [...args, '--rank-gpus', '--budget-per-hour', '20', '--json']));
  const webRanking = rankGpus({ model: 'llama-3.1-70b', weights: 'bf16', engine: 'vllm', batch: 16, context: 4096, budget_per_hour: 20 });
  assert.deepEqual(webRanking, nativeRanking);
});

test('a training request is the same estimate question, by its mode', () => {
  // Seed article's 7B, mixed-precision AdamW, fp32 gradients (HF Trainer): 14 GB weights, 28 GB gradients,
  // 84 GB optimizer states (fp32 master 28 + m 28 + v 28).
  const r = evaluate({ mode: 'train', params: 7e9 });
  assert.equal(r.ok, true);
  assert.equal(r.breakdown.weights, 14e9);
  assert.equal(r.breakdown.gradients, 28e9);
  assert.equal(r.breakdown.optimizer, 84e9);
  assert.equal(typeof r.host_ram_bytes, 'number');
  const bad = evaluate({ mode: 'train', params: 7e9, zero: 7 });
  assert.equal(bad.ok, false);
  assert.equal(bad.error.field, 'zero');
});

test('a dropped GGUF is read from its header alone', () => {
  // tests/data/tiny_llama_v3.gguf.head: the first 4,096 bytes of a 758,032-byte GGUF v3 written by the
  // unit tests' file builder (tests/unit/file_builders.hpp, via tests/fuzz/make_seed_corpus.cpp): the page
  // hands the core File.slice(0, n) and the size, never the tensor data.
  const head = readFileSync(path.join(root, 'tests/data/tiny_llama_v3.gguf.head'));
  const fileSize = 758032;
  const ask = (n) => JSON.parse(module.answer_file(head.subarray(0, n), fileSize, 'tiny.gguf', '{}'));
  const first = ask(64);
  assert.equal(first.ok, true);
  assert.ok(first.need_prefix_bytes > 64 && first.need_prefix_bytes <= 4096);
  const r = ask(first.need_prefix_bytes);
  assert.equal(r.ok, true);
  // Tensor data starts at the alignment-padded end of the header (offset 2,048) and runs to the end of the
  // file: 758,032 − 2,048 = 755,984 bytes of weights, exactly.
  assert.equal(r.breakdown.weights, 755984);
  assert.equal(r.model.name, 'tiny llama');
  const wrong = JSON.parse(module.answer_file(head.subarray(0, 16), fileSize, 'notes.txt', '{}'));
  assert.equal(wrong.ok, false);
  assert.equal(wrong.error.field, 'file');
});

test('a model file answers the other questions too: its curve is its estimates', () => {
  const head = readFileSync(path.join(root, 'tests/data/tiny_llama_v3.gguf.head'));
  const ask = (request) => JSON.parse(module.answer_file(head, 758032, 'tiny.gguf', JSON.stringify(request)));
  const curve = ask({ question: 'curve', axis: 'context', values: [64, 512] });
  assert.equal(curve.ok, true, JSON.stringify(curve.error));
  assert.deepEqual(curve.xs, [64, 512]);
  assert.equal(curve.totals[1], ask({ question: 'estimate', context: 512 }).breakdown.total);
  assert.equal(ask({ question: 'limits', gpu: 'rtx-4090' }).ok, true);
  assert.equal(ask({ question: 'remedies', gpu: 'rtx-4090' }).ok, true);
  assert.equal(ask({ question: 'estimate', mode: 'lora' }).mode, 'lora');
  assert.equal(ask({ question: 'biggest_model', gpu: 'rtx-4090' }).error.field, 'question');
});

test('a sharded safetensors checkpoint is read shard header by shard header', () => {
  // Two shards in the safetensors layout (README): 8-byte little-endian header length, the JSON header,
  // then the data. Shard 1: a BF16 [4, 4] tensor (16 params, 32 B); shard 2: a BF16 [2, 8] one (16, 32 B).
  const shard = (name, shape) => {
    const header = Buffer.from(JSON.stringify({ [name]: { dtype: 'BF16', shape, data_offsets: [0, 32] } }));
    const length = Buffer.alloc(8);
    length.writeBigUInt64LE(BigInt(header.length));
    return Buffer.concat([length, header, Buffer.alloc(32)]);
  };
  const files = [
    { name: 'model-00001-of-00002.safetensors', data: shard('a.weight', [4, 4]) },
    { name: 'model-00002-of-00002.safetensors', data: shard('b.weight', [2, 8]) },
  ];
  const index = JSON.stringify({ metadata: { total_size: 64 }, weight_map: {
    'a.weight': 'model-00001-of-00002.safetensors', 'b.weight': 'model-00002-of-00002.safetensors' } });
  const prefix = files.map(() => 8);  // start with the length field alone, as the page does
  let r;
  for (let round = 0; round < 8; round++) {
    r = JSON.parse(module.answer_shards(
      files.map((f, i) => ({ name: f.name, size: f.data.length, bytes: f.data.subarray(0, prefix[i]) })), index, '{}'));
    if (!r.need_prefix_bytes) break;
    prefix[r.need_file] = r.need_prefix_bytes;
  }
  assert.equal(r.ok, true, JSON.stringify(r.error));
  assert.equal(r.model.params_total, 32);  // 16 + 16, no config.json: a bare count
  assert.equal(r.breakdown.weights, 64);   // 2 × 16 params × 2 B, the index's total_size
  const missing = JSON.parse(module.answer_shards([{ name: files[0].name, size: files[0].data.length,
    bytes: files[0].data }], index, '{}'));
  assert.equal(missing.ok, false);
});

test('remedies: the strategies re-estimated by the core, training by its mode', () => {
  // Mixed-precision AdamW keeps 18 B per parameter; ZeRO-Offload leaves only the 2 B weights on the GPU:
  // 16 B × 7e9 = 112e9 saved and moved to host RAM (Ren et al. 2021).
  const t = answer('remedies', { mode: 'train', params: 7e9 });
  assert.equal(t.ok, true);
  assert.equal(t.bytes, 126536870912);
  const offload = t.remedies.find((r) => r.id === 'offload-optimizer');
  assert.equal(offload.saved_bytes, 112e9);
  assert.equal(offload.host_ram_bytes, 112e9);
  assert.deepEqual(offload.inputs, { offload: 'optimizer', zero: '2' });
  // vLLM at 4096 tokens: an fp8 cache stores Llama-2-7B's 2 × 32 × 4096 values per token in 1 B instead of
  // 2 B: 2 × 32 × 4096 × 4096 = 1,073,741,824 B saved.
  const v = answer('remedies', { model: 'llama-2-7b', engine: 'vllm', context: 4096 });
  assert.equal(v.remedies.find((r) => r.id === 'kv-8bit').saved_bytes, 1073741824);
  assert.equal(answer('remedies', { model: 'llama-2-7b', batch: 0 }).error.field, 'batch');
});

test('a remedy\'s label names its own input, whatever order the JSON keys come in', () => {
  // llama.cpp quantizes the V cache only with flash attention, so the 8-bit cache also switches eager
  // attention to SDPA: two inputs, written in key order, and the label still shows the cache type.
  const r = JSON.parse(module.answer(JSON.stringify({ question: 'remedies', model: 'llama-2-7b', engine: 'llamacpp', attention: 'eager' })));
  const kv = r.remedies.find((x) => x.id === 'kv-8bit');
  assert.deepEqual(Object.keys(kv.inputs), ['attention', 'kv_dtype']);
  assert.equal(labelValue(kv), 'q8_0');
  const t = JSON.parse(module.answer(JSON.stringify({ question: 'remedies', mode: 'train', model: 'llama-3.1-8b', micro_batch: 4 })));
  assert.deepEqual(Object.keys(t.remedies.find((x) => x.id === 'micro-batch-1').inputs), ['grad_accum', 'micro_batch']);
});

test('every breakdown figure has the core\'s explanation, in every engine and training mode', () => {
  // The page makes a figure a button only where the core explains it; this keeps none of them plain.
  const scenarios = [
    { model: 'llama-2-7b' }, { model: 'llama-2-7b', engine: 'vllm', gpu: 'rtx-4090' },
    { model: 'deepseek-v3', engine: 'llamacpp', weights: 'q4_k_m' }, { params: 7e9 },
    { model: 'llama-2-7b', mode: 'train' }, { model: 'llama-2-7b', mode: 'lora' }, { model: 'llama-2-7b', mode: 'qlora' },
    { model: 'llama-2-7b', mode: 'train', gpus: 4, zero: 3, offload: 'optimizer' },
    { model: 'llama-2-7b', mode: 'train', precision: 'fp32' }, { model: 'llama-2-7b', mode: 'train', precision: 'bf16' },
    { params: 7e9, mode: 'train' }, { params: 7e9, engine: 'vllm' },
    // Part of the model in system RAM: -ngl, Ollama's layers (its estimator), llama.cpp's --fit (Ollama's from 0.30,
    // with a vision projector beside it).
    { model: 'llama-3.1-8b', engine: 'llamacpp', gpu: 'rtx-4090', gpu_layers: 16 },
    { model: 'llama-3.1-8b', engine: 'ollama', engine_version: '0.11.10', gpu: 'rtx-4060', context: 8192 },
    { model: 'gemma-3-27b', engine: 'ollama', weights: 'q8_0', gpu: 'rtx-4090', context: 32768 },
    { model: 'llama-3.1-70b', engine: 'llamacpp', weights: 'q4_k_m', gpu: 'rtx-3090', context: 4096 },
    // Memory other programs hold, as each engine meets it.
    { model: 'llama-3.1-8b', gpu: 'rtx-4090', memory_in_use: 1.5 },
    { model: 'llama-3.1-8b', engine: 'vllm', gpu: 'rtx-a6000', memory_in_use: 15 },
    { model: 'llama-3.1-8b', engine: 'sglang', gpu: 'h100', memory_in_use: 6 },
    { model: 'llama-3.1-8b', engine: 'ollama', gpu: 'rtx-4090', memory_in_use: 6 },
    { model: 'llama-3.1-8b', engine: 'mlx', gpu: 'apple-m4-pro-64gb', memory_in_use: 20 },
  ];
  let placed = 0;
  for (const request of scenarios) {
    const r = evaluate(request);
    assert.equal(r.ok, true, JSON.stringify(request));
    if (r.breakdown.system_ram > 0) placed += 1;
    const explained = new Set(r.explanations.map((e) => e.key));
    for (const [key, bytes] of Object.entries(r.breakdown)) {
      // System RAM is a line only where the engine keeps part of the model there, memory in use only where it is
      // given, the vision encoder only for a vision model (0 otherwise, not shown).
      if (typeof bytes === 'number' && !((key === 'system_ram' || key === 'in_use' || key === 'vision_encoder') && bytes === 0)) {
        assert.ok(explained.has(key), `${JSON.stringify(request)}: ${key}`);
      }
    }
  }
  // Gemma 3 27B Q8_0 (about 29 GB with its projector) too: --fit leaves layers in RAM; and Ollama's Llama 3.1 8B in
  // F16 (16.06 GB of weights, 4 GiB of KV cache at 32768) beside 6 GiB in use: 24 − 6 − 1 (--fit's margin) GiB is less.
  assert.equal(placed, 5);
});

test('the core\'s notes and messages name no CLI flag: they reach the page too', () => {
  // The CLI adds its own flag hints (--list-gpus); a page user has no --tokens, --weights or --gpu.
  const requests = [
    { model: 'llama-2-7b', mode: 'train', gpu: 'a100-80gb-sxm' }, { model: 'llama-2-7b', gpu: 'voodoo' },
    { model: 'llama-2-7b', mode: 'train', tokens: 1e9 },
    { config: JSON.stringify({ model_type: 'llama', hidden_size: 4096, intermediate_size: 11008, num_attention_heads: 32,
      num_hidden_layers: 32, vocab_size: 32000, quantization_config: { quant_method: 'exotic' } }) },
    { model: 'llama-3.1-8b', engine: 'vllm' }, { model: 'llama-3.1-8b', engine: 'vllm', gpu: 'rtx-3060-12gb', context: 131072 },
    { model: 'qwen2.5-7b', weights: 'q4_k_m' }, { model: 'llama-3.1-70b', gpu: 'rtx-4090' },
  ];
  for (const request of requests) {
    const text = ['estimate', 'remedies', 'limits', 'gpu_ranking', 'biggest_model']
      .map((question) => JSON.stringify(answer(question, request))).join('');
    assert.doesNotMatch(text, /--(?:tokens|weights|gpu|context|engine|rank-gpus|remedies|list-gpus)\b/, JSON.stringify(request));
  }
  // A question that needs a GPU says so without a flag.
  for (const question of ['limits', 'biggest_model']) {
    const r = answer(question, { model: 'llama-3.1-8b' });
    assert.equal(r.ok, false);
    assert.equal(r.error.field, 'gpu');
    assert.doesNotMatch(r.error.message.text, /--/);
  }
});

test('several questions in one call answer exactly what each asked alone answers', () => {
  const scenario = { model: 'llama-2-13b', gpu: 'rtx-4090', context: 4096 };
  const curve = (axis) => ({ question: 'curve', axis, points: 32, spacing: 'log' });
  const r = JSON.parse(module.answer(JSON.stringify({ ...scenario, questions: ['estimate',
    { question: 'estimate', every_gpu: true }, { question: 'gpu_ranking', every_gpu: true }, 'remedies', curve('context'),
    curve('batch')] })));
  assert.equal(r.ok, true);
  const { gpu, ...withoutGpu } = scenario;
  assert.equal(gpu, 'rtx-4090');
  assert.deepEqual(r.answers, [answer('estimate', scenario), answer('estimate', withoutGpu),
    answer('gpu_ranking', withoutGpu), answer('remedies', scenario), answer('curve', { ...scenario, ...curve('context') }),
    answer('curve', { ...scenario, ...curve('batch') })]);
  // The page's chart range: 256 to the model's 4096-token context (at least 2048), 1 to 256 sequences, log-spaced.
  assert.deepEqual([r.answers[4].xs[0], r.answers[4].xs.at(-1), r.answers[5].xs[0], r.answers[5].xs.at(-1)], [256, 4096, 1, 256]);
});

test('a training curve comes from the core, each point the training estimate at that sequence', () => {
  const scenario = { mode: 'lora', model: 'llama-2-7b', gpu: 'rtx-4090' };
  const curve = answer('curve', { ...scenario, axis: 'context', values: [512, 2048] });
  assert.equal(curve.ok, true);
  assert.deepEqual(curve.lines.map((l) => l.key),
    ['weights', 'gradients', 'optimizer', 'master_weights', 'activations', 'temporary', 'overhead']);
  for (const [i, sequence] of [512, 2048].entries()) {
    assert.equal(curve.totals[i], evaluate({ ...scenario, sequence }).breakdown.total);
  }
  const batch = answer('curve', { ...scenario, axis: 'batch', values: [1, 4] });
  assert.equal(batch.totals[1], evaluate({ ...scenario, micro_batch: 4 }).breakdown.total);
});

test('several questions about a model file: its training curves in the same call', () => {
  const head = readFileSync(path.join(root, 'tests/data/tiny_llama_v3.gguf.head'));
  const ask = (request) => JSON.parse(module.answer_file(head, 758032, 'tiny_llama_v3.gguf', JSON.stringify(request)));
  const r = ask({ mode: 'qlora', context: 256, questions: ['estimate', { question: 'curve', values: [128, 256] }] });
  assert.equal(r.ok, true);
  assert.equal(r.answers[0].mode, 'qlora');
  assert.equal(r.answers[1].totals[1], r.answers[0].breakdown.total);
  assert.equal(r.answers[1].totals[0], ask({ mode: 'qlora', context: 128 }).breakdown.total);
});

test('GRPO through the wasm: its lines and inputs, and the phase rule of its total', () => {
  const r = evaluate({ mode: 'grpo', policy: 'lora', model: 'llama-3.1-8b', completion_tokens: 1024, num_generations: 4 });
  assert.equal(r.ok, true);
  assert.equal(r.mode, 'grpo');
  assert.deepEqual([r.inputs.policy, r.inputs.sampler, r.inputs.prompt_tokens, r.inputs.completion_tokens], ['lora', 'hf', 512, 1024]);
  const b = r.breakdown;
  assert.equal(b.reference_model, 0);  // beta 0: TRL loads no reference model
  // 4 completions × 1536 tokens × 131,072 B of bf16 KV (Llama 3.1 8B) + 4 × 4 × 128,256 B of fp32 logits.
  assert.equal(r.grpo.sampling, 4 * 1536 * 131072 + 4 * 4 * 128256);
  // Generation runs in the memory the training step frees: the line is the excess, and the lines add up.
  assert.equal(b.sampling, Math.max(0, r.grpo.sampling - b.activations - b.temporary));
  assert.equal(b.total, b.weights + b.gradients + b.optimizer + b.activations + b.temporary + b.reference_model +
    b.sampling + b.overhead);
  assert.equal(evaluate({ mode: 'lora', model: 'gpt2', beta: 0.1 }).error.field, 'beta');
});

// Ollama from 0.30 runs llama-server (tests/unit/memory/test_ollama_server.cpp pins it by hand): Qwen3-30B-A3B F16
// on an RTX 4090 keeps Ollama's 32768-token default and moves experts; the page words the plan without llama-server's
// --n-cpu-moe, which Ollama's command cannot pass.
test('Ollama 0.30+ crosses as engine ollama with llama.cpp\'s fit plan, worded without llama-server flags', async () => {
  const { fitPlanText } = await import('../../web/js/render/engine-plan.js');
  const { translator } = await import('../../web/js/i18n/i18n.js');
  const { makeFormat } = await import('../../web/js/i18n/format.js');
  const r = evaluate({ model: 'qwen3-30b-a3b', engine: 'ollama', engine_version: '0.33.0', weights: 'f16', gpu: 'rtx-4090' });
  assert.equal(r.ok, true);
  assert.equal(r.inputs.engine, 'ollama');
  assert.equal(r.inputs.context, 32768);
  assert.equal(r.llamacpp_fit.context, 32768);
  assert.equal(r.llamacpp_fit.step, 'experts');
  assert.equal(r.command.text, 'ollama serve  # Ollama 0.33.0');
  for (const lang of ['en', 'de']) {
    const text = fitPlanText(r.llamacpp_fit, translator(lang), makeFormat(lang), r.inputs.engine);
    assert.doesNotMatch(text, /n-cpu-moe/);
    assert.match(text, lang === 'en' ? /stay in system RAM/ : /bleiben im Arbeitsspeicher/);
  }
});

test('a card by its numbers crosses the bindings: named by its figures, in the catalog of its answer, refused by field', () => {
  // 48 GB is 48 GiB on a card: 48 × 2³⁰ = 51,539,607,552 B; Llama-3.1-8B in BF16 at 8k needs 16.06 GB of weights and
  // 1.07 GB of KV cache (the first test), so the free memory is 48 GiB less the total.
  const own = evaluate({ model: 'llama-3.1-8b', context: 8192, gpu: 'custom', gpu_memory: 48, gpu_bandwidth: '1008' });
  assert.equal(own.ok, true);
  const [card] = own.gpus;
  assert.deepEqual([card.id, card.custom, card.name, card.memory_bytes], ['custom', 'custom', 'Custom card, 48 GB, 1008 GB/s', 51539607552]);
  assert.equal(card.free_bytes, 51539607552 - own.breakdown.total);
  assert.ok(own.notes.some((n) => n.id === 'gpu.custom_note'));
  const like = answer('gpu_ranking', { model: 'llama-3.1-8b', gpu: 'rtx-4090', gpu_memory: '48GB' });
  assert.equal(like.ok, true);
  assert.ok(like.ranking.some((c) => c.gpu === 'rtx-4090-with-48gb' && c.name === 'GeForce RTX 4090 (48 GB)' && c.usd_per_hour === null));
  const refused = evaluate({ model: 'llama-3.1-8b', gpu: 'custom', gpu_memory: '48 TB' });
  assert.equal(refused.ok, false);
  assert.equal(refused.error.field, 'gpu_memory');
  assert.equal(refused.error.message.id, 'input.size_range');
});
