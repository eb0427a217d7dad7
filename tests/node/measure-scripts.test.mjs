// The measurement scripts (scripts/measure/*.py) turn an engine's startup log into validation rows: each figure is
// the last line of its kind, quoted as printed. The logs here are lines engines printed, as published.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const python = spawnSync('python3', ['--version']).status === 0;

function rows(script, log, args) {
  const run = spawnSync('python3', [path.join(root, 'scripts/measure', script), '--log', '-', ...args,
    '--source-url', 'https://github.com/vllm-project/vllm/issues/21348'], { input: log, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(`[${run.stdout}]`);
}

test('vLLM: the pool and its tokens, from the last rank that printed them', { skip: !python && 'no python3' }, () => {
  // vllm-project/vllm#21348 (Qwen3-235B-A22B-FP8, TP 4): "Available KV cache memory: 8.11 GiB",
  // "GPU KV cache size: 178,880 tokens". A rank printed earlier with another figure stands first.
  const log = [
    '(VllmWorker rank=1 pid=11) INFO [gpu_worker.py:276] Available KV cache memory: 8.09 GiB',
    '(VllmWorker rank=0 pid=10) INFO [gpu_worker.py:276] Available KV cache memory: 8.11 GiB',
    'INFO [kv_cache_utils.py:829] GPU KV cache size: 178,880 tokens',
  ].join('\n');
  const out = rows('vllm.py', log, ['--model', 'qwen3-235b-a22b', '--gpu', 'h100-sxm', '--context', '40960', '--tp', '4',
    '--id', 'vllm-qwen3-235b', '--version', '0.9.2']);
  assert.deepEqual(out.map((r) => [r.answer_path, r.figure, r.unit]),
    [['/vllm/kv_capacity_bytes', 8.11, 'GiB'], ['/vllm/kv_capacity_tokens', 178880, 'tokens']]);
  assert.equal(out[0].source.quote, 'Available KV cache memory: 8.11 GiB');
  assert.equal(out[0].id, 'vllm-qwen3-235b-kv-capacity-bytes');
  assert.deepEqual(out[0].request, { model: 'qwen3-235b-a22b', engine: 'vllm', gpu: 'h100-sxm', context: 40960,
    engine_version: '0.9.2', tp: 4 });
  assert.equal(out[0].source.repo, 'vllm-project/vllm');
});

test('SGLang: the pool in tokens, quoted as printed', { skip: !python && 'no python3' }, () => {
  // sgl-project/sglang docs (Llama 3.1 8B on an H100): "max_total_num_tokens=444500, ..., context_len=131072".
  const out = rows('sglang.py', 'max_total_num_tokens=444500, chunked_prefill_size=8192, context_len=131072',
    ['--model', 'llama-3.1-8b', '--gpu', 'h100-sxm', '--context', '131072', '--id', 'sglang-llama', '--version', '0.4.1']);
  assert.equal(out.length, 1);
  assert.equal(out[0].figure, 444500);
  assert.equal(out[0].source.quote, 'max_total_num_tokens=444500');
  assert.equal(out[0].id, 'sglang-llama-tokens');
});

test('a log without the lines says so and fails', { skip: !python && 'no python3' }, () => {
  const run = spawnSync('python3', [path.join(root, 'scripts/measure/vllm.py'), '--log', '-', '--model', 'x', '--gpu',
    'h100-sxm', '--context', '1', '--id', 'x', '--source-url', 'https://example.org'], { input: 'nothing', encoding: 'utf8' });
  assert.notEqual(run.status, 0);
  assert.match(run.stderr, /no figure found/);
});
