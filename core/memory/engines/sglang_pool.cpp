#include "memory/engines/sglang_pool.hpp"

#include <algorithm>  // std::min, std::max
#include <cmath>      // std::floor

#include "memory/engines/sglang.hpp"  // SglangCapacity, sglang_kv_capacity

namespace vramfit {

SglangStatePool sglang_state_pool(std::uint64_t rest_bytes, std::uint64_t slot_bytes,
                                  double mamba_full_memory_ratio) noexcept {
  SglangStatePool p;
  p.slot_bytes = slot_bytes;
  if (!slot_bytes || !rest_bytes) return p;
  // Solves state + kv = rest and state / kv = r: the state's share is rest × r / (1 + r).
  const double share = mamba_full_memory_ratio / (1.0 + mamba_full_memory_ratio);
  const auto state_bytes = static_cast<std::uint64_t>(std::floor(static_cast<double>(rest_bytes) * share));
  p.max_mamba_cache_size = state_bytes / slot_bytes;
  p.reserved_bytes = p.max_mamba_cache_size * slot_bytes;
  p.allocated_bytes = (p.max_mamba_cache_size + 1) * slot_bytes;
  p.max_running_requests = p.max_mamba_cache_size / kSglangMambaSlotsPerRequest;
  return p;
}

SglangCapacity detail::sglang_kv_capacity(std::uint64_t free_at_start, double fraction, std::uint64_t weights,
                                          std::uint64_t cell, std::uint64_t context_len, std::uint64_t max_total_tokens,
                                          std::uint64_t state_slot_bytes) {
  SglangCapacity c;
  c.mem_fraction_static = fraction;
  c.free_at_start_bytes = free_at_start;
  c.weights_bytes = weights;
  c.cell_bytes = cell;
  c.context_len = std::max<std::uint64_t>(context_len, 1);
  // rest = F1 − F0 × (1 − fraction) with F1 = F0 − weights: the pool is fraction × F0 − weights.
  const auto budget = static_cast<std::uint64_t>(std::floor(static_cast<double>(free_at_start) * fraction));
  const std::uint64_t rest = budget > weights ? budget - weights : 0;
  c.state_pool = sglang_state_pool(rest, state_slot_bytes);
  c.kv_capacity_bytes = rest - c.state_pool.reserved_bytes;
  std::uint64_t tokens = cell ? c.kv_capacity_bytes / cell : 0;
  if (max_total_tokens) tokens = std::min(tokens, max_total_tokens);
  c.max_total_num_tokens = tokens / kSglangPageSize * kSglangPageSize;
  const double ratio = static_cast<double>(c.max_total_num_tokens) / static_cast<double>(c.context_len);
  c.concurrency_ratio = ratio;
  c.max_running_requests = std::min(std::max(static_cast<std::uint64_t>(ratio * 512), kSglangMinRunningRequests),
                                    kSglangMaxRunningRequests);
  // init_memory_pool: a hybrid model runs at most max_mamba_cache_size / 3 requests.
  if (state_slot_bytes) c.max_running_requests = std::min(c.max_running_requests, c.state_pool.max_running_requests);
  c.max_concurrency = std::min(c.max_total_num_tokens / c.context_len, c.max_running_requests);
  return c;
}

}  // namespace vramfit
