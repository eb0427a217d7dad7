// Runs the corpus (cases.mjs) through the native CLI and the real .wasm and compares every output byte with
// expected/. `node tests/corpus/run.mjs --update` rewrites expected/ after a change that is meant to move output.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cli, wasm } from './cases.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const expectedDir = path.join(root, 'tests/corpus/expected');
const binary = process.env.VRAMFIT_CLI ?? path.join(root, 'build/native/cli/vramfit');
const dist = process.env.VRAMFIT_DIST ?? path.join(root, 'dist');
const update = process.argv.includes('--update');

const { default: createVramfit } = await import(path.join(dist, 'vramfit.mjs'));
const module = await createVramfit({ wasmBinary: readFileSync(path.join(dist, 'vramfit.wasm')) });

// A binding's request: "FILE:path" values are replaced by that file's text (a config.json).
const withFiles = (request) => JSON.parse(JSON.stringify(request), (_, v) =>
  typeof v === 'string' && v.startsWith('FILE:') ? readFileSync(path.join(root, v.slice(5)), 'utf8') : v);

function callBinding({ fn, request }) {
  if (fn === 'catalog') return module.catalog();
  if (fn === 'answer_file') {
    const bytes = readFileSync(path.join(root, request.file));
    return module.answer_file(bytes, request.size, request.name, JSON.stringify(request.request));
  }
  if (fn === 'answer') return module.answer(typeof request === 'string' ? request : JSON.stringify(withFiles(request)));
  throw new Error(`cases.mjs: no binding "${fn}"`);
}

const outputs = new Map();
for (const c of cli) {
  const r = spawnSync(binary, c.args, { cwd: root, encoding: 'utf8' });
  outputs.set(`cli/${c.name}.txt`, `$ vramfit ${c.args.join(' ')}\n# exit ${r.status}\n# stdout\n${r.stdout}# stderr\n${r.stderr}`);
}
for (const c of wasm) {
  outputs.set(`wasm/${c.name}.txt`, `${c.fn}(${typeof c.request === 'string' ? c.request : JSON.stringify(c.request)})\n${callBinding(c)}\n`);
}

let failed = 0;
// An expected file no case writes any more is stale: --update removes it, a comparison fails on it.
for (const kind of ['cli', 'wasm']) {
  const dir = path.join(expectedDir, kind);
  for (const file of existsSync(dir) ? readdirSync(dir) : []) {
    if (outputs.has(`${kind}/${file}`)) continue;
    if (update) rmSync(path.join(dir, file));
    else { ++failed; console.error(`${kind}/${file}: no case writes it (run with --update to remove it)`); }
  }
}
for (const [name, text] of outputs) {
  const file = path.join(expectedDir, name);
  if (update) {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
    continue;
  }
  const want = existsSync(file) ? readFileSync(file, 'utf8') : null;
  if (want === text) continue;
  ++failed;
  if (want === null) { console.error(`${name}: no expected output (run with --update and review it)`); continue; }
  const a = want.split('\n'), b = text.split('\n');
  let i = 0;
  while (i < a.length && a[i] === b[i]) ++i;
  console.error(`${name}: differs from line ${i + 1}\n  expected: ${(a[i] ?? '<end>').slice(0, 300)}\n  actual:   ${(b[i] ?? '<end>').slice(0, 300)}`);
}
console.log(`${update ? 'wrote' : 'compared'} ${outputs.size} outputs${failed ? `, ${failed} differ` : ''}`);
process.exit(failed ? 1 : 0);
