// The layers of HACKING.md, checked: a file in core/ includes only its own folder and the folders below it, the
// public headers (core/include/vramfit/) only each other, and the clients (cli/, wasm/) only the public headers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const LAYERS = ['util', 'model', 'formats', 'memory', 'hardware', 'questions', 'json'];
const PLAIN_PUBLIC = ['vramfit/safetensors_file.hpp'];

function sources(dir) {
  return readdirSync(path.join(root, dir), { recursive: true })
    .filter((f) => /\.(hpp|cpp)$/.test(f)).map((f) => path.join(dir, f));
}

/** The quoted includes of a C++ text: [{ line, target }]. */
export function includes(text) {
  return text.split('\n').flatMap((l, i) => {
    const m = l.match(/^\s*#\s*include\s+"([^"]+)"/);
    return m ? [{ line: i + 1, target: m[1] }] : [];
  });
}

/** Why `file` may not include `target`, or null. `file` is relative to the repository root. */
export function breach(file, target) {
  const [top, folder] = file.split(path.sep);
  const to = target.split('/')[0];
  if (top === 'core' && folder === 'include') return to === 'vramfit' ? null : 'a public header includes a private one';
  if (top === 'core') {
    // The public face answers questions (json/ implements it); only its plain value types sit below json/.
    if (to === 'vramfit' && !PLAIN_PUBLIC.includes(target) && !['json', 'include'].includes(folder))
      return `${folder}/ includes the public face ${target}, which json/ implements`;
    if (!LAYERS.includes(to)) return null;  // vramfit/…, a header beside it
    return LAYERS.indexOf(to) > LAYERS.indexOf(folder) ? `${folder}/ includes from the higher layer ${to}/` : null;
  }
  return LAYERS.includes(to) ? `${top}/ includes core's private ${to}/` : null;
}

test('the rule itself: upward and private includes are breaches, downward and public ones are not', () => {
  const f = (p) => p.split('/').join(path.sep);
  assert.equal(breach(f('core/memory/kv_cache.cpp'), 'model/layers.hpp'), null);
  assert.equal(breach(f('core/memory/kv_cache.cpp'), 'memory/engines/engine.hpp'), null);
  assert.match(breach(f('core/memory/kv_cache.cpp'), 'questions/verdict.hpp'), /higher layer questions/);
  assert.match(breach(f('core/util/text.cpp'), 'json/request.hpp'), /higher layer json/);
  assert.equal(breach(f('core/json/answer.cpp'), 'vramfit/vramfit.hpp'), null);
  assert.match(breach(f('core/questions/evaluate.cpp'), 'vramfit/inputs.hpp'), /public face/);
  assert.equal(breach(f('core/formats/gguf.hpp'), 'vramfit/safetensors_file.hpp'), null);
  assert.match(breach(f('core/include/vramfit/vramfit.hpp'), 'memory/inference.hpp'), /public header/);
  assert.equal(breach(f('cli/main.cpp'), 'vramfit/vramfit.hpp'), null);
  assert.equal(breach(f('cli/main.cpp'), 'tables.hpp'), null);
  assert.match(breach(f('wasm/bindings.cpp'), 'questions/evaluate.hpp'), /private questions/);
  assert.deepEqual(includes('#include <vector>\n  #include "util/text.hpp"  // why\n'), [{ line: 2, target: 'util/text.hpp' }]);
});

test('no file in core/, cli/ or wasm/ includes across the layers', () => {
  const found = [];
  let seen = 0;
  for (const file of [...sources('core'), ...sources('cli'), ...sources('wasm')]) {
    for (const { line, target } of includes(readFileSync(path.join(root, file), 'utf8'))) {
      seen += 1;
      const why = breach(file, target);
      if (why) found.push(`${file}:${line}: "${target}": ${why}`);
    }
  }
  assert.ok(seen > 300, `read ${seen} includes`);  // the scan reached the sources
  assert.deepEqual(found, []);
});
