#include "memory/vllm_kv_groups.hpp"

#include <algorithm>  // std::min, std::max

#include "util/units.hpp"  // ceil_div

namespace vramfit {
namespace {

bool is_attention(const VllmLayerKind& k) noexcept { return k.kind != VllmSpecKind::state; }

// One request: max_model_len, max_num_batched_tokens and the pages it holds per state group.
struct Request {
  std::uint64_t len = 0, batched = 0, state_pages = 1;
};

// Blocks of `block` tokens one request of max_model_len L holds in one layer of this kind
// (KVCacheSpec.max_memory_usage_bytes / page_size_bytes, kv_cache_interface.py): full cdiv(L, b); sliding window
// cdiv(min(w − 1 + M, L), b) + 1, the window not starting at a block boundary; chunked cdiv(min(c + M, L), b);
// state `state_pages` pages (MambaSpec: 1 + spec blocks in mode "none", 2 + spec blocks in "align").
std::uint64_t request_blocks(const VllmLayerKind& k, std::uint64_t block, const Request& r) {
  const std::uint64_t len = r.len, batched = r.batched;
  switch (k.kind) {
    case VllmSpecKind::full: return ceil_div(len, block);
    case VllmSpecKind::sliding: return ceil_div(std::min(k.window - 1 + batched, len), block) + 1;
    case VllmSpecKind::chunked: return ceil_div(std::min(k.window + batched, len), block);
    case VllmSpecKind::state: return r.state_pages;
  }
  return 0;
}

// One kind for the whole model (UniformTypeKVCacheSpecs: one group, each layer its own page per block id).
VllmKvGroups one_group(std::span<const VllmLayerKind> kinds, const Request& r, std::uint64_t block) {
  const std::uint64_t len = r.len;
  VllmKvGroups g;
  g.groups = 1;
  for (const auto& k : kinds) {
    const std::uint64_t page = is_attention(k) ? block * k.token_bytes : k.state_bytes;
    g.group_size += k.layers;
    g.row_bytes += k.layers * page;
    g.page_bytes = std::max(g.page_bytes, page);
  }
  const bool attention = is_attention(kinds.front());
  g.min_block_tokens = attention ? block : len;  // a state spec's block is max_model_len
  g.attention_block_tokens = attention ? block : 0;
  g.blocks_per_request = request_blocks(kinds.front(), block, r);
  return g;
}

// Several kinds (_get_kv_cache_groups_uniform_page_size): every page padded to the largest, so a smaller kind's
// block holds more tokens; with state layers the attention block is raised until its page holds a state page
// (HybridAttentionMambaModelConfig: 16 · cdiv(state page, 16 · attention bytes per token)). Layers are cut into
// groups of the smallest kind's count (the largest when all counts are within 1.5×), the last group padded.
VllmKvGroups hybrid_groups(std::span<const VllmLayerKind> kinds, const Request& r, std::uint64_t block) {
  const std::uint64_t len = r.len;
  std::uint64_t token_max = 0, state_max = 0, fewest = ~0ULL, most = 0;
  for (const auto& k : kinds) {
    if (is_attention(k)) token_max = std::max(token_max, k.token_bytes);
    else state_max = std::max(state_max, k.state_bytes);
    fewest = std::min(fewest, k.layers);
    most = std::max(most, k.layers);
  }
  VllmKvGroups g;
  const std::uint64_t attention_block = token_max && state_max ? block * ceil_div(state_max, block * token_max) : block;
  g.page_bytes = token_max ? attention_block * token_max : state_max;
  g.group_size = 2 * most < 3 * fewest ? most : fewest;
  g.row_bytes = g.group_size * g.page_bytes;
  g.min_block_tokens = len;
  for (const auto& k : kinds) {
    const std::uint64_t kind_block = is_attention(k) ? g.page_bytes / k.token_bytes : len;
    const std::uint64_t groups = ceil_div(k.layers, g.group_size);
    g.groups += groups;
    g.blocks_per_request += groups * request_blocks(k, kind_block, r);
    if (is_attention(k)) g.min_block_tokens = std::min(g.min_block_tokens, kind_block);
    if (k.kind == VllmSpecKind::full) g.attention_block_tokens = kind_block;
  }
  return g;
}

bool same_spec(const VllmLayerKind& a, const VllmLayerKind& b) noexcept { return a.kind == b.kind && a.window == b.window; }

}  // namespace

VllmKvGroups vllm_kv_groups(std::span<const VllmLayerKind> kinds, std::uint64_t max_model_len,
                            std::uint64_t max_num_batched_tokens, std::uint64_t block_tokens,
                            std::uint64_t state_pages) {
  if (kinds.empty()) return {};
  const Request r{std::max<std::uint64_t>(max_model_len, 1), max_num_batched_tokens, state_pages};
  const bool uniform = std::all_of(kinds.begin(), kinds.end(), [&](const auto& k) { return same_spec(k, kinds.front()); });
  return uniform ? one_group(kinds, r, block_tokens) : hybrid_groups(kinds, r, block_tokens);
}

}  // namespace vramfit
