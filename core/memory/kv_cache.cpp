#include "memory/kv_cache.hpp"

#include <algorithm>  // std::min
#include <array>      // std::array

#include "formats/ggml_types.hpp"
#include "util/units.hpp"

namespace vramfit {
namespace {
// Plain widths as in dtype.cpp; block types from ggml-common.h (block_q8_0 = fp16 scale + 32 int8,
// block_q4_0 = fp16 scale + 16 bytes of nibbles), read from ggml_types so the geometry lives in one place.
const std::array<KvDTypeInfo, 6>& table() {
  static const std::array<KvDTypeInfo, 6> kTable{{
      {KvDType::fp32, "fp32", 1, 4, "32-bit float"},
      {KvDType::fp16, "fp16", 1, 2, "16-bit float"},
      {KvDType::bf16, "bf16", 1, 2, "16-bit bfloat"},
      {KvDType::fp8, "fp8", 1, 1, "8-bit float (vLLM --kv-cache-dtype fp8)"},
      {KvDType::q8_0, "q8_0", ggml_type_info(GgmlType::q8_0).block_elements, ggml_type_info(GgmlType::q8_0).block_bytes,
       "llama.cpp -ctk/-ctv q8_0: 8.5 bits"},
      {KvDType::q4_0, "q4_0", ggml_type_info(GgmlType::q4_0).block_elements, ggml_type_info(GgmlType::q4_0).block_bytes,
       "llama.cpp -ctk/-ctv q4_0: 4.5 bits"},
  }};
  return kTable;
}
}  // namespace

std::span<const KvDTypeInfo> all_kv_dtypes() noexcept { return table(); }
const KvDTypeInfo& kv_dtype_info(KvDType type) noexcept { return table()[static_cast<std::size_t>(type)]; }

std::optional<KvDType> parse_kv_dtype(std::string_view name) noexcept {
  for (const auto& info : table())
    if (info.name == name) return info.type;
  if (name == "float32") return KvDType::fp32;
  if (name == "float16" || name == "half" || name == "f16") return KvDType::fp16;
  if (name == "bfloat16") return KvDType::bf16;
  if (name == "fp8_e4m3" || name == "fp8_e5m2") return KvDType::fp8;
  return std::nullopt;
}

std::string kv_dtype_names() {
  std::string out;
  for (const auto& info : table()) out += (out.empty() ? "" : ", ") + std::string(info.name);
  return out;
}

KvDType kv_dtype_for(DType compute) noexcept {
  if (compute == DType::fp32) return KvDType::fp32;
  if (compute == DType::fp16) return KvDType::fp16;
  return KvDType::bf16;
}

std::optional<std::uint64_t> kv_bytes(std::uint64_t elements, KvDType dtype) noexcept {
  const auto& info = kv_dtype_info(dtype);
  const auto blocks = ceil_div(elements, info.block_elements);
  return checked_mul(blocks, info.block_bytes);
}

Result<KvCacheEstimate> estimate_kv_cache(const ModelSpec& spec, KvDType dtype, std::uint64_t context_tokens,
                                          std::uint64_t batch, const KvLayout& layout) {
  KvCacheEstimate out;
  out.dtype = dtype;
  out.mla = layout.mla;
  if (!spec.causal || spec.is_bare()) return out;
  if (auto ok = validate(spec); !ok) return ok.error();

  std::uint64_t elements = 0;
  std::optional<std::uint64_t> per_layer;
  if (spec.is_mla() && layout.mla == MlaCache::latent) {
    elements = spec.mla.kv_lora_rank + spec.mla.qk_rope_head_dim;
    per_layer = kv_bytes(elements, dtype);
  } else if (spec.is_mla()) {
    // K per head: qk_nope + qk_rope; V per head: v_head_dim (each row its own block run).
    const auto k = kv_bytes(spec.mla.qk_nope_head_dim + spec.mla.qk_rope_head_dim, dtype);
    const auto v = kv_bytes(spec.mla.v_head_dim, dtype);
    elements = spec.num_attention_heads * (spec.mla.qk_nope_head_dim + spec.mla.qk_rope_head_dim + spec.mla.v_head_dim);
    per_layer = (k && v) ? checked_mul(*k + *v, spec.num_attention_heads) : std::nullopt;
  } else {
    elements = 2 * spec.num_kv_heads * spec.head_dim;
    const auto row = kv_bytes(spec.head_dim, dtype);  // ggml quantizes each head's row in whole blocks
    per_layer = row ? checked_mul(*row, 2 * spec.num_kv_heads) : std::nullopt;
  }
  if (!per_layer) return make_error("config", "KV shape overflows 64 bits");
  out.elements_per_token_layer = elements;
  out.bytes_per_token_layer = *per_layer;
  const auto per_token = checked_mul(*per_layer, spec.num_layers);
  if (!per_token) return make_error("config", "KV shape overflows 64 bits");
  out.bytes_per_token = *per_token;

  if (spec.sliding_window) {
    const auto padded = ceil_div(spec.sliding_window + layout.window_extra, layout.window_pad) * layout.window_pad;
    out.window_cells = padded;
  }
  for (std::uint64_t layer = 0; layer < spec.num_layers; ++layer) {
    const bool windowed = spec.layer_is_windowed(layer);
    out.windowed_layers += windowed;
    out.cached_token_slots += windowed ? std::min(context_tokens, out.window_cells) : context_tokens;
  }
  const auto per_sequence = checked_mul(out.cached_token_slots, *per_layer);
  const auto total = per_sequence ? checked_mul(*per_sequence, batch) : std::nullopt;
  if (!total) return make_error("context", "context × batch × KV size overflows 64 bits; use smaller values");
  out.bytes = *total;
  return out;
}

Result<KvCacheEstimate> estimate_kv_cache(const ModelSpec& spec, DType dtype, std::uint64_t context_tokens,
                                          std::uint64_t batch) {
  if (dtype == DType::int8 || dtype == DType::int4)
    return make_error("kv_dtype", "allowed: " + kv_dtype_names());
  const KvDType kv = dtype == DType::fp32 ? KvDType::fp32 : dtype == DType::fp16 ? KvDType::fp16
                   : dtype == DType::fp8  ? KvDType::fp8  : KvDType::bf16;
  return estimate_kv_cache(spec, kv, context_tokens, batch);
}

}  // namespace vramfit
