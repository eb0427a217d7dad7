#pragma once
// The KV cache: keys and values of every past token, per layer, kept while generating.
#include <cstdint>  // std::uint64_t

#include "vramfit/dtype.hpp"
#include "vramfit/model_spec.hpp"
#include "vramfit/result.hpp"

namespace vramfit {

struct KvCacheEstimate {
  std::uint64_t bytes = 0;                  // whole cache for batch × context
  std::uint64_t bytes_per_token = 0;        // one token, all layers, below any sliding window
  std::uint64_t bytes_per_token_layer = 0;  // one token, one layer
  std::uint64_t windowed_layers = 0;        // layers capped at the sliding window
  std::uint64_t cached_token_slots = 0;     // Σ over layers of tokens kept, for one sequence
};

// Per token and layer: 2 (K and V) · n_kv_heads · head_dim · bytes (vLLM paper §3; GQA/MQA via n_kv_heads);
// MLA keeps (kv_lora_rank + qk_rope_head_dim) per token and layer (DeepSeek-V2 §2.1.2).
// Sliding-window layers keep min(context, window) tokens (Mistral 7B paper, rolling buffer).
// Encoders (causal = false) keep nothing.
Result<KvCacheEstimate> estimate_kv_cache(const ModelSpec& spec, DType dtype, std::uint64_t context_tokens,
                                          std::uint64_t batch);

}  // namespace vramfit
