// `vramfit --draft` and `--also` naming a Hub repository, a :QUANT, a link or a model file, as --model names one
// (issue 31), against tests/hub/server.mjs: nothing leaves the machine. The fixtures vramfit-test/qwen3-0.6b-draft
// (safetensors), vramfit-test/qwen3-0.6b-draft-GGUF (Q8_0) and vramfit-test/qwen3-0.6b-draft-quants-GGUF (Q8_0, F16) hold Qwen3-0.6B's tensors as its config.json implies
// (tests/hub/README.md).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startHub } from '../hub/server.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = process.env.VRAMFIT_CLI ?? path.join(root, 'build/native/cli/vramfit');
const fixtureConfig = path.join(root, 'tests/hub/fixtures/vramfit-test--qwen3-0.6b-draft/config.json');

let hub;
let cache;
before(async () => {
  hub = await startHub();
  cache = mkdtempSync(path.join(tmpdir(), 'vramfit-draft-'));
});
after(async () => {
  await hub.close();
  rmSync(cache, { recursive: true, force: true });
});

function run(args) {
  return new Promise((resolve) => {
    execFile(cli, args, {
      env: { PATH: process.env.PATH, HOME: cache, XDG_CACHE_HOME: cache, HF_ENDPOINT: hub.url,
        VRAMFIT_OLLAMA_REGISTRY: hub.url, HF_HUB_DOWNLOAD_TIMEOUT: '10' },
      timeout: 60_000, maxBuffer: 64 << 20,
    }, (error, stdout, stderr) => resolve({ code: error ? error.code : 0, stdout, stderr }));
  });
}

async function answer(args) {
  const r = await run([...args, '--json']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

// Qwen3-0.6B's parameters, from its config.json (hidden 1024, 28 layers, 16 heads of 128, 8 KV heads, MLP 3072,
// vocabulary 151,936, tied embedding): per layer q 1024×2048 + k 1024×1024 + v 1024×1024 + o 2048×1024 = 6,291,456,
// MLP 3 × 1024 × 3072 = 9,437,184, norms 2 × 1024 + q_norm 128 + k_norm 128 = 2,304, together 15,730,944;
// × 28 = 440,466,432; + embedding 151,936 × 1024 = 155,582,464; + final norm 1024 = 596,049,920 (keras-hub's
// published count for Qwen3-0.6B). In BF16, 2 bytes each: 1,192,099,840 B.
const BF16_BYTES = 1_192_099_840;
// The same in Q8_0 (34 bytes per 32 weights) with the norms in F32: per layer 15,728,640 matrix weights × 34 / 32 =
// 16,711,680 B + 2,304 × 4 = 9,216 B; × 28 = 468,185,088; + token_embd 155,582,464 × 34 / 32 = 165,306,368;
// + output_norm 4,096 = 633,495,552 B in the file. llama-server keeps token_embd in system RAM (get_rows runs on the
// CPU; tied, there is no output.weight): 468,185,088 + 4,096 = 468,189,184 B on the GPU.
const Q8_0_GPU_BYTES = 468_189_184;
// The core places the same whole bytes on each of the 28 layers it offloads (the layers' mean, rounded down): the GPU
// holds the file's sum less at most 27 B.
const LAYERS = 28;
function assertGpuBytes(actual, fileSum) {
  assert.ok(actual <= fileSum && fileSum - actual < LAYERS, `${actual} B on the GPU, the file's ${fileSum} B`);
}

const vllm = ['--model', 'qwen3-8b', '--engine', 'vllm', '--gpu', 'h100-sxm', '--context', '8192', '--draft-tokens', '3'];

test('a draft by Hub id weighs what its config.json and its preset weigh: the header\'s tensors summed', async () => {
  const hubDraft = await answer([...vllm, '--draft', 'vramfit-test/qwen3-0.6b-draft']);
  const configDraft = await answer([...vllm, '--draft', fixtureConfig]);
  const presetDraft = await answer([...vllm, '--draft', 'qwen3-0.6b']);
  assert.equal(hubDraft.draft_model.weights, BF16_BYTES);
  assert.equal(configDraft.draft_model.weights, BF16_BYTES);
  assert.equal(presetDraft.draft_model.weights, BF16_BYTES);
  assert.equal(hubDraft.draft_model.kv_cache, configDraft.draft_model.kv_cache);
  assert.equal(hubDraft.draft_model.name, 'vramfit-test/qwen3-0.6b-draft');
  // vLLM's --speculative-config names the repository read.
  assert.match(hubDraft.command.text, /"model": "vramfit-test\/qwen3-0\.6b-draft"/);
  // Read once, it answers offline from the copy kept (HF_HUB_OFFLINE's rule, as for --model).
  const offline = await answer([...vllm, '--draft', 'vramfit-test/qwen3-0.6b-draft', '--offline']);
  assert.equal(offline.draft_model.weights, BF16_BYTES);
  const never = await run([...vllm, '--draft', 'vramfit-test/qwen3-0.6b-draft-GGUF:Q4_K_M', '--offline']);
  assert.match(never.stderr, /^vramfit: --draft: .*never looked up on this machine/);
  // A link to the repository is the same repository.
  const link = await answer([...vllm, '--draft', `https://huggingface.co/vramfit-test/qwen3-0.6b-draft`]);
  assert.equal(link.draft_model.weights, BF16_BYTES);
});

test('a draft as repo:QUANT and as a .gguf file counts that file\'s exact bytes', async () => {
  const llama = ['--model', 'qwen3-8b', '--engine', 'llamacpp', '--weights', 'q4_k_m', '--context', '4096'];
  const quant = await answer([...llama, '--draft', 'vramfit-test/qwen3-0.6b-draft-GGUF:Q8_0']);
  assertGpuBytes(quant.draft_model.weights, Q8_0_GPU_BYTES);
  assert.equal(quant.draft_model.params, 596_049_920);
  // llama-server fetches a Hub draft itself, by the repository and the quantization read (see the F16 test below).
  assert.match(quant.command.text, / --spec-type draft-simple -hfd vramfit-test\/qwen3-0\.6b-draft-GGUF:Q8_0 --spec-draft-n-max 16/);
  // The preset in the same format (llama.cpp drafts in the format given for the model) weighs the same.
  const preset = await answer(['--model', 'qwen3-8b', '--engine', 'llamacpp', '--weights', 'q8_0', '--context', '4096',
    '--draft', 'qwen3-0.6b']);
  assertGpuBytes(preset.draft_model.weights, Q8_0_GPU_BYTES);
  assert.equal(preset.draft_model.total, quant.draft_model.total);
  // The same file on disk: its header read from the local Hub, the rest of it sparse.
  const url = `${hub.url}/vramfit-test/qwen3-0.6b-draft-GGUF/resolve/main/qwen3-0.6b-draft-Q8_0.gguf`;
  const response = await fetch(url, { headers: { Range: 'bytes=0-16777215' } });
  const size = Number(/\/(\d+)$/.exec(response.headers.get('content-range'))[1]);
  const file = path.join(cache, 'qwen3-0.6b-draft-Q8_0.gguf');
  writeFileSync(file, Buffer.from(await response.arrayBuffer()));
  truncateSync(file, size);
  const local = await answer([...llama, '--draft', file]);
  assertGpuBytes(local.draft_model.weights, Q8_0_GPU_BYTES);
  assert.equal(local.draft_model.kv_cache, quant.draft_model.kv_cache);
  assert.equal(local.draft_model.name, 'qwen3-0.6b-draft-Q8_0.gguf');
  assert.match(local.command.text, / --spec-type draft-simple -md qwen3-0\.6b-draft-Q8_0\.gguf --spec-draft-n-max 16/);
});

// The same tensors with every matrix in F16 (vramfit-test/qwen3-0.6b-draft-quants-GGUF, tests/hub/README.md): per layer
// 15,728,640 × 2 = 31,457,280 B + the norms' 9,216 = 31,466,496; × 28 = 881,061,888; + output_norm 4,096 =
// 881,065,984 B on the GPU beside token_embd's 155,582,464 × 2 = 311,164,928 B in system RAM.
const F16_GPU_BYTES = 881_065_984;

// llama-server's "--spec-draft-hf, -hfd, -hfrd, --hf-repo-draft <user>/<model>[:quant]: Same as --hf-repo, but for the
// draft model" (ggml-org/llama.cpp tools/server/README.md at 00dc8057, generated from common/arg.cpp); common/download.cpp
// (at 0216dab3) find_best_model takes the first .gguf whose path matches QUANT followed by "." or "-",
// case-insensitive: "F16" names qwen3-0.6b-draft-F16.gguf, the file read.
test('a Hub GGUF draft: another quantization of the repository counts its own file; llama-server fetches it by -hfd', async () => {
  const llama = ['--model', 'qwen3-8b', '--engine', 'llamacpp', '--weights', 'q4_k_m', '--context', '4096'];
  const f16 = await answer([...llama, '--draft', 'vramfit-test/qwen3-0.6b-draft-quants-GGUF:F16']);
  assertGpuBytes(f16.draft_model.weights, F16_GPU_BYTES);
  assert.match(f16.command.text, / --spec-type draft-simple -hfd vramfit-test\/qwen3-0\.6b-draft-quants-GGUF:F16 --spec-draft-n-max 16/);
  assert.doesNotMatch(f16.command.text, / -md /);
  const q8 = await answer([...llama, '--draft', 'vramfit-test/qwen3-0.6b-draft-quants-GGUF:Q8_0']);
  assertGpuBytes(q8.draft_model.weights, Q8_0_GPU_BYTES);
  assert.match(q8.command.text, / -hfd vramfit-test\/qwen3-0\.6b-draft-quants-GGUF:Q8_0 /);
});

// The main model read from a Hub GGUF goes the same way: "-hf, -hfr, --hf-repo <user>/<model>[:quant]: Hugging Face
// model repository; quant is optional, case-insensitive [...] mmproj is also downloaded automatically if available. to
// disable, add --no-mmproj" (ggml-org/llama.cpp tools/server/README.md at 25d5b0c5): the file read is fetched by its
// quantization, and --no-mmproj keeps out a projector the estimate does not count.
test('a Hub GGUF model: llama-server fetches the file read by -hf repo:QUANT, its projector left out', async () => {
  const llama = ['--engine', 'llamacpp', '--context', '4096'];
  const hub = await answer(['--model', 'vramfit-test/qwen3-0.6b-draft-quants-GGUF:F16', ...llama]);
  assert.match(hub.command.text, /^llama-server -hf vramfit-test\/qwen3-0\.6b-draft-quants-GGUF:F16 --no-mmproj -c 4096 /);
  assert.doesNotMatch(hub.command.text, / -m /);
  assert.equal(hub.command.note.id, 'command.llamacpp_hub');
  // With a Hub draft too, both come from the Hub; a local file keeps -m and its name.
  const both = await answer(['--model', 'vramfit-test/qwen3-0.6b-draft-quants-GGUF:Q8_0', ...llama,
    '--draft', 'vramfit-test/qwen3-0.6b-draft-quants-GGUF:F16']);
  assert.match(both.command.text, /^llama-server -hf vramfit-test\/qwen3-0\.6b-draft-quants-GGUF:Q8_0 --no-mmproj .* -hfd vramfit-test\/qwen3-0\.6b-draft-quants-GGUF:F16 /);
  const preset = await answer(['--model', 'qwen3-0.6b', ...llama]);
  assert.match(preset.command.text, /^llama-server -m \S+\.gguf /);
  assert.doesNotMatch(preset.command.text, /-hf |--no-mmproj/);
});

test('--also takes a Hub repository with its context, beside a preset', async () => {
  const llama = ['--model', 'qwen3-8b', '--engine', 'llamacpp', '--gpu', 'rtx-4090'];
  const a = await answer([...llama, '--also', 'vramfit-test/qwen3-0.6b-draft-GGUF:Q8_0@4096', '--also', 'qwen3-0.6b@2048']);
  const keys = Object.keys(a.breakdown);
  assert.ok(keys.includes('other_model:vramfit-test/qwen3-0.6b-draft-GGUF@4096'), keys.join(', '));
  assert.ok(keys.includes('other_model:qwen3-0.6b@2048'), keys.join(', '));
  // Its footprint holds at least its weights on the GPU.
  assert.ok(a.breakdown['other_model:vramfit-test/qwen3-0.6b-draft-GGUF@4096'] > Q8_0_GPU_BYTES);
});

test('a draft or other model that cannot be read is named by its flag', async () => {
  const draft = await run(['--model', 'qwen3-8b', '--engine', 'vllm', '--draft', 'vramfit-test/no-such-repo']);
  assert.notEqual(draft.code, 0);
  assert.match(draft.stderr, /^vramfit: --draft: /);
  const also = await run(['--model', 'qwen3-8b', '--engine', 'llamacpp', '--also', 'vramfit-test/no-such-repo@4096']);
  assert.notEqual(also.code, 0);
  assert.match(also.stderr, /^vramfit: --also: /);
});

// llama-server fetches a Hub file from the repository's default branch only: common/hf-cache.cpp (ggml-org/llama.cpp at
// 0216dab3) get_repo_commit keeps `if (_name == "main")` among /api/models/<repo>/refs, for -hf and -hfd alike. The
// model read at another revision is fetched by its URL instead: "-mu, --model-url MODEL_URL | model download url"
// (tools/server/README.md at 00dc8057). The draft has no such flag ("--spec-draft-hf, -hfd, -hfrd, --hf-repo-draft
// <user>/<model>[:quant]" and "--spec-draft-model, -md, --model-draft FNAME" are its only ones there): a note says so.
// The test Hub's vramfit-test/qwen3-0.6b-draft-quants-GGUF has a tag v1 beside main (tests/hub/README.md).
test('a Hub GGUF read at another revision: llama-server fetches that file by its URL; a draft\'s note says -hfd cannot', async () => {
  const llama = ['--engine', 'llamacpp', '--context', '4096'];
  const repo = 'vramfit-test/qwen3-0.6b-draft-quants-GGUF';
  const tagged = await answer(['--model', `${repo}:F16`, '--revision', 'v1', ...llama]);
  assert.match(tagged.command.text,
    /^llama-server -mu https:\/\/huggingface\.co\/vramfit-test\/qwen3-0\.6b-draft-quants-GGUF\/resolve\/v1\/qwen3-0\.6b-draft-F16\.gguf -c 4096 /);
  assert.doesNotMatch(tagged.command.text, / -hf |--no-mmproj/);
  assert.equal(tagged.command.note.id, 'command.llamacpp_hub');
  // "main" is the branch -hf takes: the command stays -hf.
  const main = await answer(['--model', `${repo}:F16`, '--revision', 'main', ...llama]);
  assert.match(main.command.text, /^llama-server -hf vramfit-test\/qwen3-0\.6b-draft-quants-GGUF:F16 --no-mmproj /);
  // A draft read at v1 (a link to its tree there): -hfd keeps the default branch's file, and the note says so.
  const draft = await answer(['--model', 'qwen3-8b', '--weights', 'q4_k_m', ...llama,
    '--draft', `https://huggingface.co/${repo}/tree/v1`]);
  assert.match(draft.command.text, / -hfd vramfit-test\/qwen3-0\.6b-draft-quants-GGUF:Q8_0 /);
  assert.equal(draft.command.note.id, 'command.llamacpp_draft_revision');
  assert.equal(draft.command.note.text, `llama-server fetches the draft's .gguf (-hfd) from the default branch of ${repo}, `
    + 'not from revision v1 read here: fetch that file yourself and give its path to -md.');
});
