#pragma once
// Writes small, format-exact model files for the parser tests: GGUF v3 (ggml docs/gguf.md) and
// safetensors (huggingface/safetensors README), byte by byte, little-endian.
#include <cstddef>  // std::byte
#include <cstdint>  // std::uint64_t
#include <cstring>  // std::memcpy
#include <string>   // std::string
#include <vector>   // std::vector

#include <nlohmann/json.hpp>

#include "formats/ggml_types.hpp"

namespace vramfit::test {

using Bytes = std::vector<std::byte>;

inline void put_le(Bytes& out, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<std::byte>((v >> (8 * i)) & 0xFF));
}

class GgufBuilder {
 public:
  // Metadata values; the value type codes are the spec's gguf_metadata_value_type.
  GgufBuilder& u32(const std::string& key, std::uint32_t v) { return kv(key, 4, [&](Bytes& b) { put_le(b, v, 4); }); }
  GgufBuilder& u64(const std::string& key, std::uint64_t v) { return kv(key, 10, [&](Bytes& b) { put_le(b, v, 8); }); }
  GgufBuilder& i32(const std::string& key, std::int32_t v) {
    return kv(key, 5, [&](Bytes& b) { put_le(b, static_cast<std::uint32_t>(v), 4); });
  }
  GgufBuilder& f32(const std::string& key, float v) {
    std::uint32_t bits;
    std::memcpy(&bits, &v, 4);
    return kv(key, 6, [&](Bytes& b) { put_le(b, bits, 4); });
  }
  GgufBuilder& boolean(const std::string& key, bool v) { return kv(key, 7, [&](Bytes& b) { put_le(b, v, 1); }); }
  GgufBuilder& str(const std::string& key, const std::string& v) { return kv(key, 8, [&](Bytes& b) { string(b, v); }); }
  GgufBuilder& strings(const std::string& key, const std::vector<std::string>& v) {
    return kv(key, 9, [&](Bytes& b) {
      put_le(b, 8, 4);
      put_le(b, v.size(), 8);
      for (const auto& s : v) string(b, s);
    });
  }
  GgufBuilder& u32s(const std::string& key, const std::vector<std::uint32_t>& v) {
    return kv(key, 9, [&](Bytes& b) {
      put_le(b, 4, 4);
      put_le(b, v.size(), 8);
      for (auto x : v) put_le(b, x, 4);
    });
  }
  // An array of arrays of int32: [[1, 2], [3]].
  GgufBuilder& nested_i32s(const std::string& key, const std::vector<std::vector<std::int32_t>>& v) {
    return kv(key, 9, [&](Bytes& b) {
      put_le(b, 9, 4);
      put_le(b, v.size(), 8);
      for (const auto& inner : v) {
        put_le(b, 5, 4);
        put_le(b, inner.size(), 8);
        for (auto x : inner) put_le(b, static_cast<std::uint32_t>(x), 4);
      }
    });
  }
  // Raw escape hatch for hostile files: the key, then any bytes as "type + value".
  GgufBuilder& raw_kv(const std::string& key, const Bytes& type_and_value) {
    string(meta_, key);
    meta_.insert(meta_.end(), type_and_value.begin(), type_and_value.end());
    ++kv_count_;
    return *this;
  }

  // Tensors are laid out in order, each at the next multiple of the alignment.
  GgufBuilder& tensor(const std::string& name, std::vector<std::uint64_t> dims, GgmlType type) {
    std::uint64_t n = 1;
    for (auto d : dims) n *= d;
    const auto bytes = ggml_bytes(type, n).value_or(0);
    next_offset_ = (next_offset_ + alignment_ - 1) / alignment_ * alignment_;
    tensors_.push_back({name, std::move(dims), static_cast<std::uint32_t>(type), next_offset_, bytes});
    next_offset_ += bytes;
    return *this;
  }

  Bytes build(std::uint32_t version = 3) const {
    Bytes out;
    for (char c : std::string("GGUF")) out.push_back(static_cast<std::byte>(c));
    put_le(out, version, 4);
    put_le(out, tensors_.size(), 8);
    put_le(out, kv_count_, 8);
    out.insert(out.end(), meta_.begin(), meta_.end());
    for (const auto& t : tensors_) {
      string(out, t.name);
      put_le(out, t.dims.size(), 4);
      for (auto d : t.dims) put_le(out, d, 8);
      put_le(out, t.type, 4);
      put_le(out, t.offset, 8);
    }
    header_end = out.size();
    while (out.size() % alignment_ != 0) out.push_back(std::byte{0});
    out.resize(out.size() + next_offset_, std::byte{0x11});
    return out;
  }
  mutable std::size_t header_end = 0;  // bytes before the alignment padding, set by build()

 private:
  struct Tensor {
    std::string name;
    std::vector<std::uint64_t> dims;
    std::uint32_t type;
    std::uint64_t offset, bytes;
  };
  template <class F>
  GgufBuilder& kv(const std::string& key, std::uint32_t type, F&& write) {
    string(meta_, key);
    put_le(meta_, type, 4);
    write(meta_);
    ++kv_count_;
    return *this;
  }
  static void string(Bytes& b, const std::string& s) {
    put_le(b, s.size(), 8);
    for (char c : s) b.push_back(static_cast<std::byte>(c));
  }
  Bytes meta_;
  std::uint64_t kv_count_ = 0;
  std::vector<Tensor> tensors_;
  std::uint64_t alignment_ = 32;
  std::uint64_t next_offset_ = 0;
};

// The llama metadata and tensors of a tiny Llama-shaped GGUF: 2 blocks, hidden 256, 4 heads / 2 KV heads,
// FFN 512, 8 tokens. Matrices Q4_K (attn_v and ffn_down Q6_K as Q4_K_M does), norms F32.
inline GgufBuilder tiny_llama_gguf() {
  GgufBuilder b;
  b.str("general.architecture", "llama")
      .str("general.name", "tiny llama")
      .u32("general.file_type", 15)  // LLAMA_FTYPE_MOSTLY_Q4_K_M
      .u32("llama.block_count", 2)
      .u64("llama.context_length", 4096)
      .u32("llama.embedding_length", 256)
      .u32("llama.feed_forward_length", 512)
      .u32("llama.attention.head_count", 4)
      .u32("llama.attention.head_count_kv", 2)
      .f32("llama.attention.layer_norm_rms_epsilon", 1e-5f)
      .u32("llama.rope.dimension_count", 64)
      .str("tokenizer.ggml.model", "llama")
      .strings("tokenizer.ggml.tokens", {"<unk>", "<s>", "</s>", "a", "b", "c", "d", "e"})
      .u32s("tokenizer.ggml.token_type", {2, 3, 3, 1, 1, 1, 1, 1})
      .nested_i32s("test.nested", {{1, 2}, {3}});
  b.tensor("token_embd.weight", {256, 8}, GgmlType::q4_k);
  for (int i = 0; i < 2; ++i) {
    const std::string p = "blk." + std::to_string(i) + ".";
    b.tensor(p + "attn_norm.weight", {256}, GgmlType::f32);
    b.tensor(p + "attn_q.weight", {256, 256}, GgmlType::q4_k);
    b.tensor(p + "attn_k.weight", {256, 128}, GgmlType::q4_k);
    b.tensor(p + "attn_v.weight", {256, 128}, GgmlType::q6_k);
    b.tensor(p + "attn_output.weight", {256, 256}, GgmlType::q4_k);
    b.tensor(p + "ffn_norm.weight", {256}, GgmlType::f32);
    b.tensor(p + "ffn_gate.weight", {256, 512}, GgmlType::q4_k);
    b.tensor(p + "ffn_up.weight", {256, 512}, GgmlType::q4_k);
    b.tensor(p + "ffn_down.weight", {512, 256}, GgmlType::q6_k);
  }
  b.tensor("output_norm.weight", {256}, GgmlType::f32);
  b.tensor("output.weight", {256, 8}, GgmlType::q6_k);
  return b;
}

struct StTensor {
  std::string name, dtype;
  std::vector<std::uint64_t> shape;
  std::uint64_t bytes;
};

// header length (u64 LE) + JSON header + byte buffer; tensors laid out back to back.
inline Bytes build_safetensors(const std::vector<StTensor>& tensors, const nlohmann::json& metadata = nullptr) {
  nlohmann::json header = nlohmann::json::object();
  std::uint64_t offset = 0;
  for (const auto& t : tensors) {
    header[t.name] = {{"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {offset, offset + t.bytes}}};
    offset += t.bytes;
  }
  if (!metadata.is_null()) header["__metadata__"] = metadata;
  const std::string text = header.dump();
  Bytes out;
  put_le(out, text.size(), 8);
  for (char c : text) out.push_back(static_cast<std::byte>(c));
  out.resize(out.size() + offset, std::byte{0x22});
  return out;
}

}  // namespace vramfit::test
