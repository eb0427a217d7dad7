// The preflight action (action.yml) runs scripts/preflight.sh: its exit status is the CLI's --check, and it writes
// the step's outputs (verdict, free-bytes, command) to $GITHUB_OUTPUT as GitHub Actions reads them (name=value lines).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = process.env.VRAMFIT_CLI ?? path.join(root, 'build/native/cli/vramfit');

function preflight(inputs) {
  const dir = mkdtempSync(path.join(tmpdir(), 'vramfit-preflight-'));
  const output = path.join(dir, 'output');
  writeFileSync(output, '');
  try {
    const run = spawnSync('bash', [path.join(root, 'scripts/preflight.sh')], {
      encoding: 'utf8',
      env: { ...process.env, VRAMFIT: cli, GPUS: '1', ENGINE: 'transformers', CONTEXT: '', WEIGHTS: '', ...inputs, GITHUB_OUTPUT: output },
    });
    const outputs = Object.fromEntries(readFileSync(output, 'utf8').split('\n').filter(Boolean)
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
    return { status: run.status, stdout: run.stdout, stderr: run.stderr, outputs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a model that fits passes, with its verdict, free memory and command as outputs', () => {
  // Llama 3.1 8B bf16 (16.06 GB of weights) under vLLM on an 80 GB H100.
  const r = preflight({ MODEL: 'llama-3.1-8b', GPU: 'h100-sxm', ENGINE: 'vllm', CONTEXT: '8k' });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^pass: Fits on one NVIDIA H100 SXM/);
  assert.equal(r.outputs.verdict, 'fits');
  assert.ok(Number(r.outputs['free-bytes']) > 0);
  assert.match(r.outputs.command, /^vllm serve meta-llama\/Llama-3\.1-8B .*--max-model-len 8192/);
});

test('a model that does not fit fails the step, over several GPUs too', () => {
  // Llama 3.1 70B bf16: 141.1 GB of weights against 2 × 24 GB.
  const r = preflight({ MODEL: 'llama-3.1-70b', GPU: 'rtx-4090', GPUS: '2', ENGINE: 'llamacpp', WEIGHTS: 'bf16', CONTEXT: '4096' });
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stdout, /^fail: /);
  assert.equal(r.outputs.verdict, 'does_not_fit');
  assert.ok(Number(r.outputs['free-bytes']) < 0);
});

test('a wrong input fails with status 2, naming it, and sets no outputs', () => {
  const r = preflight({ MODEL: 'llama-3.1-8b', GPU: 'no-such-card' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /vramfit: --gpu: /);
  assert.deepEqual(r.outputs, {});
});
