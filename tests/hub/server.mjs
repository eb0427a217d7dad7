// Local stand-in for huggingface.co, its LFS/Xet CDN and registry.ollama.ai, so that tests of
// the model lookup client never leave the machine. Protocol details follow huggingface_hub
// (hf_api.py, file_download.py, utils/_http.py) and ollama (server/images.go, download.go);
// README.md lists each behaviour and where it comes from.
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { loadFixtures } from './fixtures.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));

// Exactly what huggingface.co sends (observed response headers, 2026).
const EXPOSE = 'X-Repo-Commit,X-Request-Id,X-Error-Code,X-Error-Message,X-Total-Count,ETag,Link,Accept-Ranges,Content-Range,X-Linked-Size,X-Linked-ETag,X-Xet-Hash';
const LAST_MODIFIED = 'Thu, 01 Jan 2026 00:00:00 GMT';

class Reply {
  constructor(status, headers = {}, body = null) { Object.assign(this, { status, headers, body }); }
}
const json = (status, value, headers = {}) =>
  new Reply(status, { 'Content-Type': 'application/json; charset=utf-8', ...headers }, Buffer.from(JSON.stringify(value)));
// Hub errors: the code and message in headers (hf_raise_for_status reads them) and {error} in the body.
const hubError = (status, code, message, extra = {}) =>
  json(status, { error: message }, { ...(code && { 'X-Error-Code': code }), 'X-Error-Message': message, ...extra });

function bearer(req) {
  const m = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  return m ? m[1] : null;
}

export async function startHub(options = {}) {
  const fx = loadFixtures(options.fixturesDir ?? join(HERE, 'fixtures'));
  const token = options.token ?? 'hf_test_token';
  const requests = [];
  const rateCounts = new Map();
  const hanging = new Set();
  let origin;
  let insecureOrigin; // second listener: target of the "LFS redirect to plain http" fault

  const hubOrigin = () => options.hubOrigin ?? origin;
  const cdnOrigin = () => options.cdnOrigin ?? origin;

  // Authorization against a repo: 'ok', or the Reply to send instead.
  function access(req, repo, { files }) {
    const t = bearer(req);
    if (t && !t.startsWith('hf_')) {
      return hubError(401, null, 'Invalid credentials in Authorization header', { 'WWW-Authenticate': 'Bearer realm="Authentication required", charset="UTF-8"' });
    }
    // Unknown and private repos look the same to outsiders: 401 without a token, 404 with one.
    if (!repo || (repo.info.private && t !== token)) {
      return hubError(t ? 404 : 401, 'RepoNotFound', 'Repository not found');
    }
    if (files && repo.info.gated && t !== token) {
      if (!t) {
        return hubError(401, 'GatedRepo', `Access to model ${repo.id} is restricted. You must have access to it and be authenticated to access it. Please log in.`,
          { 'WWW-Authenticate': 'Bearer realm="Authentication required", charset="UTF-8"' });
      }
      return hubError(403, 'GatedRepo', `Access to model ${repo.id} is restricted and you are not in the authorized list. Visit ${hubOrigin()}/${repo.id} to ask for access.`);
    }
    return 'ok';
  }

  // Faults that apply to every request on a repo, before anything else.
  function fault(req, repo) {
    if (!repo?.fault) return null;
    if (repo.fault.hang) return 'hang';
    if (repo.fault.rateLimit) {
      const n = (rateCounts.get(repo.id) ?? 0) + 1;
      rateCounts.set(repo.id, n);
      const { times = Infinity, retryAfter = 1 } = repo.fault.rateLimit;
      if (n <= times) {
        return hubError(429, null, 'Too Many Requests', {
          'Retry-After': String(retryAfter),
          RateLimit: `"api";r=0;t=${retryAfter}`,
          'RateLimit-Policy': '"fixed window";"api";q=500;w=300',
        });
      }
    }
    return null;
  }

  const revisionOf = (repo, rev) => {
    if (rev === repo.sha) return repo.sha;
    return (repo.refs ?? { main: repo.sha })[rev] ?? null;
  };

  function modelInfo(req, url, id, rev) {
    const repo = fx.hf.get(id.toLowerCase());
    const denied = access(req, repo, { files: false });
    if (denied !== 'ok') return denied;
    const sha = revisionOf(repo, rev ?? 'main');
    if (!sha) return hubError(404, 'RevisionNotFound', `Invalid rev id: ${rev}`);
    const blobs = url.searchParams.get('blobs') === 'true';
    const siblings = [...repo.files.values()].map((f) => {
      if (!blobs) return { rfilename: f.path };
      const s = { rfilename: f.path, blobId: f.oid, size: f.size };
      if (f.lfs) s.lfs = { sha256: f.sha256, size: f.size, pointerSize: f.pointerSize };
      return s;
    });
    const { _id, ...rest } = repo.info;
    return json(200, { _id, id: repo.id, ...rest, sha, siblings });
  }

  function tree(req, url, id, rev, prefix = '') {
    const repo = fx.hf.get(id.toLowerCase());
    const denied = access(req, repo, { files: false });
    if (denied !== 'ok') return denied;
    if (!revisionOf(repo, rev)) return hubError(404, 'RevisionNotFound', `Invalid rev id: ${rev}`);
    const recursive = url.searchParams.get('recursive') === 'true';
    const base = prefix ? `${prefix.replace(/\/$/, '')}/` : '';
    const entries = new Map();
    for (const f of repo.files.values()) {
      if (!f.path.startsWith(base)) continue;
      const rest = f.path.slice(base.length).split('/');
      // Directories on the way to the file (only the first level unless recursive).
      for (let d = 1; d < rest.length && (recursive || d === 1); d++) {
        const p = base + rest.slice(0, d).join('/');
        entries.set(p, { type: 'directory', oid: '0'.repeat(40), size: 0, path: p });
      }
      if (!recursive && rest.length > 1) continue;
      const e = { type: 'file', oid: f.oid, size: f.size, path: f.path };
      if (f.lfs) e.lfs = { oid: f.sha256, size: f.size, pointerSize: f.pointerSize };
      entries.set(f.path, e);
    }
    if (prefix && entries.size === 0) return hubError(404, 'EntryNotFound', `${prefix} does not exist on "${rev}"`);
    return json(200, [...entries.values()]);
  }

  function resolve(req, id, rev, path) {
    const repo = fx.hf.get(id.toLowerCase());
    const denied = access(req, repo, { files: true });
    if (denied !== 'ok') return denied;
    const sha = revisionOf(repo, rev);
    if (!sha) return hubError(404, 'RevisionNotFound', `Invalid rev id: ${rev}`);
    const file = repo.files.get(path);
    if (!file) return hubError(404, 'EntryNotFound', `Entry not found`, { 'X-Repo-Commit': sha });
    const common = { 'X-Repo-Commit': sha, 'Accept-Ranges': 'bytes' };
    if (file.lfs) {
      // Large files live on the CDN: the Hub answers 302 with the size and sha256 in X-Linked-*.
      const target = repo.fault?.insecureCdn ? insecureOrigin : cdnOrigin();
      // ignoreRange: a CDN that answers every request with the whole file (200), as some mirrors do.
      const whole = repo.fault?.ignoreRange ? '?whole=1' : '';
      const location = `${target}/cdn/${file.sha256}/${encodeURIComponent(path.split('/').pop())}${whole}`;
      return new Reply(302, {
        ...common, Location: location, 'X-Linked-Size': String(file.size), 'X-Linked-Etag': `"${file.sha256}"`,
        ETag: `"${file.oid}"`, 'Content-Type': 'text/plain; charset=utf-8',
      }, Buffer.from(`Found. Redirecting to ${location}`));
    }
    if (options.resolveCache) {
      // Today's Hub: a relative 307 to a same-host cache URL (clients must follow relative redirects).
      const location = `/api/resolve-cache/models/${repo.id}/${sha}/${path}?etag=%22${file.oid}%22`;
      return new Reply(307, { ...common, Location: location, 'X-Linked-Etag': `"${file.oid}"`, 'X-Linked-Size': String(file.size) });
    }
    return serveBody(req, file.body, { ...common, ETag: `"${file.oid}"`, 'Content-Type': 'text/plain; charset=utf-8' });
  }

  function resolveCached(req, id, sha, path) {
    const repo = fx.hf.get(id.toLowerCase());
    const file = repo?.sha === sha ? repo.files.get(path) : null;
    if (!file || file.lfs) return hubError(404, 'EntryNotFound', 'Entry not found');
    return serveBody(req, file.body, { 'X-Repo-Commit': sha, ETag: `"${file.oid}"`, 'Content-Type': 'text/plain; charset=utf-8' });
  }

  function cdn(req, sha256, url) {
    const file = fx.cdn.get(sha256);
    if (!file) return new Reply(404, { 'Content-Type': 'text/plain' }, Buffer.from('Not Found'));
    const headers = { ETag: `"${sha256}"`, 'Content-Type': 'application/octet-stream' };
    if (url.searchParams.get('whole') === '1') {
      const body = file.body;
      return new Reply(200, { ...headers, 'Content-Length': String(body.size) }, { body, start: 0, end: body.size - 1 });
    }
    return serveBody(req, file.body, headers);
  }

  // Range handling (RFC 9110 single range): 206 + Content-Range, 416 + "bytes */size".
  function serveBody(req, body, headers) {
    const h = { 'Accept-Ranges': 'bytes', 'Last-Modified': LAST_MODIFIED, ...headers };
    const range = req.headers.range;
    if (!range) return new Reply(200, { ...h, 'Content-Length': String(body.size) }, { body, start: 0, end: body.size - 1 });
    const m = /^bytes=(\d*)-(\d*)$/.exec(range.trim());
    let start;
    let end;
    if (m && m[1] !== '') {
      start = Number(m[1]);
      end = m[2] === '' ? body.size - 1 : Math.min(Number(m[2]), body.size - 1);
    } else if (m && m[2] !== '') { // suffix range: the last n bytes
      start = Math.max(0, body.size - Number(m[2]));
      end = body.size - 1;
    }
    if (!m || start === undefined || start >= body.size || end < start) {
      return new Reply(416, { ...h, 'Content-Range': `bytes */${body.size}`, 'Content-Type': 'text/plain' }, Buffer.from('Range Not Satisfiable'));
    }
    return new Reply(206, { ...h, 'Content-Range': `bytes ${start}-${end}/${body.size}`, 'Content-Length': String(end - start + 1) }, { body, start, end });
  }

  // --- Ollama registry (Docker Registry HTTP API v2 as registry.ollama.ai speaks it) ---
  const registryError = (status, code, message, detail) =>
    json(status, { errors: [{ code, message, ...(detail && { detail }) }] });

  function manifest(req, name, tag) {
    const key = `${name.includes('/') ? name : `library/${name}`}:${tag}`;
    const m = fx.ollama.get(key);
    if (!m) return registryError(404, 'MANIFEST_UNKNOWN', 'manifest unknown', { Tag: tag });
    return new Reply(200, {
      'Content-Type': 'application/vnd.docker.distribution.manifest.v2+json',
      'Docker-Content-Digest': m.digest, ETag: `"${m.digest}"`, 'Content-Length': String(m.manifest.length),
    }, m.manifest);
  }

  function blob(req, name, digest) {
    for (const [key, m] of fx.ollama) {
      if (!key.startsWith(`${name.includes('/') ? name : `library/${name}`}:`)) continue;
      const b = m.blobs.get(digest);
      if (!b) continue;
      // Model weights: 307 to object storage (ollama's download.go follows it and then uses Range).
      if (b.redirect) return new Reply(307, { Location: `${cdnOrigin()}/cdn/${digest.slice(7)}`, 'Content-Length': '0' }, null);
      return serveBody(req, b.body, { 'Content-Type': 'application/octet-stream', 'Docker-Content-Digest': digest });
    }
    return registryError(404, 'BLOB_UNKNOWN', 'blob unknown to registry', { Digest: digest });
  }

  const dec = (s) => decodeURIComponent(s);
  const routes = [
    [/^\/api\/models\/([^/]+\/[^/]+)\/tree\/([^/]+)(?:\/(.*))?$/, (q, u, m) => tree(q, u, m[1], dec(m[2]), m[3] && dec(m[3]))],
    [/^\/api\/models\/([^/]+\/[^/]+)\/revision\/([^/]+)$/, (q, u, m) => modelInfo(q, u, m[1], dec(m[2]))],
    [/^\/api\/models\/([^/]+\/[^/]+)$/, (q, u, m) => modelInfo(q, u, m[1])],
    [/^\/api\/resolve-cache\/models\/([^/]+\/[^/]+)\/([0-9a-f]{40})\/(.+)$/, (q, u, m) => resolveCached(q, m[1], m[2], dec(m[3]))],
    [/^\/cdn\/([0-9a-f]{64})(?:\/.*)?$/, (q, u, m) => cdn(q, m[1], u)],
    [/^\/v2\/(.+)\/manifests\/([^/]+)$/, (q, u, m) => manifest(q, m[1], m[2])],
    [/^\/v2\/(.+)\/blobs\/(sha256:[0-9a-f]{64})$/, (q, u, m) => blob(q, m[1], m[2])],
    [/^\/([^/]+\/[^/]+)\/resolve\/([^/]+)\/(.+)$/, (q, u, m) => resolve(q, m[1], dec(m[2]), dec(m[3]))],
  ];

  // Repo id of a Hub URL, so that faults apply to all of a repo's endpoints.
  function repoOf(pathname) {
    const m = /^\/api\/models\/([^/]+\/[^/]+)/.exec(pathname) ?? /^\/([^/]+\/[^/]+)\/resolve\//.exec(pathname);
    return m ? fx.hf.get(m[1].toLowerCase()) : null;
  }

  function handle(req, res) {
    const url = new URL(req.url, 'http://x');
    const log = { method: req.method, path: req.url, range: req.headers.range ?? null,
      authorization: req.headers.authorization ?? null, status: null, bytesSent: 0 };
    requests.push(log);
    const cors = {
      'Access-Control-Allow-Origin': '*',
      'Access-Control-Expose-Headers': EXPOSE,
      'Access-Control-Max-Age': '86400',
    };
    let reply;
    if (req.method === 'OPTIONS') {
      // CORS preflight: Range and Authorization are not CORS-safelisted, so browsers ask first.
      reply = new Reply(204, {
        'Access-Control-Allow-Methods': 'GET,HEAD,POST,PUT,DELETE,OPTIONS',
        'Access-Control-Allow-Headers': req.headers['access-control-request-headers'] ?? 'Authorization,Range,Content-Type',
      });
    } else if (req.method !== 'GET' && req.method !== 'HEAD') {
      reply = new Reply(405, { Allow: 'GET, HEAD, OPTIONS' });
    } else {
      const f = fault(req, repoOf(url.pathname));
      if (f === 'hang') {
        hanging.add(res); // never answered; close() destroys the socket
        res.on('close', () => hanging.delete(res));
        return;
      }
      reply = f;
      for (const [re, fn] of routes) {
        if (reply) break;
        const m = re.exec(url.pathname);
        if (m) reply = fn(req, url, m);
      }
      reply ??= new Reply(404, { 'Content-Type': 'text/plain' }, Buffer.from('Not Found'));
    }
    log.status = reply.status;
    const headers = { ...cors, 'X-Request-Id': `Root=1-test-${requests.length}`, ...reply.headers };
    if (Buffer.isBuffer(reply.body)) headers['Content-Length'] = String(reply.body.length);
    res.writeHead(reply.status, headers);
    if (req.method === 'HEAD' || !reply.body) return res.end();
    if (Buffer.isBuffer(reply.body)) {
      log.bytesSent = reply.body.length;
      return res.end(reply.body);
    }
    stream(res, reply.body, log);
  }

  // Streams a Body range with backpressure; stops when the client goes away.
  function stream(res, { body, start, end }, log) {
    const it = body.chunks(start, end);
    let closed = false;
    res.on('close', () => { closed = true; });
    const pump = () => {
      while (!closed) {
        const { value, done } = it.next();
        if (done) return res.end();
        log.bytesSent += value.length;
        if (!res.write(value)) return res.once('drain', pump);
      }
    };
    pump();
  }

  const server = http.createServer(handle);
  const insecure = http.createServer(handle);
  const listen = (srv, port) => new Promise((ok, fail) => {
    srv.once('error', fail);
    srv.listen(port, '127.0.0.1', () => ok(srv.address().port));
  });
  const port = await listen(server, options.port ?? 0);
  origin = `http://127.0.0.1:${port}`;
  insecureOrigin = `http://127.0.0.1:${await listen(insecure, 0)}`;

  return {
    url: origin,
    port,
    requests,
    async close() {
      for (const srv of [server, insecure]) {
        const done = new Promise((ok) => srv.close(() => ok()));
        srv.closeAllConnections(); // ends keep-alive and the deliberately hanging requests
        await done;
      }
    },
  };
}

// Standalone: node tests/hub/server.mjs [--port 8765] [--cdn-origin URL] [--hub-origin URL] [--token T] [--resolve-cache]
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const arg = (name) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const hub = await startHub({
    port: Number(arg('--port') ?? 0),
    cdnOrigin: arg('--cdn-origin'),
    hubOrigin: arg('--hub-origin'),
    token: arg('--token'),
    resolveCache: process.argv.includes('--resolve-cache'),
  });
  console.log(hub.url);
  const stop = () => hub.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
