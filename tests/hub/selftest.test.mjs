// Checks that the local hub speaks the protocols the lookup client relies on (node --test tests/hub).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHub } from './server.mjs';

let hub;
before(async () => { hub = await startHub(); });
after(async () => { await hub.close(); });

const get = (path, init = {}) => fetch(hub.url + path, { redirect: 'manual', ...init });

test('model info carries siblings, sizes and LFS hashes with blobs=true', async () => {
  const r = await get('/api/models/microsoft/phi-4?blobs=true');
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('access-control-allow-origin'), '*');
  const m = await r.json();
  assert.equal(m.id, 'microsoft/phi-4');
  assert.equal(m.safetensors.total, 14659507200);
  const shard = m.siblings.find((s) => s.rfilename === 'model-00001-of-00006.safetensors');
  assert.equal(shard.lfs.size, shard.size);
  assert.match(shard.lfs.sha256, /^[0-9a-f]{64}$/);
  const plain = await (await get('/api/models/microsoft/phi-4')).json();
  assert.deepEqual(Object.keys(plain.siblings[0]), ['rfilename']);
});

test('unknown repo: 401 without token, 404 with one; unknown revision: 404 RevisionNotFound', async () => {
  const a = await get('/api/models/nobody/nothing');
  assert.equal(a.status, 401);
  assert.equal(a.headers.get('x-error-code'), 'RepoNotFound');
  const b = await get('/api/models/nobody/nothing', { headers: { Authorization: 'Bearer hf_test_token' } });
  assert.equal(b.status, 404);
  const c = await get('/api/models/microsoft/phi-4/revision/nope');
  assert.equal(c.status, 404);
  assert.equal(c.headers.get('x-error-code'), 'RevisionNotFound');
  assert.equal((await get('/api/models/vramfit-test/private')).status, 401);
  assert.equal((await get('/api/models/vramfit-test/private', { headers: { Authorization: 'Bearer hf_test_token' } })).status, 200);
});

test('small files are served directly, missing ones are EntryNotFound', async () => {
  const r = await get('/microsoft/phi-4/resolve/main/config.json');
  assert.equal(r.status, 200);
  assert.match(r.headers.get('etag'), /^"[0-9a-f]{40}"$/);
  assert.equal((await r.json()).num_key_value_heads, 10);
  const idx = await (await get('/microsoft/phi-4/resolve/main/model.safetensors.index.json')).json();
  assert.equal(idx.weight_map['lm_head.weight'], 'model-00006-of-00006.safetensors');
  const missing = await get('/microsoft/phi-4/resolve/main/nope.json');
  assert.equal(missing.status, 404);
  assert.equal(missing.headers.get('x-error-code'), 'EntryNotFound');
});

test('LFS files redirect to the CDN, which serves real headers by Range', async () => {
  const head = await get('/unsloth/gpt-oss-20b-GGUF/resolve/main/gpt-oss-20b-Q4_K_M.gguf', { method: 'HEAD' });
  assert.equal(head.status, 302);
  assert.equal(head.headers.get('x-linked-size'), '11624759488');
  const cdn = head.headers.get('location');
  const r = await fetch(cdn, { headers: { Range: 'bytes=0-23' } });
  assert.equal(r.status, 206);
  assert.equal(r.headers.get('content-range'), 'bytes 0-23/11624759488');
  const b = Buffer.from(await r.arrayBuffer());
  assert.equal(b.toString('ascii', 0, 4), 'GGUF');
  assert.equal(b.readUInt32LE(4), 3);
  assert.equal(b.readBigUInt64LE(8), 459n);
  const tail = await fetch(cdn, { headers: { Range: 'bytes=11624759480-' } });
  assert.equal(tail.status, 206);
  assert.deepEqual([...Buffer.from(await tail.arrayBuffer())], [0, 0, 0, 0, 0, 0, 0, 0]);
  assert.equal((await fetch(cdn, { headers: { Range: 'bytes=11624759488-' } })).status, 416);
});

test('safetensors shard headers are real and add up to the shard size', async () => {
  const head = await get('/microsoft/phi-4/resolve/main/model-00002-of-00006.safetensors', { method: 'HEAD' });
  const cdn = head.headers.get('location');
  const size = Number(head.headers.get('x-linked-size'));
  const n = Number(Buffer.from(await (await fetch(cdn, { headers: { Range: 'bytes=0-7' } })).arrayBuffer()).readBigUInt64LE(0));
  const json = JSON.parse(Buffer.from(await (await fetch(cdn, { headers: { Range: `bytes=8-${7 + n}` } })).arrayBuffer()).toString());
  const end = Math.max(...Object.values(json).filter((t) => t.data_offsets).map((t) => t.data_offsets[1]));
  assert.equal(8 + n + end, size);
  assert.deepEqual(json['model.layers.6.self_attn.qkv_proj.weight'].shape, [7680, 5120]);
});

test('gated files need the token: 401 without, 403 with a wrong one, 302 with the right one', async () => {
  const path = '/meta-llama/Llama-3.1-8B-Instruct/resolve/main/config.json';
  const info = await (await get('/api/models/meta-llama/Llama-3.1-8B-Instruct')).json();
  assert.equal(info.gated, 'manual');
  const a = await get(path);
  assert.equal(a.status, 401);
  assert.equal(a.headers.get('x-error-code'), 'GatedRepo');
  const b = await get(path, { headers: { Authorization: 'Bearer hf_wrong' } });
  assert.equal(b.status, 403);
  assert.equal(b.headers.get('x-error-code'), 'GatedRepo');
  assert.equal((await get(path, { headers: { Authorization: 'Bearer hf_test_token' } })).status, 200);
});

test('CORS preflight allows Range and Authorization and exposes the Hub headers', async () => {
  const r = await get('/microsoft/phi-4/resolve/main/config.json', {
    method: 'OPTIONS', headers: { Origin: 'http://example.test', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'range,authorization' },
  });
  assert.equal(r.status, 204);
  assert.match(r.headers.get('access-control-allow-headers'), /range/);
  assert.match(r.headers.get('access-control-expose-headers'), /X-Linked-Size/);
});

test('tree lists folders and files, recursively on request', async () => {
  const top = await (await get('/api/models/unsloth/Qwen3-235B-A22B-Instruct-2507-GGUF/tree/main')).json();
  assert.ok(top.some((e) => e.type === 'directory' && e.path === 'Q4_K_M'));
  const sub = await (await get('/api/models/unsloth/Qwen3-235B-A22B-Instruct-2507-GGUF/tree/main/Q4_K_M')).json();
  assert.equal(sub.length, 3);
  assert.ok(sub.every((e) => e.lfs && e.lfs.size === e.size));
  const all = await (await get('/api/models/unsloth/Qwen3-235B-A22B-Instruct-2507-GGUF/tree/main?recursive=true')).json();
  assert.ok(all.some((e) => e.path.endsWith('-00003-of-00003.gguf')));
});

test('faults: rate limit, plain-http CDN, hanging repo', async () => {
  const r = await get('/api/models/vramfit-test/rate-limited');
  assert.equal(r.status, 429);
  assert.equal(r.headers.get('retry-after'), '1');
  assert.equal((await get('/api/models/vramfit-test/rate-limited-once')).status, 429);
  assert.equal((await get('/api/models/vramfit-test/rate-limited-once')).status, 200);
  const h = await get('/vramfit-test/http-cdn/resolve/main/model.safetensors', { method: 'HEAD' });
  const loc = new URL(h.headers.get('location'));
  assert.equal(loc.protocol, 'http:');
  assert.notEqual(loc.port, String(hub.port));
  const ac = new AbortController();
  const pending = get('/api/models/vramfit-test/hang', { signal: ac.signal }).catch((e) => e.name);
  setTimeout(() => ac.abort(), 200);
  assert.equal(await pending, 'AbortError');
});

test('Ollama registry: manifest, config blob, model blob via redirect', async () => {
  const m = await get('/v2/library/phi4/manifests/latest');
  assert.equal(m.status, 200);
  assert.equal(m.headers.get('content-type'), 'application/vnd.docker.distribution.manifest.v2+json');
  const man = await m.json();
  const model = man.layers.find((l) => l.mediaType === 'application/vnd.ollama.image.model');
  assert.equal(model.size, 9053114464);
  const cfg = await (await get(`/v2/library/phi4/blobs/${man.config.digest}`)).json();
  assert.equal(cfg.model_format, 'gguf');
  const blob = await get(`/v2/library/phi4/blobs/${model.digest}`);
  assert.equal(blob.status, 307);
  const part = await fetch(blob.headers.get('location'), { headers: { Range: 'bytes=0-3' } });
  assert.equal(part.headers.get('content-range'), 'bytes 0-3/9053114464');
  const unknown = await get('/v2/library/phi4/manifests/nope');
  assert.equal(unknown.status, 404);
  assert.equal((await unknown.json()).errors[0].code, 'MANIFEST_UNKNOWN');
});

test('the request log records ranges and bytes sent', () => {
  const ranged = hub.requests.filter((q) => q.range);
  assert.ok(ranged.length > 0);
  assert.ok(hub.requests.every((q) => q.bytesSent < 100 * 1024 * 1024));
});
