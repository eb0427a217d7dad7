#pragma once
// The KV cache: keys and values of every past token, per layer, kept while generating.
#include <cstdint>      // std::uint64_t
#include <optional>     // std::optional
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view

#include "formats/dtype.hpp"
#include "model/model_spec.hpp"
#include "util/result.hpp"

namespace vramfit {

// Element types a KV cache is stored in. q8_0/q4_0 are llama.cpp's `-ctk/-ctv` block types: their size
// comes from the ggml block geometry (Q8_0 34 B per 32 elements = 8.5 bits, Q4_0 18 B per 32 = 4.5 bits).
enum class KvDType { fp32, fp16, bf16, fp8, q8_0, q4_0 };

struct KvDTypeInfo {
  KvDType type;
  std::string_view name;
  std::uint32_t block_elements;  // 1 for plain floats
  std::uint32_t block_bytes;     // bytes per block
  std::string_view summary;
};
std::span<const KvDTypeInfo> all_kv_dtypes() noexcept;
const KvDTypeInfo& kv_dtype_info(KvDType type) noexcept;
std::optional<KvDType> parse_kv_dtype(std::string_view name) noexcept;  // also float16, bfloat16, fp8_e4m3
std::string kv_dtype_names();                                          // "fp32, fp16, bf16, fp8, q8_0, q4_0"
KvDType kv_dtype_for(DType compute) noexcept;                          // fp32 → fp32, fp16 → fp16, else bf16

// What the engine keeps per token and layer. MLA models (DeepSeek-V2/V3) cache the compressed latent in
// vLLM, SGLang and llama.cpp, but Hugging Face transformers' DeepseekV3Attention decompresses K and V per
// head before caching them (modeling_deepseek_v3.py: key_states/value_states go to past_key_values).
enum class MlaCache { latent, per_head };

struct KvLayout {
  MlaCache mla = MlaCache::latent;
  // Extra cells a sliding-window layer keeps beyond the window, rounded up to `window_pad`:
  // llama.cpp's SWA cache holds n_swa + n_ubatch cells padded to 256 (llama_kv_cache_iswa).
  std::uint64_t window_extra = 0;
  std::uint64_t window_pad = 1;
  // Bytes per element of linear-attention and Mamba state, its conv part and its recurrent (SSM) part: llama.cpp
  // keeps both in f32 (llama_memory_recurrent's type_r/type_s); vLLM the conv state in the model's dtype and the
  // recurrent state in mamba_ssm_cache_dtype (the config's mamba_ssm_dtype when it names one).
  std::uint64_t conv_state_element_bytes = 2;
  std::uint64_t recurrent_state_element_bytes = 2;
  // Compressed entries (DeepSeek-V4) paged in blocks of this many tokens, each layer's page rounded up to a multiple
  // of compressed_page_align bytes (vLLM: 256-token blocks, 576-B alignment, MLAAttentionSpec); 0: unpaged.
  std::uint64_t compressed_block_tokens = 0;
  std::uint64_t compressed_page_align = 1;
};

struct KvCacheEstimate {
  std::uint64_t bytes = 0;                  // per-token caches (KV, latent, index) for batch × context
  std::uint64_t bytes_per_token = 0;        // one token, all layers, below any sliding window
  std::uint64_t bytes_per_token_layer = 0;  // one token, one layer, when every caching layer is alike; else 0
  std::uint64_t elements_per_token_layer = 0;
  std::uint64_t windowed_layers = 0;        // layers capped at a sliding window or chunk
  std::uint64_t window_cells = 0;           // tokens a windowed layer keeps at most (0: no window)
  std::uint64_t cached_token_slots = 0;     // Σ over layers of tokens kept, for one sequence
  // Per-sequence state of linear-attention and Mamba layers: fixed in context, one per sequence.
  std::uint64_t state_bytes = 0;               // for the whole batch
  std::uint64_t state_bytes_per_sequence = 0;  // all state layers, one sequence
  std::uint64_t conv_state_bytes_per_sequence = 0;  // its conv part (the rest is the recurrent state)
  std::uint64_t state_layers = 0;
  KvDType dtype = KvDType::bf16;
  MlaCache mla = MlaCache::latent;
};

// Per token and layer: 2 (K and V) · n_kv_heads · head_dim · bytes (vLLM paper §3; GQA/MQA via n_kv_heads; K = V
// layers still cache both, as vLLM and llama.cpp allocate them); MLA latent: (kv_lora_rank + qk_rope_head_dim) per token and layer (DeepSeek-V2 §2.1.2), plus
// the sparse-attention indexer's key (index_head_dim); MLA per head: heads · (qk_nope + qk_rope + v_head_dim).
// Sliding-window layers keep min(context, window) tokens (Mistral 7B paper, rolling buffer), chunked layers
// min(context, chunk) (both padded as the engine pads its windowed cache), compressed layers the window plus context / ratio entries. Linear attention keeps
// (conv_kernel − 1) · (2 · key_heads · key_dim + value_heads · value_dim) conv and value_heads · key_dim · value_dim
// recurrent elements per sequence (Qwen3-Next's cache); Mamba2 (conv_kernel − 1) · (inner + 2 · groups · state)
// and heads · head_dim · state (Mamba2 paper §7, vLLM's mamba state shapes). DeepSeek-V4's one-entry layers keep
// the window's entries and floor(context / r) compressed entries (+ the indexer's keys at r = 4), one entry per
// token serving as K and V; with fp8 the entry is vLLM's fp8_ds_mla slot and the indexer key fp8 with an fp32
// scale per 128; their compressors keep an fp32 state per sequence. Encoders (causal = false) keep
// nothing. Quantized types round each token's row up to whole blocks.
Result<KvCacheEstimate> estimate_kv_cache(const ModelSpec& spec, KvDType dtype, std::uint64_t context_tokens,
                                          std::uint64_t batch, const KvLayout& layout = {});
Result<KvCacheEstimate> estimate_kv_cache(const ModelSpec& spec, DType dtype, std::uint64_t context_tokens,
                                          std::uint64_t batch);

// One layer of `run` (attention or MLA) for one token, in bytes; nullopt when it overflows.
std::optional<std::uint64_t> layer_token_bytes(const LayerRun& run, KvDType dtype, MlaCache mla);
// One layer of `run` (linear attention or Mamba2) for one sequence: its conv and recurrent state, in bytes.
std::uint64_t layer_state_bytes(const LayerRun& run, const KvLayout& layout);

// Bytes of `elements` values stored as `dtype` (whole blocks for q8_0/q4_0).
std::optional<std::uint64_t> kv_bytes(std::uint64_t elements, KvDType dtype) noexcept;

}  // namespace vramfit
