// Times what a Hub draft's GGUF header costs each answer, sent as its description (draft_read: {files: [{header:
// base64}]}) against kept once by the module (keep_read) and named by key, as the page asks: the estimate and the
// GPU table in one call. The header is the test Hub's vramfit-test/qwen3-0.6b-draft-GGUF (tests/hub/server.mjs).
//   node scripts/time-kept-read.mjs [this module's folder, build/wasm/wasm] [an older module's folder] [answers, 5]
// An older module (one without keep_read, e.g. main's build) is timed with the description, as the page sent it;
// the draft as a preset (Qwen3-0.6B) is the answer's time without any header.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startHub } from '../tests/hub/server.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const [dir = path.join(root, 'build/wasm/wasm'), older, count = '5'] = process.argv.slice(2);
const load = async (d) => (await import(path.resolve(d, 'vramfit.mjs'))).default({ wasmBinary: readFileSync(path.resolve(d, 'vramfit.wasm')) });
const module = await load(dir);
const hub = await startHub();
const file = 'qwen3-0.6b-draft-Q8_0.gguf';
const url = `${hub.url}/vramfit-test/qwen3-0.6b-draft-GGUF/resolve/main/${file}`;
const size = Number((await fetch(url, { headers: { range: 'bytes=0-0' } })).headers.get('content-range').split('/')[1]);
const bytes = new Uint8Array(await (await fetch(url, { headers: { range: `bytes=0-${8 * 2 ** 20 - 1}` } })).arrayBuffer());
await hub.close();
// The header's length, as the page reads it: longer prefixes until the core asks for no more.
let have = 1024;
for (let need; (need = JSON.parse(module.answer_file(bytes.subarray(0, have), size, file, '{}')).need_prefix_bytes);) have = need;
let text = '';
for (let i = 0; i < have; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, Math.min(have, i + 0x8000)));
const description = { name: 'vramfit-test/qwen3-0.6b-draft-GGUF:Q8_0', repo: 'vramfit-test/qwen3-0.6b-draft-GGUF',
  files: [{ name: file, size, header: btoa(text) }] };
const request = { model: 'qwen3-8b', engine: 'llamacpp', weights: 'q8_0', context: 4096, gpu: 'rtx-4090',
  draft: description.name, questions: ['estimate', { question: 'estimate', every_gpu: true }] };
const n = Number(count);
const time = (m, r) => {
  let out;
  const start = performance.now();
  for (let i = 0; i < n; i++) out = m.answer(JSON.stringify(r));
  return { ms: (performance.now() - start) / n, out };
};
const keepStart = performance.now();
const kept = JSON.parse(module.keep_read('draft_read', JSON.stringify(description)));
const keepMs = performance.now() - keepStart;
const sent = time(module, { ...request, draft_read: description });
const byKey = time(module, { ...request, draft_read: 'draft_read' });
const preset = time(module, { ...request, draft: 'qwen3-0.6b' });
const report = { header_bytes: have, kept: kept.ok, keep_once_ms: Math.round(keepMs), sent_ms: Math.round(sent.ms),
  kept_ms: Math.round(byKey.ms), preset_ms: Math.round(preset.ms), ratio: +(sent.ms / byKey.ms).toFixed(1), same_answer: sent.out === byKey.out };
if (older) {
  const before = time(await load(older), { ...request, draft_read: description });
  Object.assign(report, { older_ms: Math.round(before.ms), older_ratio: +(before.ms / byKey.ms).toFixed(1) });
}
console.log(JSON.stringify(report));
