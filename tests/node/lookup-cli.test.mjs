// `vramfit --model <a Hub id, link, :QUANT or Ollama name>` against tests/hub/server.mjs, a local server that speaks
// the Hub's and Ollama's registry protocols with real file lists and sizes (tests/hub/README.md gives each figure's
// source). Nothing here leaves the machine: HF_ENDPOINT and VRAMFIT_OLLAMA_REGISTRY point at the local server.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startHub } from '../hub/server.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = process.env.VRAMFIT_CLI ?? path.join(root, 'build/native/cli/vramfit');

let hub;
let cache;
before(async () => {
  hub = await startHub();
  cache = mkdtempSync(path.join(tmpdir(), 'vramfit-cache-'));
});
after(async () => {
  await hub.close();
  rmSync(cache, { recursive: true, force: true });
});

function run(args, env = {}) {
  return new Promise((resolve) => {
    const started = Date.now();
    execFile(cli, args, {
      env: { PATH: process.env.PATH, HOME: cache, XDG_CACHE_HOME: cache, HF_ENDPOINT: hub.url,
        VRAMFIT_OLLAMA_REGISTRY: hub.url, HF_HUB_DOWNLOAD_TIMEOUT: '10', ...env },
      timeout: 60_000, maxBuffer: 64 << 20,
    }, (error, stdout, stderr) => resolve({ code: error ? error.code : 0, stdout, stderr, ms: Date.now() - started }));
  });
}

async function answer(model, extra = [], env = {}) {
  const r = await run(['--model', model, '--json', ...extra], env);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

// What the server sent while `body` ran, for the assertion that only JSON and headers came down.
async function sent(body) {
  const from = hub.requests.length;
  await body();
  return hub.requests.slice(from);
}

test('a Hub id is read from config.json and its shards\' headers: the Hub\'s parameter count, no weights', async () => {
  const requests = await sent(async () => {
    const a = await answer('microsoft/phi-4', ['--gpu', 'rtx-4090']);
    // The Hub's model API: safetensors.total 14,659,507,200 (BF16) for microsoft/phi-4 (tests/hub/README.md).
    assert.equal(a.model.params_total, 14_659_507_200);
    assert.equal(a.lookup.source, `${hub.url}/microsoft/phi-4`);
    assert.match(a.lookup.summary.text, /config\.json and the headers of 6 safetensors files.*14,659,507,200 parameters \(BF16\)/);
    // BF16: 2 bytes a parameter, 14,659,507,200 × 2 = 29,319,014,400 B.
    assert.equal(a.breakdown.weights, 29_319_014_400);
  });
  const weights = requests.filter((r) => /\.safetensors/.test(r.path) || r.path.startsWith('/cdn/'));
  assert.ok(weights.length >= 6);
  for (const r of weights) assert.ok(r.range && r.bytesSent <= 256 * 1024, `${r.path} sent ${r.bytesSent} B`);
});

test('a -GGUF:QUANT repository answers with that file\'s exact bytes; a link and no quant pick as llama.cpp -hf', async () => {
  const a = await answer('unsloth/gpt-oss-20b-GGUF:Q4_K_M');
  // gpt-oss-20b-Q4_K_M.gguf is 11,624,759,488 B on the Hub; its tensors are all of it but the header (a few MB).
  const file = 11_624_759_488;
  assert.ok(a.breakdown.weights <= file && a.breakdown.weights > file - 16 * 2 ** 20, String(a.breakdown.weights));
  assert.equal(a.lookup.gguf.quant, 'Q4_K_M');
  assert.equal(a.lookup.gguf.picked, 'asked');
  const bare = await answer('https://huggingface.co/unsloth/gpt-oss-20b-GGUF');
  assert.equal(bare.lookup.gguf.picked, 'default');  // llama.cpp's -hf: "default to Q4_K_M"
  assert.equal(bare.breakdown.weights, a.breakdown.weights);
  const f16 = await answer('hf.co/unsloth/gpt-oss-20b-GGUF:f16');
  assert.ok(f16.breakdown.weights > file);  // 13,786,023,936 B on the Hub
  const table = await run(['--model', 'unsloth/gpt-oss-20b-GGUF:Q4_K_M']);
  assert.match(table.stdout, /^unsloth\/gpt-oss-20b-GGUF: Q4_K_M, 11,624,759,488 B in 1 file \(as asked\)/);
});

test('a GGUF in parts is read part by part and costed as one model', async () => {
  const a = await answer('unsloth/Qwen3-235B-A22B-Instruct-2507-GGUF:Q4_K_M');
  assert.equal(a.lookup.gguf.choices[0].files, 3);
  const size = a.lookup.gguf.choices[0].size;
  assert.ok(a.breakdown.weights <= size && a.breakdown.weights > size - 3 * 16 * 2 ** 20);
});

test('a gated repository says so without a token, and reads with one; the token goes to the endpoint', async () => {
  const denied = await run(['--model', 'meta-llama/Llama-3.1-8B-Instruct', '--revision', 'main']);
  assert.equal(denied.code, 2);
  assert.match(denied.stderr, /--model: meta-llama\/Llama-3\.1-8B-Instruct is gated: its files need an approved Hugging Face account/);
  const wrong = await run(['--model', 'meta-llama/Llama-3.1-8B-Instruct', '--revision', 'main'], { HF_TOKEN: 'hf_wrong' });
  assert.match(wrong.stderr, /HF_TOKEN has not been granted access/);
  const requests = await sent(async () => {
    const ok = await answer('meta-llama/Llama-3.1-8B-Instruct', ['--revision', 'main'], { HF_TOKEN: 'hf_test_token' });
    assert.equal(ok.model.params_total, 8_030_261_248);  // Llama 3.1 8B's model card: 8.03 B
  });
  // The token goes to the endpoint (here the CDN shares its origin; tests/unit/cli/test_http_fetch.cpp checks that
  // another host never gets it).
  const resolves = requests.filter((q) => q.path.includes('/resolve/'));
  assert.ok(resolves.length > 0);
  for (const r of resolves) assert.equal(r.authorization, 'Bearer hf_test_token', r.path);
});

test('a model read once answers offline from the cache, and says so; one never read says that instead', async () => {
  await answer('unsloth/gpt-oss-20b-GGUF:Q4_K_M');
  const before = hub.requests.length;
  const offline = await answer('unsloth/gpt-oss-20b-GGUF:Q4_K_M', ['--offline']);
  assert.equal(hub.requests.length, before);
  assert.equal(offline.lookup.offline, true);
  const again = await run(['--model', 'unsloth/gpt-oss-20b-GGUF:Q4_K_M'], { HF_HUB_OFFLINE: '1' });
  assert.match(again.stdout, /answered offline from what an earlier lookup read/);
  const never = await run(['--model', 'microsoft/never-read', '--offline']);
  assert.match(never.stderr, /microsoft\/never-read was never looked up on this machine/);
});

test('a server that ignores Range still gives the header: its answer\'s first bytes, the rest not read', async () => {
  const requests = await sent(async () => {
    const a = await answer('vramfit-test/no-range');
    assert.equal(a.model.params_total, 14_659_507_200);  // the same tensors as microsoft/phi-4's shards
  });
  const whole = requests.filter((r) => r.path.includes('whole=1'));
  assert.ok(whole.length > 0);
  // The server streams the whole 29 GB file; the client stops after the bytes it asked for (plus what was in flight).
  for (const r of whole) assert.ok(r.bytesSent < 16 * 2 ** 20, `${r.path} sent ${r.bytesSent} B`);
});

test('a token the Hub does not know is said to be refused, not the model to be missing', async () => {
  const r = await run(['--model', 'microsoft/phi-4'], { HF_TOKEN: 'bad_token' });
  assert.match(r.stderr, /refused the token in HF_TOKEN \(invalid or expired\)/);
});

test('the Hub unreachable: an earlier read answers and says so; never read, the failure is said', async () => {
  const gone = await startHub();
  const env = { HF_ENDPOINT: gone.url };
  const first = await run(['--model', 'unsloth/gpt-oss-20b-GGUF:F16'], env);
  assert.equal(first.code, 0, first.stderr);
  await gone.close();  // the same endpoint, now refusing connections
  const again = await run(['--model', 'unsloth/gpt-oss-20b-GGUF:F16'], env);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /^unsloth\/gpt-oss-20b-GGUF: F16.*\(it could not be reached: answered from what an earlier lookup read\)/);
  const never = await run(['--model', 'microsoft/never-read'], env);
  assert.match(never.stderr, /cannot be reached \(offline\?\) to look up microsoft\/never-read/);
});

test('each failure is a clear message, in seconds: not found, rate-limited, too large, lying header, hang, http', async () => {
  const cases = [
    ['vramfit-test/private', /the Hugging Face Hub has no model vramfit-test\/private \(or it is private\)/],
    ['vramfit-test/rate-limited', /asks to slow down \(too many requests\)/],
    ['vramfit-test/huge-config', /a file of vramfit-test\/huge-config is larger than the 8 MiB vramfit reads of it/],
    ['vramfit-test/lying-gguf', /bad-tensor-count\.gguf: header\.tensor_count: .*1000000000 tensors cannot fit/],
    ['https://huggingface.co/vramfit-test/lying-gguf/blob/main/bad-offset.gguf', /bad-offset\.gguf: tensor_infos\[\d+\]\.offset: .*truncated/],
    ['vramfit-test/hang', /did not answer in time about vramfit-test\/hang/],
    ['vramfit-test/http-cdn', /redirected to a plain-http address; vramfit follows redirects only to https/],
    ['vramfit-test/empty', /has no config\.json and no weights/],
    ['unsloth/gpt-oss-20b-GGUF:Q2_K', /has no Q2_K file; it offers Q4_K_M, F16/],
  ];
  for (const [model, message] of cases) {
    const requests = await sent(async () => {
      // One second of silence is enough to call the hanging server unanswering.
      const r = await run(['--model', model], { HF_HUB_DOWNLOAD_TIMEOUT: '1' });
      assert.equal(r.code, 2, `${model}: ${r.stdout}`);
      assert.match(r.stderr, message, model);
      assert.ok(r.ms < 20_000, `${model} took ${r.ms} ms`);
    });
    const bytes = requests.reduce((sum, r) => sum + (r.bytesSent ?? 0), 0);
    assert.ok(bytes < 9 * 2 ** 20, `${model}: ${bytes} B sent`);
  }
});

test('an Ollama name reads its manifest and the model blob\'s header', async () => {
  const a = await answer('phi4:14b');
  // phi4:14b's model layer is 9,053,114,464 B in Ollama's registry (tests/hub/README.md); its tensors are all of it
  // but the header, as transformers (which keeps every tensor on the GPU) counts them.
  const file = await answer('phi4:14b', ['--engine', 'transformers']);
  assert.ok(file.breakdown.weights <= 9_053_114_464 && file.breakdown.weights > 9_053_114_464 - 16 * 2 ** 20);
  // Ollama (llama.cpp) keeps the input embedding in system RAM: token_embd is 5120 × 100,352 in Q4_K (144 bytes per
  // 256 weights), 5120 × 100,352 / 256 × 144 = 289,013,760 B off the GPU's weights.
  assert.equal(a.breakdown.weights, file.breakdown.weights - 289_013_760);
  assert.match(a.lookup.summary.text, /^Ollama's phi4:14b: its model file/);
  // Phi-4 has 14,659,507,200 parameters (the Hub's count for microsoft/phi-4): its GGUF's ffn_up holds gate and up
  // together ({n_embd, 2 * n_ff} in llama.cpp's phi3), which the count must read as a gated MLP.
  assert.equal(a.model.params_total, 14_659_507_200);
  assert.equal(a.model.name, 'phi4:14b');
  // The file is what Ollama runs under that name, so Ollama is the engine unless one is given.
  assert.equal(a.inputs.engine, 'ollama');
  assert.ok(a.notes.map((n) => n.text).includes("Ollama's phi4:14b: the engine is Ollama, as that name runs there; choose another engine to compare."));
  assert.equal(file.inputs.engine, 'transformers');
  assert.ok(!file.notes.some((n) => n.text.includes('the engine is Ollama')));
  const missing = await run(['--model', 'llama-9000']);
  assert.match(missing.stderr, /Ollama's library has no model llama-9000:latest; no preset is called "llama-9000"/);
});

test('a preset\'s Ollama tag asks the registry for its file; unread, the preset answers and says why', async () => {
  // gemma3:27b is a preset's tag; the fixture's model blob is zeros (tests/hub/README.md), so no header can be read.
  const requests = await sent(async () => {
    const a = await answer('gemma3:27b');
    assert.equal(a.inputs.engine, 'ollama');
    // The summary is a message of its own; why is the core's own refusal of the header, a note beside it.
    assert.deepEqual(a.lookup.summary, { args: { name: 'gemma3:27b' }, id: 'lookup.ollama_unread',
      text: "Ollama's gemma3:27b was not read; answered without its file." });
    assert.equal(a.lookup.notes.length, 1);
    assert.ok(a.lookup.notes[0].id !== '' && a.lookup.notes[0].text !== '');
    // models.json gives no source for the weights gemma3:27b ships: assumed, and said so.
    assert.ok(a.notes.some((n) => n.text.startsWith("Which weights Ollama's gemma3:27b ships is not known offline: they are counted as Q4_K_M, assumed")));
  });
  assert.ok(requests.some((r) => r.path === '/v2/library/gemma3/manifests/27b'));
  // Offline with no earlier read: the same answer, with the reason.
  const offline = await answer('llama3.1:8b', ['--offline']);
  assert.equal(offline.inputs.engine, 'ollama');
  assert.equal(offline.inputs.weights, 'q4_k_m');
  assert.equal(offline.lookup.summary.id, 'lookup.ollama_unread');
  assert.equal(offline.lookup.notes[0].id, 'lookup.not_cached');
  assert.match(offline.lookup.notes[0].text, /^llama3\.1:8b was never looked up on this machine/);
});
