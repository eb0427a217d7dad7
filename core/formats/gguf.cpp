#include "formats/gguf.hpp"

#include <algorithm>  // std::sort, std::max
#include <array>      // std::array
#include <set>        // std::set
#include <string>     // std::to_string

#include "util/binary_reader.hpp"
#include "formats/ggml_types.hpp"
#include "formats/tally.hpp"
#include "util/units.hpp"

namespace vramfit {
namespace {

std::string_view gguf_value_type_name(GgufValueType type) noexcept {
  constexpr std::array<std::string_view, 13> names{"uint8", "int8",  "uint16", "int16",  "uint32", "int32", "float32",
                                                   "bool",  "string", "array", "uint64", "int64",  "float64"};
  const auto i = static_cast<std::uint32_t>(type);
  return i < names.size() ? names[i] : "unknown";
}

using detail::BinaryReader;

// A number as the file holds it: a garbled header's values may pass what a page's numbers keep exactly.
MessageArg read_number(std::string_view name, std::uint64_t v) { return arg::text(name, std::to_string(v)); }

constexpr std::uint64_t kMaxKeptValues = 200'000;  // all kept array items of one file together

std::uint64_t fixed_size(GgufValueType t) {  // bytes of a scalar; 0 for string/array
  switch (t) {
    case GgufValueType::uint8: case GgufValueType::int8: case GgufValueType::boolean: return 1;
    case GgufValueType::uint16: case GgufValueType::int16: return 2;
    case GgufValueType::uint32: case GgufValueType::int32: case GgufValueType::float32: return 4;
    case GgufValueType::uint64: case GgufValueType::int64: case GgufValueType::float64: return 8;
    default: return 0;
  }
}
std::uint64_t min_size(GgufValueType t) {  // smallest encoding: a string is at least its length
  if (t == GgufValueType::string) return 8;
  if (t == GgufValueType::array) return 12;
  return fixed_size(t);
}
bool known_type(std::uint32_t t) { return t <= 12; }

class GgufParser {
 public:
  GgufParser(std::span<const std::byte> prefix, std::uint64_t file_size) : r_(prefix, file_size) {}

  Result<GgufFile> parse() {
    GgufFile f;
    header(f);
    if (!r_.failed()) metadata(f);
    if (!r_.failed()) alignment(f);
    if (!r_.failed()) tensor_infos(f);
    if (!r_.failed()) data_layout(f);
    if (r_.need()) {
      GgufFile more;
      more.need_prefix_bytes = r_.need();
      return more;
    }
    if (r_.error()) return *r_.error();
    return f;
  }

 private:
  BinaryReader r_;
  std::uint64_t kept_values_ = 0;
  std::uint64_t tensor_count_ = 0;
  std::uint64_t kv_count_ = 0;

  void header(GgufFile& f) {
    std::string magic;
    if (!r_.read_bytes(magic, 4, "header.magic")) return;
    if (magic != "GGUF") {
      r_.fail_at("header.magic", 0, message("gguf.not_gguf", "not a GGUF file (expected the bytes \"GGUF\")"));
      return;
    }
    std::uint32_t version = 0;
    if (!r_.read(version, "header.version")) return;
    if (version == 0x02000000u || version == 0x03000000u) {
      r_.fail_at("header.version", 4,
                 message("gguf.big_endian", "a big-endian GGUF file; only little-endian files are supported"));
      return;
    }
    if (version == 1) {
      r_.fail_at("header.version", 4, message("gguf.v1", "GGUF v1 (32-bit counts) is not supported; re-convert with a "
                                                         "newer llama.cpp"));
      return;
    }
    if (version != 2 && version != 3) {
      r_.fail_at("header.version", 4, message("gguf.version", "unsupported GGUF version {version} (2 and 3 are read)",
                                              {arg::digits("version", version)}));
      return;
    }
    f.version = version;
    if (!r_.read(tensor_count_, "header.tensor_count")) return;
    if (!r_.read(kv_count_, "header.metadata_kv_count")) return;
    // A tensor info takes at least 8 (name length) + 1 + 4 + 8 + 4 + 8 bytes; a key/value 8 + 1 + 4 + 1.
    if (tensor_count_ > kGgufMaxTensors || tensor_count_ > r_.remaining_in_file() / 33)
      r_.fail_at("header.tensor_count", 8,
                 message("gguf.too_many_tensors", "{count} tensors cannot fit in a file of this size (limit {limit})",
                         {read_number("count", tensor_count_), arg::digits("limit", kGgufMaxTensors)}));
    else if (kv_count_ > kGgufMaxKeyValues || kv_count_ > r_.remaining_in_file() / 14)
      r_.fail_at("header.metadata_kv_count", 16,
                 message("gguf.too_many_keys", "{count} key/value pairs cannot fit in a file of this size (limit {limit})",
                         {read_number("count", kv_count_), arg::digits("limit", kGgufMaxKeyValues)}));
  }

  bool string(std::string& out, const std::string& field, std::uint64_t max_len, bool keep = true) {
    const auto at = r_.pos();
    std::uint64_t len = 0;
    if (!r_.read(len, field + ".length")) return false;
    if (len > r_.remaining_in_file() || len > max_len) {
      r_.fail_at(field + ".length", at,
                 len > max_len ? message("gguf.string_over_limit", "string of {length} bytes is longer than allowed ({limit})",
                                         {read_number("length", len), arg::digits("limit", max_len)})
                               : message("gguf.string_past_end", "string of {length} bytes is longer than the rest of the file",
                                         {read_number("length", len)}));
      return false;
    }
    return keep ? r_.read_bytes(out, len, field) : r_.skip(len, field);
  }

  bool value(GgufValue& v, std::uint32_t raw_type, const std::string& field, std::uint64_t depth, bool keep) {
    const auto at = r_.pos();
    if (!known_type(raw_type)) {
      r_.fail_at(field + ".type", at, message("gguf.unknown_value_type", "unknown metadata value type {type}",
                                              {arg::digits("type", raw_type)}));
      return false;
    }
    v.type = static_cast<GgufValueType>(raw_type);
    switch (v.type) {
      case GgufValueType::uint8: { std::uint8_t x; if (!r_.read(x, field)) return false; v.uint = x; break; }
      case GgufValueType::int8: { std::int8_t x; if (!r_.read(x, field)) return false; v.sint = x; break; }
      case GgufValueType::uint16: { std::uint16_t x; if (!r_.read(x, field)) return false; v.uint = x; break; }
      case GgufValueType::int16: { std::int16_t x; if (!r_.read(x, field)) return false; v.sint = x; break; }
      case GgufValueType::uint32: { std::uint32_t x; if (!r_.read(x, field)) return false; v.uint = x; break; }
      case GgufValueType::int32: { std::int32_t x; if (!r_.read(x, field)) return false; v.sint = x; break; }
      case GgufValueType::uint64: { if (!r_.read(v.uint, field)) return false; break; }
      case GgufValueType::int64: { if (!r_.read(v.sint, field)) return false; break; }
      case GgufValueType::float32: { float x; if (!r_.read(x, field)) return false; v.real = x; break; }
      case GgufValueType::float64: { if (!r_.read(v.real, field)) return false; break; }
      case GgufValueType::boolean: {
        std::uint8_t x;
        if (!r_.read(x, field)) return false;
        if (x > 1) {
          r_.fail_at(field, at, message("gguf.bool_value", "a bool must be 0 or 1, got {value}", {arg::digits("value", x)}));
          return false;
        }
        v.uint = x;
        break;
      }
      case GgufValueType::string:
        return string(v.str, field, UINT64_MAX, keep);
      case GgufValueType::array: {
        if (depth >= kGgufMaxArrayDepth) {
          r_.fail_at(field, at, message("gguf.arrays_nested", "arrays nested deeper than {depth}",
                                        {arg::digits("depth", kGgufMaxArrayDepth)}));
          return false;
        }
        std::uint32_t item_type = 0;
        if (!r_.read(item_type, field + ".item_type")) return false;
        if (!known_type(item_type)) {
          r_.fail_at(field + ".item_type", at, message("gguf.unknown_value_type", "unknown metadata value type {type}",
                                                       {arg::digits("type", item_type)}));
          return false;
        }
        v.array_type = static_cast<GgufValueType>(item_type);
        const auto count_at = r_.pos();
        if (!r_.read(v.array_count, field + ".count")) return false;
        if (v.array_count > r_.remaining_in_file() / min_size(v.array_type)) {
          r_.fail_at(field + ".count", count_at,
                     message("gguf.array_past_end", "{count} {type} items cannot fit in the rest of the file",
                             {read_number("count", v.array_count), arg::text("type", gguf_value_type_name(v.array_type))}));
          return false;
        }
        const bool keep_items = keep && v.array_count <= kGgufKeptArrayItems &&
                                kept_values_ + v.array_count <= kMaxKeptValues;
        if (keep_items) {
          kept_values_ += v.array_count;
          v.items.resize(static_cast<std::size_t>(v.array_count));
        }
        if (const auto size = fixed_size(v.array_type); size != 0 && !keep_items) {
          return r_.skip(v.array_count * size, field);  // count · size ≤ remaining, checked above
        }
        for (std::uint64_t i = 0; i < v.array_count; ++i) {
          GgufValue scratch;
          GgufValue& item = keep_items ? v.items[static_cast<std::size_t>(i)] : scratch;
          if (!value(item, item_type, field + "[" + std::to_string(i) + "]", depth + 1, keep_items)) return false;
        }
        break;
      }
    }
    return true;
  }

  void metadata(GgufFile& f) {
    std::set<std::string> seen;
    for (std::uint64_t i = 0; i < kv_count_; ++i) {
      const std::string field = "metadata[" + std::to_string(i) + "]";
      const auto at = r_.pos();
      GgufKeyValue kv;
      if (!string(kv.key, field + ".key", 65'535)) return;
      if (kv.key.empty() || !detail::valid_utf8(kv.key)) {
        r_.fail_at(field + ".key", at, kv.key.empty() ? message("gguf.empty_key", "empty key")
                                                      : message("gguf.key_utf8", "key is not valid UTF-8"));
        return;
      }
      if (!seen.insert(kv.key).second) {
        r_.fail_at(field + ".key", at, message("gguf.duplicate_key", "duplicate key \"{key}\"", {arg::text("key", kv.key)}));
        return;
      }
      std::uint32_t type = 0;
      if (!r_.read(type, field + ".value_type")) return;
      if (!value(kv.value, type, field + " (" + kv.key + ").value", 0, true)) return;
      f.metadata.push_back(std::move(kv));
    }
  }

  void alignment(GgufFile& f) {
    if (const GgufValue* a = f.find("general.alignment")) {
      if (a->type != GgufValueType::uint32 || a->uint == 0 || (a->uint & (a->uint - 1)) != 0) {
        r_.fail("general.alignment", message("gguf.alignment", "must be a uint32 power of two"));
        return;
      }
      f.alignment = a->uint;
    }
  }

  void tensor_infos(GgufFile& f) {
    std::set<std::string> names;
    f.tensors.reserve(static_cast<std::size_t>(tensor_count_));  // bounded by the file size above
    for (std::uint64_t i = 0; i < tensor_count_; ++i) {
      const std::string field = "tensor_infos[" + std::to_string(i) + "]";
      GgufTensorInfo t;
      auto at = r_.pos();
      if (!string(t.name, field + ".name", kGgufMaxNameBytes - 1)) return;
      if (t.name.empty() || !detail::valid_utf8(t.name)) {
        r_.fail_at(field + ".name", at, t.name.empty() ? message("gguf.empty_tensor_name", "empty tensor name")
                                                       : message("gguf.tensor_name_utf8", "tensor name is not valid UTF-8"));
        return;
      }
      if (!names.insert(t.name).second) {
        r_.fail_at(field + ".name", at, message("gguf.duplicate_tensor", "duplicate tensor name \"{tensor}\"",
                                               {arg::text("tensor", t.name)}));
        return;
      }
      at = r_.pos();
      std::uint32_t n_dims = 0;
      if (!r_.read(n_dims, field + ".n_dimensions")) return;
      if (n_dims == 0 || n_dims > 4) {
        r_.fail_at(field + ".n_dimensions", at, message("gguf.dimensions", "must be 1 to 4 (GGML_MAX_DIMS), got {n}",
                                                       {arg::digits("n", n_dims)}));
        return;
      }
      std::uint64_t elements = 1;
      for (std::uint32_t d = 0; d < n_dims; ++d) {
        at = r_.pos();
        std::uint64_t dim = 0;
        if (!r_.read(dim, field + ".dimensions[" + std::to_string(d) + "]")) return;
        const auto product = checked_mul(elements, dim);
        if (!product || *product > static_cast<std::uint64_t>(INT64_MAX)) {
          r_.fail_at(field + ".dimensions[" + std::to_string(d) + "]", at,
                     message("gguf.elements_overflow", "the element count overflows int64 ({tensor})",
                             {arg::text("tensor", t.name)}));
          return;
        }
        elements = *product;
        t.dims.push_back(dim);
      }
      at = r_.pos();
      if (!r_.read(t.type, field + ".type")) return;
      const GgmlTypeInfo* info = ggml_type_info(t.type);
      if (!info) {
        r_.fail_at(field + ".type", at, message("gguf.unknown_type", "unknown ggml type {type} ({tensor})",
                                               {arg::digits("type", t.type), arg::text("tensor", t.name)}));
        return;
      }
      if (t.dims[0] % info->block_elements != 0) {
        r_.fail_at(field + ".dimensions[0]", at,
                   message("gguf.row_block", "row length {row} of {tensor} is not a multiple of the {type} block ({block})",
                           {read_number("row", t.dims[0]), arg::text("tensor", t.name), arg::text("type", info->name),
                            arg::digits("block", info->block_elements)}));
        return;
      }
      t.elements = elements;
      const auto bytes = ggml_bytes(*info, elements);
      if (!bytes) {
        r_.fail_at(field + ".type", at, message("gguf.size_overflow", "tensor size overflows 64 bits ({tensor})",
                                               {arg::text("tensor", t.name)}));
        return;
      }
      t.bytes = *bytes;
      at = r_.pos();
      if (!r_.read(t.offset, field + ".offset")) return;
      if (t.offset % f.alignment != 0) {
        r_.fail_at(field + ".offset", at,
                   message("gguf.offset_alignment", "offset {offset} of {tensor} is not a multiple of the alignment {alignment}",
                           {read_number("offset", t.offset), arg::text("tensor", t.name), arg::digits("alignment", f.alignment)}));
        return;
      }
      f.tensors.push_back(std::move(t));
    }
  }

  void data_layout(GgufFile& f) {
    const auto end = r_.pos();
    f.data_offset = ceil_div(end, f.alignment) * f.alignment;
    const std::uint64_t file_size = end + r_.remaining_in_file();
    const std::uint64_t data_bytes = file_size > f.data_offset ? file_size - f.data_offset : 0;
    // Sort indices by offset: every tensor must lie inside the file and none may overlap the next.
    std::vector<std::size_t> order(f.tensors.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return f.tensors[a].offset < f.tensors[b].offset; });
    for (std::size_t k = 0; k < order.size(); ++k) {
      const auto& t = f.tensors[order[k]];
      const std::string field = "tensor_infos[" + std::to_string(order[k]) + "].offset";
      if (t.offset > data_bytes || t.bytes > data_bytes - t.offset) {
        r_.fail_at(field, f.data_offset,
                   message("gguf.tensor_truncated",
                           "{tensor} occupies bytes {begin} to {end} of the tensor data, but the file holds only {size} "
                           "(truncated?)",
                           {arg::text("tensor", t.name), arg::digits("begin", t.offset),
                            arg::digits("end", t.offset + std::min(t.bytes, UINT64_MAX - t.offset)),
                            arg::digits("size", data_bytes)}));
        return;
      }
      if (k + 1 < order.size()) {
        const auto& next = f.tensors[order[k + 1]];
        if (t.offset + t.bytes > next.offset) {
          r_.fail_at(field, f.data_offset,
                     message("gguf.overlap", "{tensor} (bytes {begin} to {end}) overlaps {next} (from {next_offset})",
                             {arg::text("tensor", t.name), read_number("begin", t.offset),
                              read_number("end", t.offset + t.bytes), arg::text("next", next.name),
                              read_number("next_offset", next.offset)}));
          return;
        }
      }
    }
  }
};

// ---- metadata → ModelSpec ----

class Meta {
 public:
  Meta(const GgufFile& f, std::string arch) : f_(f), arch_(std::move(arch)) {}
  const GgufValue* get(std::string_view suffix) const { return f_.find(arch_ + "." + std::string(suffix)); }
  // A uint (or the largest entry of a per-layer array); nothing when absent or of another type.
  std::optional<std::uint64_t> uint(std::string_view suffix, bool* per_layer = nullptr) const {
    const GgufValue* v = get(suffix);
    if (!v) return std::nullopt;
    std::uint64_t out = 0;
    if (v->as_uint(out)) return out;
    if (v->type == GgufValueType::array && !v->items.empty()) {
      std::uint64_t best = 0;
      for (const auto& item : v->items) {
        std::uint64_t x = 0;
        if (!item.as_uint(x)) return std::nullopt;
        best = std::max(best, x);
      }
      if (per_layer) *per_layer = true;
      return best;
    }
    return std::nullopt;
  }

 private:
  const GgufFile& f_;
  std::string arch_;
};

const GgufTensorInfo* find_tensor(const GgufFile& f, std::string_view name) {
  for (const auto& t : f.tensors)
    if (t.name == name) return &t;
  return nullptr;
}
bool any_tensor_with(const GgufFile& f, std::string_view part) {
  for (const auto& t : f.tensors)
    if (t.name.find(part) != std::string::npos) return true;
  return false;
}

// Architectures whose layers keep state other than a KV cache (llama.cpp arch names).
constexpr std::array<std::string_view, 14> kUnsupportedArchs{
    "mamba", "mamba2", "rwkv6", "rwkv6qwen2", "rwkv7", "arwkv7", "jamba", "falcon-h1", "granitehybrid", "plamo2",
    "nemotron_h", "lfm2", "qwen3next", "t5"};

std::string hf_model_type(const std::string& arch) {  // llama.cpp arch name → transformers model_type
  if (arch == "qwen2moe") return "qwen2_moe";
  if (arch == "qwen3moe") return "qwen3_moe";
  if (arch == "deepseek2") return "deepseek_v3";
  if (arch == "gemma3") return "gemma3_text";
  return arch;
}

}  // namespace

bool GgufValue::as_uint(std::uint64_t& out) const noexcept {
  switch (type) {
    case GgufValueType::uint8: case GgufValueType::uint16: case GgufValueType::uint32: case GgufValueType::uint64:
    case GgufValueType::boolean:
      out = uint;
      return true;
    case GgufValueType::int8: case GgufValueType::int16: case GgufValueType::int32: case GgufValueType::int64:
      if (sint < 0) return false;
      out = static_cast<std::uint64_t>(sint);
      return true;
    default: return false;
  }
}

const GgufValue* GgufFile::find(std::string_view key) const noexcept {
  for (const auto& kv : metadata)
    if (kv.key == key) return &kv.value;
  return nullptr;
}

Result<GgufFile> parse_gguf(std::span<const std::byte> prefix, std::uint64_t file_size) {
  if (prefix.size() > file_size)
    return make_error("file_size", message("file.prefix_over_size", "the prefix ({prefix} bytes) is longer than the file ({size} bytes)",
                                           {arg::digits("prefix", prefix.size()), read_number("size", file_size)}));
  return GgufParser(prefix, file_size).parse();
}

namespace {

// A shape the metadata gives that validate() refuses: the English names the key and the architecture; the id and
// args stay the check's own (each has its templates), so a page says the check in its language, with these two
// added as args.
Message in_architecture(const Error& e, const std::string& arch) {
  Message m = e.message;
  m.text = e.field + ": " + e.message.text + " (architecture \"" + arch + "\")";
  m.args.push_back(arg::text("key", e.field));
  m.args.push_back(arg::text("architecture", arch));
  return m;
}

// The ModelSpec a parsed GGUF describes (general.architecture and its <arch>.* keys, tensor shapes).
// What the tensors of block 0 say about the layer layout: norms, biases, gating, tied embeddings, the MLP width.
void read_block_tensors(const GgufFile& f, const std::string& arch, ModelSpec& s, UniformDecoder& d) {
  auto has = [&](std::string_view name) { return find_tensor(f, name) != nullptr; };
  s.norm = has("blk.0.attn_norm.bias") ? NormKind::layer : NormKind::rms;
  std::uint64_t norms = 0;
  for (auto n : {"blk.0.attn_norm.weight", "blk.0.ffn_norm.weight", "blk.0.post_attention_norm.weight",
                 "blk.0.post_ffw_norm.weight", "blk.0.attn_output_norm.weight", "blk.0.layer_output_norm.weight"})
    norms += has(n) ? 1 : 0;
  s.norms_per_layer = norms;
  s.qkv_bias = has("blk.0.attn_q.bias") || has("blk.0.attn_qkv.bias");
  s.attn_out_bias = has("blk.0.attn_output.bias");
  s.qk_norm = has("blk.0.attn_q_norm.weight");
  s.mlp_bias = any_tensor_with(f, "ffn_down.bias") || any_tensor_with(f, "ffn_down_exps.bias");
  s.gated_mlp = any_tensor_with(f, "ffn_gate.weight") || any_tensor_with(f, "ffn_gate_exps.weight");
  s.tied_embeddings = !has("output.weight");
  s.final_norm = has("output_norm.weight");
  s.embedding_norm = has("token_embd_norm.weight");
  if (const auto* pos = find_tensor(f, "position_embd.weight"); pos && pos->dims.size() >= 2)
    s.learned_positions = pos->dims[1];
  if (const auto* types = find_tensor(f, "token_types.weight"); types && types->dims.size() >= 2)
    s.token_types = types->dims[1];
  if (arch == "bert" || arch == "nomic-bert" || arch == "jina-bert-v2") {
    s.causal = false;
    s.has_lm_head = false;
    s.tied_embeddings = false;
  }
  if (d.dense.intermediate == 0)
    if (const auto* up = find_tensor(f, "blk.0.ffn_up.weight"); up && up->dims.size() >= 2)
      d.dense.intermediate = up->dims[1];
  // Phi-3's gate and up share one tensor: llama.cpp's phi3 loads ffn_up as {n_embd, 2 * n_ff} (llama-model.cpp).
  if (const auto* up = find_tensor(f, "blk.0.ffn_up.weight");
      !s.gated_mlp && up && up->dims.size() >= 2 && d.dense.intermediate > 0 && up->dims[1] == 2 * d.dense.intermediate)
    s.gated_mlp = true;
}

// Mixture of experts: the routed and shared experts' counts and widths.
void read_experts(const GgufFile& f, const Meta& m, UniformDecoder& d) {
  if (auto experts = m.uint("expert_count"); experts && *experts > 1) {
    auto& moe = d.moe;
    moe.kind = MlpKind::moe;
    moe.routed_experts = *experts;
    moe.experts_per_token = m.uint("expert_used_count").value_or(2);
    moe.expert_intermediate = m.uint("expert_feed_forward_length").value_or(d.dense.intermediate);
    d.leading_dense = m.uint("leading_dense_block_count").value_or(0);
    moe.router_bias = any_tensor_with(f, "exp_probs_b.bias");
    for (const auto& t : f.tensors) {
      if (t.name.find("ffn_up_shexp.weight") != std::string::npos && t.dims.size() >= 2) {
        moe.shared_experts = m.uint("expert_shared_count").value_or(1);
        if (moe.shared_experts) moe.shared_intermediate = t.dims[1] / moe.shared_experts;
        break;
      }
    }
  }
}

// Multi-head latent attention (DeepSeek-V2/V3 as llama.cpp's deepseek2 stores it).
void read_latent(const Meta& m, UniformDecoder& d) {
  if (auto rank = m.uint("attention.kv_lora_rank"); rank && *rank) {
    auto& mla = d.latent;
    d.mixer = MixerKind::latent_attention;
    mla.heads = d.attention.heads;
    mla.kv_lora_rank = *rank;
    mla.q_lora_rank = m.uint("attention.q_lora_rank").value_or(0);
    mla.qk_rope_head_dim = m.uint("rope.dimension_count").value_or(0);
    const auto key = m.uint("attention.key_length_mla").value_or(m.uint("attention.key_length").value_or(0));
    mla.qk_nope_head_dim = key > mla.qk_rope_head_dim ? key - mla.qk_rope_head_dim : 0;
    mla.v_head_dim = m.uint("attention.value_length_mla").value_or(m.uint("attention.value_length").value_or(0));
  }
}

// Sliding-window attention: Gemma 2 alternates, Gemma 3 windows 5 of every 6 layers (llama.cpp
// set_swa_pattern), newer files carry the pattern as a per-layer bool array or a period.
void read_window(const Meta& m, const std::string& arch, UniformDecoder& d) {
  auto& attention = d.attention;
  if (auto window = m.uint("attention.sliding_window"); window && *window && d.layers <= 10'000) {
    attention.window = *window;
    const GgufValue* pattern = m.get("attention.sliding_window_pattern");
    std::uint64_t period = 0;
    auto& flags = d.windowed;
    if (pattern && pattern->type == GgufValueType::array && pattern->items.size() == d.layers) {
      for (const auto& item : pattern->items) flags.push_back(item.uint != 0);
    } else if (pattern && pattern->as_uint(period) && period > 0) {
      for (std::uint64_t i = 0; i < d.layers; ++i) flags.push_back((i + 1) % period != 0);
    } else if (arch == "gemma2") {
      for (std::uint64_t i = 0; i < d.layers; ++i) flags.push_back(i % 2 == 0);
    } else if (arch == "gemma3") {
      for (std::uint64_t i = 0; i < d.layers; ++i) flags.push_back((i + 1) % 6 != 0);
    }
  }
}

Result<ModelSpec> model_from_gguf(const GgufFile& f) {
  const GgufValue* arch_value = f.find("general.architecture");
  if (!arch_value || arch_value->type != GgufValueType::string || arch_value->str.empty())
    return make_error("general.architecture",
                      message("gguf.no_architecture", "missing: the file does not say which architecture it holds"));
  const std::string arch = arch_value->str;
  for (auto unsupported : kUnsupportedArchs)
    if (arch == unsupported)
      return make_error("general.architecture", message("gguf.unsupported_architecture",
                                                        "\"{architecture}\" keeps state other than an attention KV "
                                                        "cache (SSM, recurrent or encoder-decoder); vramfit would give "
                                                        "a wrong number",
                                                        {arg::text("architecture", arch)}));
  const Meta m(f, arch);
  ModelSpec s;
  s.architecture = hf_model_type(arch);
  if (const GgufValue* name = f.find("general.name"); name && name->type == GgufValueType::string)
    s.name = name->str;

  bool per_layer = false;
  UniformDecoder d;
  s.hidden_size = m.uint("embedding_length").value_or(0);
  d.layers = m.uint("block_count").value_or(0);
  auto& attention = d.attention;
  attention.heads = m.uint("attention.head_count", &per_layer).value_or(0);
  attention.kv_heads = m.uint("attention.head_count_kv", &per_layer).value_or(attention.heads);
  d.dense.intermediate = m.uint("feed_forward_length", &per_layer).value_or(0);
  if (per_layer)
    s.notes.push_back(message("gguf.per_layer", "Per-layer head counts or FFN widths: the largest is used for every layer."));
  const auto implied_head = attention.heads ? s.hidden_size / attention.heads : 0;
  attention.head_dim = m.uint("attention.key_length").value_or(implied_head);
  s.max_context = m.uint("context_length").value_or(0);
  s.default_context = s.max_context;

  // Vocabulary: the tokenizer's token list, else <arch>.vocab_size, else the embedding's row count.
  if (const GgufValue* tokens = f.find("tokenizer.ggml.tokens"); tokens && tokens->type == GgufValueType::array)
    s.vocab_size = tokens->array_count;
  if (s.vocab_size == 0) s.vocab_size = m.uint("vocab_size").value_or(0);
  const GgufTensorInfo* embd = find_tensor(f, "token_embd.weight");
  if (embd && embd->dims.size() >= 2) s.vocab_size = embd->dims[1];  // the tensor is what takes memory

  read_block_tensors(f, arch, s, d);
  read_experts(f, m, d);
  read_latent(m, d);
  read_window(m, arch, d);
  s.layers = uniform_layers(d);

  if (auto ok = validate(s); !ok)
    return make_error("gguf metadata", in_architecture(ok.error(), arch));
  return s;
}

}  // namespace

namespace {

Result<ImportedModel> import_parsed(const GgufFile& f, std::size_t parts) {
  ImportedModel out;
  out.format = "GGUF v" + std::to_string(f.version);
  if (const GgufValue* ft = f.find("general.file_type")) ft->as_uint(out.file_type);
  for (const auto& t : f.tensors)
    tally_tensor(out.weights, role_of_tensor(t.name), ggml_type_info(t.type)->name, t.elements, t.bytes, t.elements);
  finish_tally(out.weights);
  out.weights.explanation =
      parts > 1 ? message("explain.weights.source_gguf_split",
                          "exact tensor bytes of the GGUF file's {parts} parts ({tensors} tensors; ggml block sizes "
                          "from ggml-common.h)",
                          {arg::digits("parts", parts), arg::digits("tensors", f.tensors.size())})
                : message("explain.weights.source_gguf_file",
                          "exact tensor bytes of the GGUF file ({tensors} tensors; ggml block sizes from "
                          "ggml-common.h)",
                          {arg::digits("tensors", f.tensors.size())});
  auto spec = model_from_gguf(f);
  if (!spec) return spec.error();
  out.spec = std::move(spec).value();
  if (auto counts = count_params(out.spec); counts) {
    const double modelled = static_cast<double>(counts.value().total);
    const double stored = static_cast<double>(out.weights.params);
    if (stored > 0 && (modelled / stored > 1.01 || modelled / stored < 0.99))
      out.notes.push_back(message("gguf.count_differs",
                                  "The architecture read from the metadata counts {counted} parameters, the file "
                                  "holds {held}; weights use the file's exact bytes.",
                                  {arg::digits("counted", counts.value().total), arg::digits("held", out.weights.params)}));
  }
  return out;
}

std::uint64_t uint_or(const GgufFile& f, std::string_view key, std::uint64_t fallback) {
  std::uint64_t v = fallback;
  if (const GgufValue* value = f.find(key)) value->as_uint(v);
  return v;
}

}  // namespace

Result<ImportedModel> import_gguf(std::span<const std::byte> prefix, std::uint64_t file_size) {
  auto parsed = parse_gguf(prefix, file_size);
  if (!parsed) return parsed.error();
  if (parsed.value().need_prefix_bytes) {
    ImportedModel out;
    out.need_prefix_bytes = parsed.value().need_prefix_bytes;
    return out;
  }
  return import_parsed(parsed.value(), 1);
}

Result<ImportedModel> import_gguf_splits(std::span<const SafetensorsFile> parts) {
  if (parts.empty()) return make_error("files", message("gguf.no_parts", "missing: at least one .gguf file"));
  GgufFile merged;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    auto parsed = parse_gguf(parts[i].prefix, parts[i].file_size);
    if (!parsed) {
      Error e = parsed.error();
      e.field = parts[i].name + ": " + e.field;
      return e;
    }
    GgufFile& f = parsed.value();
    if (f.need_prefix_bytes) {
      ImportedModel out;
      out.need_prefix_bytes = f.need_prefix_bytes;
      out.need_file = i;
      return out;
    }
    // gguf-split writes split.no (0-based) and split.count into every part; llama.cpp refuses a set that disagrees.
    const std::uint64_t no = uint_or(f, "split.no", 0), count = uint_or(f, "split.count", 1);
    if (no != i || count != parts.size())
      return make_error(parts[i].name + ": split.no",
                        message("gguf.split_mismatch",
                                "is part {no} of {count}, but it was given as part {given} of {parts}",
                                {arg::digits("no", no + 1), arg::digits("count", count), arg::digits("given", i + 1),
                                 arg::digits("parts", parts.size())}));
    if (i == 0) {
      merged = std::move(f);
    } else {
      for (auto& t : f.tensors) merged.tensors.push_back(std::move(t));
    }
  }
  return import_parsed(merged, parts.size());
}

}  // namespace vramfit
