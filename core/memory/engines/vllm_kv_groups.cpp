#include "memory/engines/vllm_kv_groups.hpp"

#include <algorithm>  // std::min, std::max
#include <map>        // std::map
#include <vector>     // std::vector

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

std::uint64_t round_up(std::uint64_t x, std::uint64_t multiple) { return ceil_div(x, multiple) * multiple; }

// Blocks a sliding cache of `window` tokens in `block`-token blocks holds for one request
// (SlidingWindowSpec.max_admission_blocks_per_request).
std::uint64_t sliding_blocks(std::uint64_t window, std::uint64_t block, std::uint64_t len, std::uint64_t in_flight) {
  return ceil_div(std::min(window - 1 + in_flight, len), block) + 1;
}

// One UniformTypeKVCacheSpecs of DeepSeek-V4: its layers by page size, and the blocks one request holds in it.
struct Dsv4Spec {
  std::map<std::uint64_t, std::uint64_t> layers_by_page;  // page bytes → layers with that page
  std::uint64_t request_blocks = 0;
  // get_num_layer_tuples: the most layers that share one page size.
  std::uint64_t tuples() const {
    std::uint64_t most = 0;
    for (const auto& [page, layers] : layers_by_page) most = std::max(most, layers);
    return most;
  }
  // The bytes of `tuples` layer tuples, one layer of each page size in each.
  std::uint64_t tuple_bytes(std::uint64_t tuples) const {
    std::uint64_t bytes = 0;
    for (const auto& [page, layers] : layers_by_page) bytes += std::min(layers, tuples) * page;
    return bytes;
  }
};

// _approximate_gcd: the tuple count d ≥ lower that pads the counts least when each is rounded up to a multiple of
// d, the larger d on a tie.
std::uint64_t approximate_gcd(const std::vector<std::uint64_t>& counts, std::uint64_t lower) {
  std::uint64_t most = 0;
  for (const auto c : counts) most = std::max(most, c);
  std::uint64_t best = std::max<std::uint64_t>(lower, 1), best_pad = ~0ULL;
  for (std::uint64_t d = best; d <= most; ++d) {
    std::uint64_t pad = 0;
    for (const auto c : counts) pad += (d - c % d) % d;
    if (pad <= best_pad) best_pad = pad, best = d;
  }
  return best;
}

}  // namespace

VllmKvGroups vllm_dsv4_groups(const VllmDsv4Layers& l, std::uint64_t max_model_len, std::uint64_t in_flight,
                              std::uint64_t block, std::uint64_t stages) {
  const std::uint64_t len = std::max<std::uint64_t>(max_model_len, 1), align = std::max<std::uint64_t>(l.page_align, 1);
  const std::uint64_t swa_block = 64;  // DeepseekV4SWACache.block_size
  const std::uint64_t swa_layers = l.window_only + l.ratio4 + l.ratio128;
  if (!swa_layers) return {};
  // Pages: every kind's block rounded up to the alignment (_apply_alignment_padding). Compressor states are fp32,
  // kv_state and score_state of overlap · dim each (overlap 2 at ratio 4), in blocks of 4 (ratio 4) or 8 (ratio 128)
  // states, their window overlap · ratio (CompressorStateCache).
  const std::uint64_t swa_page = round_up(swa_block * l.entry_bytes, align);
  Dsv4Spec swa{{{swa_page, swa_layers}}, sliding_blocks(l.window, swa_block, len, in_flight)};
  std::vector<Dsv4Spec> windowed;  // the SlidingWindowMLASpec groups, by (block_size, sliding_window)
  windowed.push_back(swa);
  Dsv4Spec mla;  // every compressed layer's entries and indexer keys: FullAttention pages of `block` tokens
  mla.request_blocks = ceil_div(len, block);
  if (l.ratio4) {
    mla.layers_by_page[round_up(block / 4 * l.entry_bytes, align)] += l.ratio4;
    mla.layers_by_page[round_up(block / 4 * l.index_key_bytes, align)] += l.ratio4;
    Dsv4Spec state{{}, sliding_blocks(2 * 4, 4, len, in_flight)};
    state.layers_by_page[round_up(4 * 2 * 2 * l.head_dim * 4, align)] += l.ratio4;
    state.layers_by_page[round_up(4 * 2 * 2 * l.index_head_dim * 4, align)] += l.ratio4;
    windowed.push_back(state);
  }
  if (l.ratio128) {
    mla.layers_by_page[round_up(block / 128 * l.entry_bytes, align)] += l.ratio128;
    windowed.push_back({{{round_up(8 * 2 * l.head_dim * 4, align), l.ratio128}}, sliding_blocks(128, 8, len, in_flight)});
  }
  VllmKvGroups g;
  g.attention_block_tokens = mla.layers_by_page.empty() ? 0 : block;
  g.min_block_tokens = l.ratio4 ? 4 : l.ratio128 ? 8 : swa_block;
  if (mla.layers_by_page.empty()) {  // sliding-window layers alone: one uniform group
    g.groups = 1;
    g.group_size = swa_layers;
    g.page_bytes = swa_page;
    g.row_bytes = ceil_div(swa_layers, stages) * swa_page;
    g.blocks_per_request = swa.request_blocks;
    return g;
  }
  // The layer tuples every group is cut to: d from the tuple counts, the compressed layers' the least; each
  // windowed group is split into cdiv(count, d) groups (layers i::n), the pool's block a row of the largest group.
  std::vector<std::uint64_t> counts{mla.tuples()};
  for (const auto& w : windowed) counts.push_back(w.tuples());
  const std::uint64_t d = approximate_gcd(counts, mla.tuples());
  g.group_size = d;
  g.groups = 1;
  g.blocks_per_request = mla.request_blocks;
  std::uint64_t largest_tuples = ceil_div(mla.tuples(), stages);
  g.row_bytes = mla.tuple_bytes(largest_tuples);
  for (const auto& w : windowed) {
    const std::uint64_t split = ceil_div(w.tuples(), d), tuples = ceil_div(ceil_div(w.tuples(), split), stages);
    g.groups += split;
    g.blocks_per_request += split * w.request_blocks;
    g.row_bytes = std::max(g.row_bytes, w.tuple_bytes(tuples));
    largest_tuples = std::max(largest_tuples, tuples);
  }
  for (const auto& [page, layers] : mla.layers_by_page) g.page_bytes = std::max(g.page_bytes, page);
  // The check charges every block the largest group's tuples of one page of each compressed kind.
  std::uint64_t tuple_bytes = 0;
  for (const auto& [page, layers] : mla.layers_by_page) tuple_bytes += page;
  g.request_block_bytes = largest_tuples * tuple_bytes;
  return g;
}

VllmKvGroups vllm_kv_groups(std::span<const VllmLayerKind> kinds, std::uint64_t max_model_len,
                            std::uint64_t max_num_batched_tokens, std::uint64_t block_tokens,
                            std::uint64_t state_pages) {
  if (kinds.empty()) return {};
  const Request r{std::max<std::uint64_t>(max_model_len, 1), max_num_batched_tokens, state_pages};
  const bool uniform = std::all_of(kinds.begin(), kinds.end(), [&](const auto& k) { return same_spec(k, kinds.front()); });
  return uniform ? one_group(kinds, r, block_tokens) : hybrid_groups(kinds, r, block_tokens);
}

}  // namespace vramfit
