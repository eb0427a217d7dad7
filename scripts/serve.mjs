// Static file server for dist/: correct MIME types (application/wasm for streaming compilation),
// the page's Content-Security-Policy as a header, and nothing else. Usage: node serve.mjs DIR [PORT]
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';

export const CSP = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self' https://huggingface.co https://*.huggingface.co https://hf.co https://*.hf.co",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.md': 'text/markdown; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
};

// `mounts` ({'/src/': 'web'}) serves a second folder under a prefix, falling back to root for what it lacks:
// the tests import the unbundled modules from /src/js/ while the page runs the bundle.
export function startServer(root, port = 8000, host = '127.0.0.1', mounts = {}) {
  const base = path.resolve(root);
  const inside = (dir, pathname) => {
    const file = path.normalize(path.join(dir, pathname));
    if (!file.startsWith(dir)) throw Object.assign(new Error('outside root'), { code: 'ENOENT' });
    return file;
  };
  const resolve = async (pathname) => {
    for (const [prefix, dir] of Object.entries(mounts)) {
      if (!pathname.startsWith(prefix)) continue;
      const file = inside(path.resolve(dir), pathname.slice(prefix.length));
      if (await stat(file).then(() => true, () => false)) return file;
      return inside(base, pathname.slice(prefix.length));
    }
    return inside(base, pathname);
  };
  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url, 'http://localhost');
      let file = await resolve(decodeURIComponent(url.pathname));
      if ((await stat(file)).isDirectory()) file = path.join(file, 'index.html');
      const body = await readFile(file);
      res.writeHead(200, {
        'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream',
        'Content-Security-Policy': CSP,
        'X-Content-Type-Options': 'nosniff',
        'Cache-Control': 'no-cache',
      });
      res.end(body);
    } catch {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('not found');
    }
  });
  return new Promise((resolve) => server.listen(port, host, () => resolve(server)));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [root = 'dist', port = '8000'] = process.argv.slice(2);
  const server = await startServer(root, Number(port), 'localhost');
  console.log(`vramfit: serving ${root} on http://localhost:${server.address().port}/`);
}
