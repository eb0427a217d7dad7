// Builds dist/vramfit.html: the whole calculator in one file that works from file:// and offline.
// The ES modules are bundled into one inline module script (each module wrapped in a function scope,
// imports rewritten to lookups), the CSS is inlined, and the .wasm travels as base64 handed to the factory
// as `wasmBinary` (core.js reads globalThis.vramfitWasmBinary). The CSP allows exactly that script and
// that style by sha256 hash: no 'unsafe-inline', and 'wasm-unsafe-eval' only for WebAssembly.
// Usage: node scripts/single-file.mjs [DIST]
import { readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';

const dist = path.resolve(process.argv[2] ?? 'dist');
const read = (file) => readFileSync(path.join(dist, file), 'utf8');
const sha256 = (text) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

const IMPORT = /^import\s+(.+?)\s+from\s+'(\.{1,2}\/[^']+)';\s*$/gm;
const modules = new Map(); // path relative to dist → { id, code }

function bundle(file) {
  if (modules.has(file)) return modules.get(file).id;
  const entry = { id: modules.size, code: '' };
  modules.set(file, entry);
  let code = read(file);
  code = code.replace(IMPORT, (_, clause, spec) => {
    const id = bundle(path.posix.normalize(path.posix.join(path.posix.dirname(file), spec)));
    const namespace = clause.match(/^\*\s+as\s+(\w+)$/);
    if (namespace) return `const ${namespace[1]} = __modules[${id}];`;
    const named = clause.match(/^\{([^}]*)\}$/);
    if (named) return `const { ${named[1].replace(/\s+as\s+/g, ': ')} } = __modules[${id}];`;
    if (/^\w+$/.test(clause)) return `const ${clause} = __modules[${id}].default;`;
    throw new Error(`${file}: import form not supported by the single-file bundler: ${clause}`);
  });
  if (/^\s*import\s/m.test(code)) throw new Error(`${file}: an import the bundler cannot rewrite is left`);
  const exported = [];
  code = code.replace(/^export\s+((?:async\s+)?function\*?|class|const|let)\s+(\w+)/gm, (_, kind, name) => {
    exported.push(name);
    return `${kind} ${name}`;
  });
  code = code.replace(/^export\s*\{([^}]*)\};?\s*$/gm, (_, names) => {
    for (const n of names.split(',')) {
      const [local, as = local] = n.trim().split(/\s+as\s+/);
      if (local) exported.push(as === local ? local : `${as}: ${local}`);
    }
    return '';
  });
  code = code.replace(/^export\s+default\s+(\w+);?\s*$/m, (_, name) => { exported.push(`default: ${name}`); return ''; });
  if (/^export\s/m.test(code)) throw new Error(`${file}: an export the bundler cannot rewrite is left`);
  entry.code = `__modules[${entry.id}] = (() => {\n${code}\nreturn { ${exported.join(', ')} };\n})();\n`;
  return entry.id;
}

bundle('js/app.js');
// Emit each module once everything it imports is emitted (a topological order; the graph has no cycles).
const ordered = [...modules.entries()];
const defined = new Set();
let script = 'const __modules = [];\n';
script += `globalThis.vramfitWasmBinary = Uint8Array.from(atob(${JSON.stringify(readFileSync(path.join(dist, 'vramfit.wasm')).toString('base64'))}), (c) => c.charCodeAt(0));\n`;
while (defined.size < ordered.length) {
  for (const [file, { id, code }] of ordered) {
    if (defined.has(id)) continue;
    const needs = [...code.matchAll(/__modules\[(\d+)\]/g)].map((m) => Number(m[1])).filter((n) => n !== id);
    if (needs.every((n) => defined.has(n))) { script += `// ${file}\n${code}`; defined.add(id); }
  }
}
// `</script` inside the code would end the element early.
script = script.replace(/<\/script/gi, '<\\/script');

const css = `${read('css/tokens.css')}\n${read('css/app.css')}`;
const favicon = `data:image/svg+xml;base64,${Buffer.from(read('favicon.svg')).toString('base64')}`;
const csp = [
  "default-src 'none'",
  `script-src ${sha256(script)} 'wasm-unsafe-eval'`,
  `style-src ${sha256(css)}`,
  'img-src data: blob:',
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

let html = read('index.html');
html = html.replace(/<meta http-equiv="Content-Security-Policy" content="[^"]*">/, () => `<meta http-equiv="Content-Security-Policy" content="${csp}">`);
html = html.replace(/\s*<link rel="(?:modulepreload|preload|stylesheet)"[^>]*>/g, '');
html = html.replace(/<link rel="icon" href="favicon.svg"/, () => `<link rel="icon" href="${favicon}"`);
html = html.replace(/\s*<script type="module" src="js\/app.js"><\/script>/, '');
// A function replacement: the code may contain `$'` or `$&`, which a replacement string would expand.
html = html.replace('</head>', () => `  <style>${css}</style>\n  <script type="module">${script}</script>\n</head>`);
if (/src="js\/|href="css\//.test(html)) throw new Error('index.html still points at a separate file');
writeFileSync(path.join(dist, 'vramfit.html'), html);
console.log(`single-file: dist/vramfit.html (${(html.length / 1024).toFixed(0)} KiB, ${modules.size} modules)`);
