// Assembles the static site in DIST from web/ and the wasm build: the ES modules bundled and minified by
// esbuild (one file per page plus shared chunks instead of 15 separate modules: fewer requests before the
// first result, and about half the bytes), each stylesheet minified, the Emscripten glue minified, the
// page's modulepreload list rewritten to the real chunk names, and the service worker given the list of files
// to keep offline. Usage: node scripts/bundle.mjs WASM_DIR [DIST]
import { cpSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, transform } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const web = path.join(root, 'web');
const wasmDir = path.resolve(process.argv[2] ?? path.join(root, 'build/wasm/wasm'));
const dist = path.resolve(process.argv[3] ?? path.join(root, 'dist'));
const target = ['chrome111', 'firefox111', 'safari16.4'];  // ES2022 modules, import.meta, ?? and ??=

rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });

// Files served as they are (pages, icon, examples, the one-tag element loader, the language set before painting).
for (const name of ['index.html', 'embed.html', 'favicon.svg', 'vram-fit.js', 'lang.js', 'llms.txt', 'examples']) {
  cpSync(path.join(web, name), path.join(dist, name), { recursive: true });
}
cpSync(path.join(wasmDir, 'vramfit.wasm'), path.join(dist, 'vramfit.wasm'));
const glue = await transform(readFileSync(path.join(wasmDir, 'vramfit.mjs'), 'utf8'), { minify: true, format: 'esm', target });
writeFileSync(path.join(dist, 'vramfit.mjs'), glue.code);

mkdirSync(path.join(dist, 'css'));
for (const name of readdirSync(path.join(web, 'css'))) {
  const css = await transform(readFileSync(path.join(web, 'css', name), 'utf8'), { loader: 'css', minify: true });
  writeFileSync(path.join(dist, 'css', name), css.code);
}

// The glue stays a file of its own at the site root: its import.meta.url locates vramfit.wasm, and the
// chunks in js/ reach it as ../vramfit.mjs exactly as the sources do. The entries keep their folders
// (js/embed/…), as vram-fit.js and embed.html name them.
const result = await build({
  entryPoints: ['app.js', 'embed/embed.js', 'embed/vram-fit-element.js'].map((n) => path.join(web, 'js', n)),
  outbase: path.join(web, 'js'),
  outdir: path.join(dist, 'js'),
  bundle: true,
  splitting: true,
  format: 'esm',
  minify: true,
  target,
  external: ['../vramfit.mjs'],
  chunkNames: 'chunk-[hash]',
  metafile: true,
  logLevel: 'warning',
});

// ../vramfit.mjs is right only from js/ itself: core.js, which imports the glue, is shared by every entry and
// so sits in a chunk there.
const outputs = result.metafile.outputs;
for (const [out, meta] of Object.entries(outputs)) {
  if (meta.imports.some((i) => i.external) && path.dirname(path.resolve(root, out)) !== path.join(dist, 'js')) {
    throw new Error(`${out} imports the glue from outside js/`);
  }
}

// A page without the indentation at its lines' starts: a line break and spaces render as the line break alone,
// except inside <pre> and <textarea>, which are kept as written.
function indentless(html) {
  return html.split(/(<(pre|textarea)\b[\s\S]*?<\/\2>)/).map((part, i) => (i % 3 === 0 ? part.replace(/\n[ \t]+/g, '\n') : i % 3 === 1 ? part : ''))
    .join('');
}

// index.html: preload exactly what js/app.js imports, so the browser fetches the chunks, the glue and
// the .wasm in parallel instead of discovering them one import at a time.
const appOut = Object.keys(outputs).find((o) => outputs[o].entryPoint?.endsWith('js/app.js'));
const preloads = new Set();
(function walk(out) {
  for (const imp of outputs[out].imports) {
    if (imp.external) { preloads.add('vramfit.mjs'); continue; }
    const rel = path.relative(dist, path.resolve(root, imp.path)).split(path.sep).join('/');
    if (!preloads.has(rel)) { preloads.add(rel); walk(imp.path); }
  }
})(appOut);
const indexFile = path.join(dist, 'index.html');
let index = readFileSync(indexFile, 'utf8');
const links = [...preloads, 'js/app.js'].map((href) => `  <link rel="modulepreload" href="${href}">`).join('\n');
index = index.replace(/(?:\s*<link rel="modulepreload"[^>]*>)+/, () => `\n${links}`);
if (!index.includes('href="js/app.js"')) throw new Error('index.html: the modulepreload block was not found');
writeFileSync(indexFile, indentless(index));
writeFileSync(path.join(dist, 'embed.html'), indentless(readFileSync(path.join(dist, 'embed.html'), 'utf8')));

// The service worker keeps every file of the site (not the 0.9 MB single-file build); its cache is named
// after the content, so a deploy replaces the old copy instead of mixing the two.
function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? files(full) : [full];
  });
}
const shell = files(dist).map((f) => path.relative(dist, f).split(path.sep).join('/')).sort();
const hash = createHash('sha256');
for (const f of shell) hash.update(f).update(readFileSync(path.join(dist, f)));
let sw = readFileSync(path.join(web, 'sw.js'), 'utf8');
sw = sw.replace(/const CACHE = '[^']*';/, () => `const CACHE = 'vramfit-${hash.digest('hex').slice(0, 12)}';`)
  .replace(/const SHELL = \[[^\]]*\];/, () => `const SHELL = ${JSON.stringify(['./', ...shell])};`);
if (!sw.includes('vramfit.wasm')) throw new Error('sw.js: the SHELL list was not filled in');
writeFileSync(path.join(dist, 'sw.js'), (await transform(sw, { minify: true, target })).code);
console.log(`bundle: ${shell.length + 1} files in ${path.relative(root, dist) || '.'}/`);
