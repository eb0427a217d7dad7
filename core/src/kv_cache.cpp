#include "vramfit/kv_cache.hpp"

#include <algorithm>  // std::min

#include "vramfit/units.hpp"

namespace vramfit {

Result<KvCacheEstimate> estimate_kv_cache(const ModelSpec& spec, DType dtype, std::uint64_t context_tokens,
                                          std::uint64_t batch) {
  KvCacheEstimate out;
  if (!spec.causal || spec.is_bare()) return out;
  if (auto ok = validate(spec); !ok) return ok.error();

  const std::uint64_t elements_per_token_layer =
      spec.is_mla() ? spec.mla.kv_lora_rank + spec.mla.qk_rope_head_dim : 2 * spec.num_kv_heads * spec.head_dim;
  const auto per_layer = bytes_for(elements_per_token_layer, dtype);
  if (!per_layer) return make_error("config", "KV shape overflows 64 bits");
  out.bytes_per_token_layer = *per_layer;
  out.bytes_per_token = *per_layer * spec.num_layers;  // bounded by validate(): < 2^64

  for (std::uint64_t layer = 0; layer < spec.num_layers; ++layer) {
    const bool windowed = spec.layer_is_windowed(layer);
    out.windowed_layers += windowed;
    out.cached_token_slots += windowed ? std::min(context_tokens, spec.sliding_window) : context_tokens;
  }
  const auto per_sequence = checked_mul(out.cached_token_slots, *per_layer);
  const auto total = per_sequence ? checked_mul(*per_sequence, batch) : std::nullopt;
  if (!total) return make_error("context", "context × batch × KV size overflows 64 bits; use smaller values");
  out.bytes = *total;
  return out;
}

}  // namespace vramfit
