// A response body made of segments, so that multi-GB files are never materialised.
// A segment is a Buffer (real bytes, e.g. a safetensors/GGUF header) or {fill, length}
// (a run of one byte value: the zeros after a header, the spaces padding a huge JSON).
import { createHash } from 'node:crypto';

const CHUNK = 1 << 20; // 1 MiB per write keeps memory flat while streaming many GB

export class Body {
  constructor(segments) {
    this.segments = segments.filter((s) => (Buffer.isBuffer(s) ? s.length : s.length) > 0);
    this.size = this.segments.reduce((n, s) => n + s.length, 0);
  }

  static of(buffer) {
    return new Body([buffer]);
  }

  // A sparse file: real header bytes, then zeros up to the true total size.
  static sparse(header, size) {
    if (size < header.length) throw new Error(`size ${size} smaller than header ${header.length}`);
    return new Body([header, { fill: 0, length: size - header.length }]);
  }

  // Yields Buffers covering bytes [start, end] (inclusive, like HTTP ranges).
  *chunks(start = 0, end = this.size - 1) {
    let offset = 0;
    for (const seg of this.segments) {
      const segStart = offset;
      const segEnd = offset + seg.length - 1;
      offset += seg.length;
      if (segEnd < start || segStart > end) continue;
      let from = Math.max(start, segStart) - segStart;
      const to = Math.min(end, segEnd) - segStart + 1;
      if (Buffer.isBuffer(seg)) {
        yield seg.subarray(from, to);
        continue;
      }
      const block = Buffer.alloc(Math.min(CHUNK, to - from), seg.fill);
      while (from < to) {
        const n = Math.min(CHUNK, to - from);
        yield n === block.length ? block : block.subarray(0, n);
        from += n;
      }
    }
  }

  // Only for small generated bodies (e.g. the 50 MB JSON): hashes by streaming.
  sha256() {
    const h = createHash('sha256');
    for (const c of this.chunks()) h.update(c);
    return h.digest('hex');
  }

  // Git blob id (what the Hub reports as oid/ETag for non-LFS files).
  gitOid() {
    const h = createHash('sha1');
    h.update(`blob ${this.size}\0`);
    for (const c of this.chunks()) h.update(c);
    return h.digest('hex');
  }
}
