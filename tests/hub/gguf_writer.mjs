// Minimal GGUF v3 header writer (format: ggml/docs/gguf.md). Writes magic, version, counts,
// typed key/values and tensor infos; the tensor data itself is never produced (the server
// serves zeros after the header), but offsets and the total size are exactly what a real
// file of these tensors has: every tensor's data starts on `general.alignment`.

// ggml_type -> [id, elements per block, bytes per block] (ggml/src/ggml.c type_traits).
export const GGML_TYPES = {
  F32: [0, 1, 4], F16: [1, 1, 2], Q4_0: [2, 32, 18], Q4_1: [3, 32, 20], Q5_0: [6, 32, 22],
  Q5_1: [7, 32, 24], Q8_0: [8, 32, 34], Q8_1: [9, 32, 36], Q2_K: [10, 256, 84], Q3_K: [11, 256, 110],
  Q4_K: [12, 256, 144], Q5_K: [13, 256, 176], Q6_K: [14, 256, 210], Q8_K: [15, 256, 292],
  IQ2_XXS: [16, 256, 66], IQ2_XS: [17, 256, 74], IQ3_XXS: [18, 256, 98], IQ1_S: [19, 256, 50],
  IQ4_NL: [20, 32, 18], IQ3_S: [21, 256, 110], IQ2_S: [22, 256, 82], IQ4_XS: [23, 256, 136],
  I8: [24, 1, 1], I16: [25, 1, 2], I32: [26, 1, 4], I64: [27, 1, 8], F64: [28, 1, 8],
  IQ1_M: [29, 256, 56], BF16: [30, 1, 2], TQ1_0: [34, 256, 54], TQ2_0: [35, 256, 66],
  MXFP4: [39, 32, 17],
};

// gguf_metadata_value_type ids.
const VT = { u8: 0, i8: 1, u16: 2, i16: 3, u32: 4, i32: 5, f32: 6, bool: 7, str: 8, arr: 9, u64: 10, i64: 11, f64: 12 };

export function tensorBytes(type, shape) {
  const t = GGML_TYPES[type];
  if (!t) throw new Error(`unknown ggml type ${type}`);
  const [, block, bytes] = t;
  if (shape[0] % block !== 0) throw new Error(`ne0 ${shape[0]} not a multiple of ${type} block ${block}`);
  return (shape.reduce((a, b) => a * b, 1) / block) * bytes;
}

const align = (n, a) => Math.ceil(n / a) * a;

class Writer {
  constructor() { this.parts = []; this.length = 0; }
  push(buf) { this.parts.push(buf); this.length += buf.length; }
  u32(v) { const b = Buffer.alloc(4); b.writeUInt32LE(v); this.push(b); }
  u64(v) { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); this.push(b); }
  str(s) { const b = Buffer.from(s, 'utf8'); this.u64(b.length); this.push(b); }
  scalar(type, v) {
    const b = Buffer.alloc({ u8: 1, i8: 1, bool: 1, u16: 2, i16: 2, u32: 4, i32: 4, f32: 4, u64: 8, i64: 8, f64: 8 }[type]);
    switch (type) {
      case 'u8': b.writeUInt8(v); break;
      case 'i8': b.writeInt8(v); break;
      case 'bool': b.writeUInt8(v ? 1 : 0); break;
      case 'u16': b.writeUInt16LE(v); break;
      case 'i16': b.writeInt16LE(v); break;
      case 'u32': b.writeUInt32LE(v); break;
      case 'i32': b.writeInt32LE(v); break;
      case 'f32': b.writeFloatLE(v); break;
      case 'u64': b.writeBigUInt64LE(BigInt(v)); break;
      case 'i64': b.writeBigInt64LE(BigInt(v)); break;
      case 'f64': b.writeDoubleLE(v); break;
      default: throw new Error(`bad scalar type ${type}`);
    }
    this.push(b);
  }
  value(type, v) {
    const arr = /^arr\[(\w+)\]$/.exec(type);
    if (arr) {
      const items = expandArray(v);
      this.u32(VT[arr[1]]);
      this.u64(items.length);
      // One buffer per array: a 201k-token vocabulary written item by item takes seconds.
      const sub = new Writer();
      if (arr[1] === 'str') {
        const bytes = items.map((x) => Buffer.from(x, 'utf8'));
        const out = Buffer.alloc(bytes.reduce((n, b) => n + 8 + b.length, 0));
        let o = 0;
        for (const b of bytes) { out.writeBigUInt64LE(BigInt(b.length), o); b.copy(out, o + 8); o += 8 + b.length; }
        this.push(out);
      } else {
        for (const item of items) sub.value(arr[1], item);
        this.push(Buffer.concat(sub.parts));
      }
    } else if (type === 'str') this.str(v);
    else this.scalar(type, v);
  }
  buffer() { return Buffer.concat(this.parts); }
}

// Arrays may be given literally or generated, so a 201k-entry vocabulary need not be stored:
// {count, format: "tok{i}"} or {count, value: x}.
function expandArray(v) {
  if (Array.isArray(v)) return v;
  return Array.from({ length: v.count }, (_, i) => (v.format !== undefined ? v.format.replace('{i}', i) : v.value));
}

// spec: {kv: [[key, type, value]...], tensors: [{name, type, shape}], alignment?,
//        size?: true total file size (filled by a `vramfit.padding` string KV, see README),
//        tensorCount?: value written instead of the real count (fault fixture),
//        offsetShift?: {name, offset} writes a wrong offset for one tensor (fault fixture)}
// returns {header: Buffer, size, dataOffset}
export function writeGguf(spec) {
  const alignment = spec.alignment ?? 32;
  let offset = 0;
  const tensors = spec.tensors.map((t) => {
    const o = { ...t, offset };
    offset = align(offset + tensorBytes(t.type, t.shape), alignment);
    return o;
  });
  const dataSize = offset;
  const build = (padLength) => {
    const kv = [...spec.kv];
    if (padLength !== undefined) kv.push(['vramfit.padding', 'str', ' '.repeat(padLength)]);
    const w = new Writer();
    w.push(Buffer.from('GGUF', 'ascii'));
    w.u32(spec.version ?? 3);
    w.u64(spec.tensorCount ?? tensors.length);
    w.u64(kv.length);
    for (const [key, type, value] of kv) {
      w.str(key);
      const arr = /^arr\[(\w+)\]$/.exec(type);
      w.u32(arr ? VT.arr : VT[type]);
      w.value(type, value);
    }
    for (const t of tensors) {
      w.str(t.name);
      w.u32(t.shape.length);
      for (const d of t.shape) w.u64(d);
      w.u32(GGML_TYPES[t.type][0]);
      w.u64(spec.offsetShift?.name === t.name ? spec.offsetShift.offset : t.offset);
    }
    return w;
  };
  let w = build();
  if (spec.size !== undefined) {
    const target = spec.size - dataSize; // where the data section must start
    const pad = target - build(0).length;
    if (pad < 0 || target % alignment !== 0) {
      throw new Error(`GGUF size ${spec.size} unreachable: data ${dataSize}, header ${build(0).length}`);
    }
    w = build(pad);
  }
  const dataOffset = align(w.length, alignment);
  const header = Buffer.concat([w.buffer(), Buffer.alloc(dataOffset - w.length)]);
  return { header, size: dataOffset + dataSize, dataOffset };
}
