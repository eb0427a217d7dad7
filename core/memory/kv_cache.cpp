#include "memory/kv_cache.hpp"

#include <algorithm>  // std::min
#include <array>      // std::array
#include <cmath>      // std::llround
#include <optional>   // std::optional
#include <utility>    // std::pair

#include "formats/ggml_types.hpp"
#include "util/byte_math.hpp"  // CheckedSum
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

namespace {

// One token's cache in one layer of `run`: elements and bytes (each row its own run of blocks).
struct TokenRow {
  std::uint64_t elements = 0;
  std::optional<std::uint64_t> bytes;
};

TokenRow attention_row(const AttentionMixer& a, KvDType dtype) {
  // K = V layers (Gemma 4) still cache both: vLLM's FullAttentionSpec and llama.cpp allocate a V row per token.
  const auto k = kv_bytes(a.head_dim, dtype);  // ggml quantizes each head's row in whole blocks
  const auto v = kv_bytes(a.value_dim(), dtype);
  const auto row = (k && v) ? checked_add(*k, *v) : std::nullopt;
  return {a.kv_heads * (a.head_dim + a.value_dim()), row ? checked_mul(*row, a.kv_heads) : row};
}

TokenRow latent_row(const LatentMixer& m, KvDType dtype, MlaCache mla) {
  const auto index = kv_bytes(m.index_head_dim, dtype);
  if (mla == MlaCache::latent) {
    const auto latent = kv_bytes(m.kv_lora_rank + m.qk_rope_head_dim, dtype);
    return {m.kv_lora_rank + m.qk_rope_head_dim + m.index_head_dim,
            latent && index ? checked_add(*latent, *index) : std::nullopt};
  }
  // K per head: qk_nope + qk_rope; V per head: v_head_dim.
  const auto k = kv_bytes(m.qk_nope_head_dim + m.qk_rope_head_dim, dtype);
  const auto v = kv_bytes(m.v_head_dim, dtype);
  const auto heads = (k && v) ? checked_mul(*k + *v, m.heads) : std::nullopt;
  return {m.heads * (m.qk_nope_head_dim + m.qk_rope_head_dim + m.v_head_dim) + m.index_head_dim,
          heads && index ? checked_add(*heads, *index) : std::nullopt};
}

// A token-keeping mixer's row per token; the others keep no row (their state is LayerRun::state_elements).
TokenRow token_row(const LayerRun& run, KvDType dtype, MlaCache mla) {
  switch (run.mixer) {
    case MixerKind::attention: return attention_row(run.attention, dtype);
    case MixerKind::latent_attention: return latent_row(run.latent, dtype, mla);
    case MixerKind::linear_attention:
    case MixerKind::mamba2:
    case MixerKind::none: break;
  }
  return {0, 0};
}

// Most tokens a windowed or chunked layer keeps; 0 when it keeps every token.
std::uint64_t cap_cells(const AttentionMixer& a, const KvLayout& layout) {
  const std::uint64_t cells = a.chunk ? a.chunk : a.window;
  return cells ? ceil_div(cells + layout.window_extra, layout.window_pad) * layout.window_pad : 0;
}

// Tokens one layer keeps for a sequence of `context` tokens.
std::uint64_t kept_tokens(const AttentionMixer& a, std::uint64_t context, const KvLayout& layout) {
  const auto cap = cap_cells(a, layout);
  if (a.compress_ratio) return std::min(context, cap) + ceil_div(context, a.compress_ratio);
  return cap ? std::min(context, cap) : context;
}

// DeepSeek-V4's cached entry and indexer key, in bytes. With fp8, vLLM's fp8_ds_mla slot
// (deepseek_v4_attention.py): the NoPE part in fp8 with one ue8m0 scale per 64, the RoPE part in bf16, one pad byte
// (448 + 128 + 7 + 1 = 584 B for head_dim 512, rope 64); the indexer key in fp8 with an fp32 scale per 128 (132 B).
std::pair<std::uint64_t, std::uint64_t> one_entry_bytes(const AttentionMixer& a, KvDType dtype) {
  if (dtype == KvDType::fp8) {
    const auto nope = a.head_dim - a.rope_dim;
    return {nope + 2 * a.rope_dim + nope / 64 + 1, a.index_head_dim + ceil_div(a.index_head_dim, 128) * 4};
  }
  return {kv_bytes(a.head_dim, dtype).value_or(0), kv_bytes(a.index_head_dim, dtype).value_or(0)};
}

// One DeepSeek-V4 layer for one sequence of `context` tokens.
struct OneEntryLayer {
  std::uint64_t block_tokens = 1;  // compressed bytes are given per this many tokens of context
  std::uint64_t block_bytes = 0;
  std::uint64_t window_entries = 0;
  std::optional<std::uint64_t> window_bytes;
  std::uint64_t compressed_entries = 0;
  std::optional<std::uint64_t> compressed_bytes = 0;
  std::uint64_t state_bytes = 0;  // the compressors' fp32 kv_state and score_state (Compressor in inference/model.py)
};

OneEntryLayer one_entry_layer(const AttentionMixer& a, KvDType dtype, std::uint64_t context, const KvLayout& layout) {
  OneEntryLayer out;
  const auto [entry, index_key] = one_entry_bytes(a, dtype);
  const auto cap = cap_cells(a, layout);
  out.window_entries = cap ? std::min(context, cap) : context;
  out.window_bytes = checked_mul(out.window_entries, entry);
  if (a.compress_ratio == 0) return out;
  const auto r = a.compress_ratio, overlap = a.compressor_overlap();
  out.state_bytes = 2 * overlap * r * overlap * (a.head_dim + a.index_head_dim) * 4;
  out.compressed_entries = context / r;
  const auto slot = entry + index_key;
  if (const auto block = layout.compressed_block_tokens) {
    const auto rows = ceil_div(block, r), align = layout.compressed_page_align;
    out.block_tokens = block;
    out.block_bytes = ceil_div(rows * entry, align) * align + (index_key ? ceil_div(rows * index_key, align) * align : 0);
    out.compressed_bytes = checked_mul(ceil_div(context, block), out.block_bytes);
  } else {
    out.block_tokens = r;
    out.block_bytes = slot;
    out.compressed_bytes = checked_mul(out.compressed_entries, slot);
  }
  return out;
}

Error too_large() {
  return make_error("context", message("error.kv_cache.overflow", "context × batch × KV size overflows 64 bits; use "
                                                                  "smaller values"));
}
Error shape_too_large() { return make_error("config", message("error.kv_cache.shape_overflow", "KV shape overflows 64 bits")); }

}  // namespace

Result<KvCacheEstimate> estimate_kv_cache(const ModelSpec& spec, KvDType dtype, std::uint64_t context_tokens,
                                          std::uint64_t batch, const KvLayout& layout) {
  KvCacheEstimate out;
  out.dtype = dtype;
  out.mla = layout.mla;
  if (!spec.causal || spec.is_bare()) return out;
  if (auto ok = validate(spec); !ok) return ok.error();

  detail::CheckedSum per_token, per_sequence, state, conv_state;
  double compressed_per_token = 0;
  bool alike = true;
  std::optional<std::uint64_t> layer_bytes;
  for (const LayerRun& run : spec.layers) {
    if (run.mixer == MixerKind::attention && run.attention.one_kv_entry) {
      const auto part = one_entry_layer(run.attention, dtype, context_tokens, layout);
      const auto sequence = part.window_bytes && part.compressed_bytes
                                ? checked_add(*part.window_bytes, *part.compressed_bytes) : std::nullopt;
      if (!sequence) return too_large();
      alike = false;
      compressed_per_token += static_cast<double>(part.block_bytes * run.count) / static_cast<double>(part.block_tokens);
      if (const auto cap = cap_cells(run.attention, layout)) {
        out.windowed_layers += run.count;
        out.window_cells = std::max(out.window_cells, cap);
      }
      out.cached_token_slots += (part.window_entries + part.compressed_entries) * run.count;
      per_sequence.add({*sequence, run.count});
      if (part.state_bytes) {
        out.state_layers += run.count;
        state.add({part.state_bytes, run.count});
      }
      continue;
    }
    if (run.keeps_state()) {
      out.state_layers += run.count;
      const auto [conv, recurrent] = run.state_elements();
      state.add({conv, layout.conv_state_element_bytes, run.count});
      conv_state.add({conv, layout.conv_state_element_bytes, run.count});
      state.add({recurrent, layout.recurrent_state_element_bytes, run.count});
      continue;
    }
    if (!run.keeps_tokens()) continue;
    const TokenRow row = token_row(run, dtype, layout.mla);
    if (!row.bytes) return shape_too_large();
    if (layer_bytes && *layer_bytes != *row.bytes) alike = false;
    layer_bytes = row.bytes;
    out.elements_per_token_layer = row.elements;
    per_token.add({*row.bytes, run.count});
    std::uint64_t kept = context_tokens;
    if (run.mixer == MixerKind::attention) {
      const auto& a = run.attention;
      kept = kept_tokens(a, context_tokens, layout);
      if (const auto cap = cap_cells(a, layout)) {
        out.windowed_layers += run.count;
        out.window_cells = std::max(out.window_cells, cap);
      }
    }
    out.cached_token_slots += kept * run.count;
    per_sequence.add({kept, *row.bytes, run.count});
  }
  if (per_token.overflow()) return shape_too_large();
  out.bytes_per_token = per_token.value() + static_cast<std::uint64_t>(std::llround(compressed_per_token));
  out.bytes_per_token_layer = alike && layer_bytes ? *layer_bytes : 0;
  if (!alike) out.elements_per_token_layer = 0;
  const auto total = per_sequence.result() ? checked_mul(per_sequence.value(), batch) : std::nullopt;
  if (!total) return too_large();
  out.bytes = *total;
  if (state.overflow()) return make_error("config", message("error.kv_cache.state_overflow",
                                                                  "the state shape overflows 64 bits"));
  out.state_bytes_per_sequence = state.value();
  out.conv_state_bytes_per_sequence = conv_state.value();
  const auto states = checked_mul(out.state_bytes_per_sequence, batch);
  if (!states) return too_large();
  out.state_bytes = *states;
  return out;
}

std::optional<std::uint64_t> layer_token_bytes(const LayerRun& run, KvDType dtype, MlaCache mla) {
  return token_row(run, dtype, mla).bytes;
}

std::uint64_t layer_state_bytes(const LayerRun& run, const KvLayout& layout) {
  const auto [conv, recurrent] = run.state_elements();
  return conv * layout.conv_state_element_bytes + recurrent * layout.recurrent_state_element_bytes;
}

Result<KvCacheEstimate> estimate_kv_cache(const ModelSpec& spec, DType dtype, std::uint64_t context_tokens,
                                          std::uint64_t batch) {
  if (dtype == DType::int8 || dtype == DType::int4)
    return make_error("kv_dtype", message("error.kv_cache.dtype", "allowed: {allowed}",
                                          {arg::text("allowed", kv_dtype_names())}));
  const KvDType kv = dtype == DType::fp32 ? KvDType::fp32 : dtype == DType::fp16 ? KvDType::fp16
                   : dtype == DType::fp8  ? KvDType::fp8  : KvDType::bf16;
  return estimate_kv_cache(spec, kv, context_tokens, batch);
}

}  // namespace vramfit
