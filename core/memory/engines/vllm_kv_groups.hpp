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
  // What vLLM's start-up check charges for each of a request's blocks when it differs from row_bytes, and then
  // checks against the pool less one block (DeepSeek-V4's packed groups); 0: row_bytes, against the whole pool.
  std::uint64_t request_block_bytes = 0;
};

// `block_tokens` is CacheConfig.block_size (16 on CUDA); `state_pages` what a request holds per state group:
// 1 with mamba_cache_mode "none", 2 with "align" (prefix caching). Empty `kinds`: no KV cache, all zero.
VllmKvGroups vllm_kv_groups(std::span<const VllmLayerKind> kinds, std::uint64_t max_model_len,
                            std::uint64_t max_num_batched_tokens, std::uint64_t block_tokens,
                            std::uint64_t state_pages = 1);

// DeepSeek-V4's attention layers on one GPU, as vLLM caches them: every layer a sliding-window cache of its last
// `window` tokens in 64-token blocks; a compressed layer (ratio 4 or 128) its compressed entries in blocks of
// `block_tokens` tokens and its compressor's fp32 state; a ratio-4 layer also its indexer's keys and their
// compressor's state.
struct VllmDsv4Layers {
  std::uint64_t window_only = 0;      // compress ratio 0: the sliding-window cache alone
  std::uint64_t ratio4 = 0;
  std::uint64_t ratio128 = 0;
  std::uint64_t window = 0;           // sliding_window
  std::uint64_t head_dim = 0;         // the compressor state's width, with index_head_dim the indexer's
  std::uint64_t index_head_dim = 0;
  std::uint64_t entry_bytes = 0;      // one cached entry: 584 in fp8_ds_mla, head_dim × 2 in bf16
  std::uint64_t index_key_bytes = 0;  // one indexer key: 128 fp8 + one fp32 scale = 132
  std::uint64_t page_align = 0;       // every page rounded up to it: 576 in fp8_ds_mla, else 512
};

// vLLM's packed groups for them (kv_cache_utils.py: group_and_unify_kv_cache_specs,
// _get_kv_cache_groups_uniform_groups, _get_packed_kv_cache_layout, get_max_concurrency_for_kv_cache_config,
// _max_memory_usage_bytes_from_groups). `in_flight_tokens` is VllmConfig.max_in_flight_tokens, what a sliding cache
// holds beyond its window; `stages` pipeline stages each hold their share of every group's layers.
VllmKvGroups vllm_dsv4_groups(const VllmDsv4Layers& layers, std::uint64_t max_model_len,
                              std::uint64_t in_flight_tokens, std::uint64_t block_tokens, std::uint64_t stages = 1);

}  // namespace vramfit
