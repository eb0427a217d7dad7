// A Hugging Face repository read into the shapes a drop gives: its config.json and hf_quant_config.json as File
// objects, its weight files as objects with a name, a size and slice(0, n).arrayBuffer(), which asks the Hub for
// those first n bytes (an HTTP Range read). The page's drop path then reads them exactly as dropped files: only
// headers, as far as the core asks. Nothing is fetched until openHubRepo() is called, which the page does only
// when the person asks for a lookup.
//
// Every read is bounded: in time (STALL_MS without a byte arriving), in bytes (the listing, each text's
// max_bytes, a header's max_header_bytes), and sent without cookies. A read that succeeds is kept in Cache Storage
// (CACHE), so a model looked up once answers when huggingface.co cannot be reached; only these bounded reads exist,
// never whole weight files.

export const HUB = 'https://huggingface.co';
export const CACHE = 'vramfit.hub';  // kept across deploys by sw.js (HUB_CACHE)
const STALL_MS = 15_000;
const READ_AT = 'X-Vramfit-Read-At';

/** A failed read, as lookup_failure takes it (without service and name): {status, error_code} or {failure, limit}. */
export class LookupError extends Error {
  constructor(failure) {
    super(failure.failure ?? `HTTP ${failure.status}`);
    this.name = 'LookupError';
    this.failure = failure;
  }
}

const aborted = () => new DOMException('superseded', 'AbortError');

// The cache's key for one read: the URL, and the byte range where only part of a file was asked for (the Cache API
// keeps whole 200 answers only, and ignores a URL's #fragment).
function cacheKey(url, range) {
  if (!range) return url;
  return `${url}${url.includes('?') ? '&' : '?'}vramfit-bytes=${range[0]}-${range[1]}`;
}

async function openCache() {
  try {
    return globalThis.caches ? await caches.open(CACHE) : null;
  } catch {
    return null;  // no Cache Storage here (file://, private mode): every lookup asks the Hub
  }
}

/**
 * One read of the Hub session: GET `path` (relative to the Hub) with an optional byte range [first, last], at most
 * `limit` bytes. Answers the bytes; throws LookupError, or an AbortError when `signal` ends it.
 */
async function read(session, path, { range = null, limit }) {
  const url = HUB + path;
  const { signal } = session;
  if (signal.aborted) throw aborted();
  const own = new AbortController();
  let timedOut = false;
  let timer = 0;
  const stall = () => {
    clearTimeout(timer);
    timer = setTimeout(() => { timedOut = true; own.abort(); }, STALL_MS);
  };
  const stop = () => own.abort();
  signal.addEventListener('abort', stop);
  stall();
  try {
    let response;
    try {
      response = await fetch(url, {
        signal: own.signal,
        credentials: 'omit',
        redirect: 'follow',
        referrerPolicy: 'no-referrer',
        headers: range ? { Range: `bytes=${range[0]}-${range[1]}` } : {},
      });
    } catch (error) {
      if (signal.aborted) throw aborted();
      // A browser says no more than "failed" for a network down, a filter, cross-origin rules or a redirect to http.
      throw new LookupError({ failure: timedOut ? 'timeout' : navigator.onLine === false ? 'offline' : 'blocked' });
    }
    // The Hub busy or failing: an earlier read of the same bytes answers, as when it cannot be reached.
    if (response.status === 429 || response.status >= 500) throw new LookupError({ status: response.status, retry: true });
    if (!response.ok) throw new LookupError({ status: response.status, error_code: response.headers.get('X-Error-Code') ?? '' });
    const asked = range ? range[1] - range[0] + 1 : Infinity;
    // 206 from the first byte asked; a 200 is the whole file from its start (a server that ignores Range), whose
    // first bytes are the part asked for: read that far and stop.
    const whole = range !== null && response.status === 200;
    if (range && (whole ? range[0] !== 0
      : Number(/^bytes (\d+)-/.exec(response.headers.get('Content-Range') ?? '')?.[1]) !== range[0])) {
      throw new LookupError({ failure: 'bad_range' });
    }
    const bytes = await body(response, Math.min(limit, asked), stall, { ranged: range !== null, whole });
    store(url, range, bytes);
    return bytes;
  } catch (error) {
    if (signal.aborted) throw aborted();
    const failure = timedOut ? 'timeout' : error?.failure?.failure;
    if (failure === 'timeout' || failure === 'offline' || failure === 'blocked' || error?.failure?.retry) {
      const copy = await fromCache(session, url, range);
      if (copy) return copy;
    }
    if (timedOut) throw new LookupError({ failure: 'timeout' });
    if (error?.failure?.retry) throw new LookupError({ status: error.failure.status });
    throw error;
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', stop);
  }
}

// The body as a stream, never more than `limit` bytes: past it the read stops. A whole file sent for a range keeps
// its first `limit` bytes; a range answer longer than asked is not the part asked for; anything else is too large.
async function body(response, limit, progress, { ranged, whole }) {
  const reader = response.body.getReader();
  const chunks = [];
  let length = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    progress();
    if (length + value.length > limit) {
      reader.cancel().catch(() => {});
      if (!whole) throw new LookupError(ranged ? { failure: 'bad_range' } : { failure: 'too_large', limit });
      chunks.push(value.subarray(0, limit - length));
      length = limit;
      break;
    }
    length += value.length;
    chunks.push(value);
  }
  const bytes = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return bytes;
}

// The copies kept: enough for the models a person compares, not a record of every lookup (the oldest go first).
const MOST_KEPT = 200;

function store(url, range, bytes) {
  openCache().then(async (cache) => {
    if (!cache) return;
    await cache.put(cacheKey(url, range), new Response(bytes, {
      headers: { 'Content-Type': 'application/octet-stream', [READ_AT]: new Date().toISOString() },
    }));
    const keys = await cache.keys();  // in the order they were put
    for (const old of keys.slice(0, Math.max(0, keys.length - MOST_KEPT))) await cache.delete(old);
  }).catch(() => { /* not kept: the next lookup asks the Hub again */ });
}

async function fromCache(session, url, range) {
  const cache = await openCache();
  const hit = await cache?.match(cacheKey(url, range)).catch(() => undefined);
  if (!hit) return null;
  const at = new Date(hit.headers.get(READ_AT) ?? 0);
  if (!session.readAt || at < session.readAt) session.readAt = at;
  return new Uint8Array(await hit.arrayBuffer());
}

// A weight file on the Hub, read from its start as File.slice(0, n) reads a dropped one. The first read asks for
// `first` bytes at once (one request answers most headers); a longer prefix asks for the bytes not yet held.
class RemoteFile {
  constructor(session, { name, path, size }, first, most) {
    Object.assign(this, { session, name, path, size, first, most });
    this.bytes = new Uint8Array(0);
    this.pending = Promise.resolve();
  }

  slice(start, end) {
    return { arrayBuffer: () => this.prefix(Math.min(end ?? this.size, this.size)).then((b) => b.slice(start).buffer) };
  }

  prefix(n) {
    const next = this.pending.then(() => this.grow(n));
    this.pending = next.catch(() => {});
    return next;
  }

  async grow(n) {
    if (n > this.most) throw new LookupError({ failure: 'too_large', limit: this.most });
    if (this.bytes.length < n) {
      const want = Math.min(this.size, this.most, Math.max(n, this.first));
      const have = this.bytes.length;
      const more = await read(this.session, this.path, { range: [have, want - 1], limit: want - have });
      const bytes = new Uint8Array(have + more.length);
      bytes.set(this.bytes);
      bytes.set(more, have);
      this.bytes = bytes;
      if (have === 0) this.session.step();
      if (this.bytes.length < n) throw new LookupError({ failure: 'bad_range' });
    }
    return this.bytes.subarray(0, n);
  }
}

// The model API's answer per listing path, for this page's life: picking another quantization of a repository
// asks for that file's header, not the listing again.
const listings = new Map();

/**
 * Reads what `plan_hub_reads` names for `name` (a Hub repository as read_model_name read it): the listing, then the
 * texts whole. Answers {plan, files, session}: `files` to hand to the drop path (the texts as Files, the weight files
 * as RemoteFiles), `session.readAt` the date of the oldest copy used when the Hub could not be reached.
 * `calculator` is core.js's; `onProgress(done, total)` counts files whose first bytes arrived; total 0 while the
 * listing is asked for.
 */
export async function openHubRepo(calculator, name, reading, { signal, onProgress = () => {} }) {
  const session = { signal, readAt: null, done: 0, total: 0, step() { onProgress(++this.done, this.total); } };
  onProgress(0, 0);
  let listing = listings.get(reading.listing);
  if (!listing) {
    listing = new TextDecoder().decode(await read(session, reading.listing, { limit: reading.max_bytes }));
    if (!session.readAt) listings.set(reading.listing, listing);
  }
  const plan = calculator.planHubReads(name, reading.revision, listing);
  if (!plan.ok) return { plan, files: [], session };
  session.total = plan.texts.length + plan.headers.length;
  onProgress(0, session.total);
  const texts = await Promise.all(plan.texts.map(async (text) => {
    const bytes = await read(session, text.path, { limit: text.max_bytes });
    session.step();
    return new File([bytes], text.role === 'quant_config' ? 'hf_quant_config.json' : 'config.json', { type: 'application/json' });
  }));
  const headers = plan.headers.map((h) => new RemoteFile(session, h, plan.first_read_bytes, plan.max_header_bytes));
  return { plan, files: [...texts, ...headers], session };
}

/** The repository's page on the Hub. */
export const repoPage = (repo) => `${HUB}/${repo.split('/').map(encodeURIComponent).join('/')}`;
