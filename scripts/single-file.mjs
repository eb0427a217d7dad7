// Builds dist/vramfit.html: the whole calculator in one file that works from file:// and offline.
// The ES modules are bundled into one inline module script, the CSS is inlined, and the .wasm travels as
// base64 handed to the factory as `wasmBinary` (core.js reads globalThis.vramfitWasmBinary). The CSP allows exactly that script and
// that style by sha256 hash: no 'unsafe-inline', and 'wasm-unsafe-eval' only for WebAssembly.
// Usage: node scripts/single-file.mjs [DIST]
import { readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { build } from 'esbuild';

const dist = path.resolve(process.argv[2] ?? 'dist');
const read = (file) => readFileSync(path.join(dist, file), 'utf8');
const sha256 = (text) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

// esbuild re-bundles the site's own bundle (dist/js/app.js and its chunks) with the glue into one script.
const wasmBase64 = readFileSync(path.join(dist, 'vramfit.wasm')).toString('base64');
const bundled = await build({
  entryPoints: [path.join(dist, 'js/app.js')],
  bundle: true,
  format: 'esm',
  minify: true,
  write: false,
  logLevel: 'warning',
  banner: { js: `globalThis.vramfitWasmBinary=Uint8Array.from(atob(${JSON.stringify(wasmBase64)}),(c)=>c.charCodeAt(0));` },
});
let script = bundled.outputFiles[0].text;
// `</script` inside the code would end the element early.
script = script.replace(/<\/script/gi, '<\\/script');

const css = `${read('css/tokens.css')}\n${read('css/app.css')}`;
const lang = read('lang.js');
const favicon = `data:image/svg+xml;base64,${Buffer.from(read('favicon.svg')).toString('base64')}`;
const csp = [
  "default-src 'none'",
  `script-src ${sha256(script)} ${sha256(lang)} 'wasm-unsafe-eval'`,
  `style-src ${sha256(css)}`,
  'img-src data: blob:',
  // A model looked up on the Hugging Face Hub (only when the person asks): the Hub and its download hosts.
  'connect-src https://huggingface.co https://*.huggingface.co https://hf.co https://*.hf.co',
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

let html = read('index.html');
// lang.js then knows the .wasm travels inline and preloads no file.
html = html.replace('<html lang="en">', '<html lang="en" data-single-file>');
if (!html.includes('data-single-file')) throw new Error('index.html: <html lang="en"> not found');
html = html.replace(/<meta http-equiv="Content-Security-Policy" content="[^"]*">/, () => `<meta http-equiv="Content-Security-Policy" content="${csp}">`);
html = html.replace(/\s*<link rel="(?:modulepreload|preload|stylesheet)"[^>]*>/g, '');
html = html.replace(/<link rel="icon" href="favicon.svg"/, () => `<link rel="icon" href="${favicon}"`);
html = html.replace(/\s*<script type="module" src="js\/app.js"><\/script>/, '');
html = html.replace('<script src="lang.js"></script>', () => `<script>${lang}</script>`);
// A function replacement: the code may contain `$'` or `$&`, which a replacement string would expand.
html = html.replace('</head>', () => `  <style>${css}</style>\n  <script type="module">${script}</script>\n</head>`);
if (/src="js\/|src="lang\.js|href="css\//.test(html)) throw new Error('index.html still points at a separate file');
writeFileSync(path.join(dist, 'vramfit.html'), html);
console.log(`single-file: dist/vramfit.html (${(html.length / 1024).toFixed(0)} KiB)`);
