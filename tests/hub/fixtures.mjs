// Loads tests/hub/fixtures/*.json into repos whose files are Bodies (see body.mjs).
// Fixture format: see README.md ("Fixture files").
import { readFileSync, readdirSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { Body } from './body.mjs';
import { writeGguf } from './gguf_writer.mjs';

const SAFETENSORS_DTYPE_BYTES = {
  F64: 8, F32: 4, F16: 2, BF16: 2, I64: 8, I32: 4, I16: 2, I8: 1, U8: 1, BOOL: 1, F8_E4M3: 1, F8_E5M2: 1,
};

// Tensor lists are written compactly: [name, dtype, shape] entries, and
// {repeat: n, start?: 0, tensors: [...]} blocks whose names contain "{i}" (the layer index).
export function expandTensors(entries) {
  const out = [];
  for (const e of entries) {
    if (Array.isArray(e)) {
      out.push({ name: e[0], type: e[1], shape: e[2] });
      continue;
    }
    for (let i = e.start ?? 0; i < (e.start ?? 0) + e.repeat; i++) {
      for (const t of expandTensors(e.tensors)) out.push({ ...t, name: t.name.replaceAll('{i}', String(i)) });
    }
  }
  return out;
}

// Real-format safetensors header: u64 LE length + JSON {name: {dtype, shape, data_offsets}, __metadata__},
// space-padded (as the Rust writer pads to 8) so that 8 + header + data == the true shard size.
export function safetensorsHeader({ tensors, metadata, size }) {
  const json = {};
  if (metadata) json.__metadata__ = metadata;
  let offset = 0;
  for (const t of expandTensors(tensors)) {
    const n = t.shape.reduce((a, b) => a * b, 1) * SAFETENSORS_DTYPE_BYTES[t.type];
    json[t.name] = { dtype: t.type, shape: t.shape, data_offsets: [offset, offset + n] };
    offset += n;
  }
  const text = JSON.stringify(json);
  const length = size !== undefined ? size - 8 - offset : Math.ceil(text.length / 8) * 8;
  if (length < text.length) throw new Error(`safetensors size ${size} too small for its tensors (${offset} bytes)`);
  const header = Buffer.alloc(8 + length, ' ');
  header.writeBigUInt64LE(BigInt(length));
  header.write(text, 8);
  return { header, size: 8 + length + offset };
}

function ggufSpec(g) {
  return { ...g, tensors: expandTensors(g.tensors) };
}

// A generated JSON of a given size: the real config with a long string field first.
function paddedJson(realText, size) {
  const open = Buffer.from('{"_padding": "');
  const close = Buffer.from('", ' + realText.trim().slice(1));
  return new Body([open, { fill: 0x20, length: size - open.length - close.length }, close]);
}

// model.safetensors.index.json as transformers writes it, from the shards' tensor lists.
function safetensorsIndex(fx) {
  const weight_map = {};
  let total = 0;
  for (const f of fx.files.filter((x) => x.safetensors)) {
    for (const t of expandTensors(f.safetensors.tensors)) {
      weight_map[t.name] = f.path.split('/').pop();
      total += t.shape.reduce((a, b) => a * b, 1) * SAFETENSORS_DTYPE_BYTES[t.type];
    }
  }
  return JSON.stringify({ metadata: { total_size: total }, weight_map }, null, 2) + '\n';
}

function makeBody(dir, f, fx) {
  if (f.safetensorsIndex) return Body.of(Buffer.from(safetensorsIndex(fx)));
  if (f.local) {
    const bytes = readFileSync(join(dir, f.local));
    return f.paddedTo ? paddedJson(bytes.toString('utf8'), f.paddedTo) : Body.of(bytes);
  }
  if (f.text !== undefined) return Body.of(Buffer.from(f.text));
  if (f.safetensors) {
    const { header, size } = safetensorsHeader({ ...f.safetensors, size: f.size });
    return Body.sparse(header, size);
  }
  if (f.gguf) {
    const { header, size } = writeGguf({ ...ggufSpec(f.gguf), size: f.gguf.lies ? undefined : f.size });
    return Body.sparse(header, f.size ?? size);
  }
  return Body.sparse(Buffer.alloc(0), f.size); // opaque binary: only its size is known
}

// Stand-in for unknown real LFS hashes: deterministic, and marked in README as made up.
const fakeSha256 = (s) => createHash('sha256').update(`vramfit-fixture:${s}`).digest('hex');

// Git LFS pointer file: its blob id is the tree `oid` of an LFS file, its length `pointerSize`.
function lfsPointer(sha256, size) {
  const text = `version https://git-lfs.github.com/spec/v1\noid sha256:${sha256}\nsize ${size}\n`;
  return { oid: Body.of(Buffer.from(text)).gitOid(), pointerSize: Buffer.byteLength(text) };
}

// A property computed on first use: hashing the 50 MB fixture should not slow every start.
function lazy(obj, key, fn) {
  let v;
  Object.defineProperty(obj, key, { get: () => (v ??= fn()), enumerable: true });
}

function loadHfRepo(dir, fx) {
  const files = new Map();
  for (const f of fx.files) {
    const file = { path: f.path };
    lazy(file, 'body', () => makeBody(dir, f, fx));
    // Sizes of sparse files are declared, so listings never need to build their headers.
    file.size = f.size ?? file.body.size;
    file.lfs = f.lfs ?? !(f.local || f.text !== undefined || f.safetensorsIndex);
    if (file.lfs) {
      lazy(file, 'sha256', () => f.sha256 ?? (f.paddedTo ? file.body.sha256() : fakeSha256(`${fx.id}/${f.path}`)));
      lazy(file, 'pointer', () => lfsPointer(file.sha256, file.size));
      lazy(file, 'oid', () => file.pointer.oid);
      lazy(file, 'pointerSize', () => file.pointer.pointerSize);
    } else {
      lazy(file, 'oid', () => file.body.gitOid());
    }
    files.set(f.path, file);
  }
  return { ...fx, files };
}

export function loadFixtures(dir) {
  const hf = new Map();
  const ollama = new Map(); // "library/phi4:latest" -> {manifest Buffer, blobs: Map digest -> {body, mediaType}}
  const cdn = new Map(); // sha256 -> file, for every LFS file and Ollama model blob
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.json')).sort()) {
    const fx = JSON.parse(readFileSync(join(dir, name), 'utf8'));
    if (fx.kind === 'hf') {
      const repo = loadHfRepo(dir, fx);
      hf.set(fx.id.toLowerCase(), repo);
      for (const f of repo.files.values()) if (f.lfs) cdn.set(f.sha256, f);
    } else if (fx.kind === 'ollama') {
      for (const [tag, m] of Object.entries(fx.tags)) ollama.set(`${fx.name}:${tag}`, loadOllamaTag(dir, m, cdn));
    } else throw new Error(`${name}: unknown kind ${fx.kind}`);
  }
  return { hf, ollama, cdn };
}

// Ollama: the manifest is built from the layers; small layers are real text (digest = its
// sha256), the model layer is sparse and its digest is the published one when known.
function loadOllamaTag(dir, m, cdn) {
  const blobs = new Map();
  const layer = (l) => {
    let body;
    let digest = l.digest;
    if (l.text !== undefined || l.json !== undefined) {
      body = Body.of(Buffer.from(l.text ?? JSON.stringify(l.json)));
      digest ??= `sha256:${body.sha256()}`;
    } else {
      body = makeBody(dir, l);
      digest ??= `sha256:${fakeSha256(l.name ?? JSON.stringify(l.size))}`;
    }
    const entry = { mediaType: l.mediaType, digest, size: body.size };
    blobs.set(digest, { body, mediaType: l.mediaType, redirect: l.mediaType.endsWith('.model') || l.mediaType.endsWith('.projector') });
    if (l.mediaType.endsWith('.model') || l.mediaType.endsWith('.projector')) {
      cdn.set(digest.slice('sha256:'.length), { body, size: body.size, sha256: digest.slice(7) });
    }
    return entry;
  };
  const layers = m.layers.map(layer);
  // The config blob lists the layers' digests in rootfs.diff_ids, as `ollama create` writes it.
  const json = m.config.json && { ...m.config.json, rootfs: { type: 'layers', diff_ids: layers.map((l) => l.digest) } };
  const config = layer({ ...m.config, json, mediaType: 'application/vnd.docker.container.image.v1+json' });
  const manifest = {
    schemaVersion: 2,
    mediaType: 'application/vnd.docker.distribution.manifest.v2+json',
    config,
    layers,
  };
  const bytes = Buffer.from(JSON.stringify(manifest));
  return { manifest: bytes, digest: `sha256:${Body.of(bytes).sha256()}`, blobs };
}
