#pragma once
// vLLM's KV cache groups (v1/core/kv_cache_utils.py): how the pool is cut into blocks when a model mixes layer kinds
// (full attention, sliding window, chunked local attention, linear-attention or Mamba state), and what one request
// of max_model_len holds in it. Pure arithmetic on one GPU's layers.
#include <cstdint>  // std::uint64_t
#include <span>     // std::span

namespace vramfit {

// A layer's KVCacheSpec: FullAttentionSpec (and MLA), SlidingWindowSpec, ChunkedLocalAttentionSpec, MambaSpec.
enum class VllmSpecKind { full, sliding, chunked, state };

// The layers of one spec on one GPU.
struct VllmLayerKind {
  VllmSpecKind kind = VllmSpecKind::full;
  std::uint64_t layers = 0;
  std::uint64_t token_bytes = 0;  // attention: one token of one layer
  std::uint64_t state_bytes = 0;  // state: one sequence of one layer
  std::uint64_t window = 0;       // sliding window or chunk, in tokens
};

struct VllmKvGroups {
  std::uint64_t groups = 0;              // KV cache groups (a request holds blocks in each)
  std::uint64_t group_size = 0;          // layers per group: one shared tensor serves one layer of every group
  std::uint64_t page_bytes = 0;          // one block of one layer, every kind padded to the same page
  std::uint64_t row_bytes = 0;           // what one block id takes from the pool: group_size pages
  std::uint64_t min_block_tokens = 0;    // the smallest attention block
  std::uint64_t attention_block_tokens = 0;  // the full-attention block (raised to hold a state page)
  std::uint64_t blocks_per_request = 0;  // Σ over groups of cdiv(max_memory_usage_bytes, page), at max_model_len
};

// `block_tokens` is CacheConfig.block_size (16 on CUDA); `state_pages` what a request holds per state group:
// 1 with mamba_cache_mode "none", 2 with "align" (prefix caching). Empty `kinds`: no KV cache, all zero.
VllmKvGroups vllm_kv_groups(std::span<const VllmLayerKind> kinds, std::uint64_t max_model_len,
                            std::uint64_t max_num_batched_tokens, std::uint64_t block_tokens,
                            std::uint64_t state_pages = 1);

}  // namespace vramfit
