#include "memory/engine.hpp"

namespace vramfit {

std::string_view engine_name(Engine engine) noexcept {
  switch (engine) {
    case Engine::transformers: return "transformers";
    case Engine::vllm: return "vllm";
    case Engine::llamacpp: return "llamacpp";
  }
  return "transformers";
}

std::optional<Engine> parse_engine(std::string_view name) noexcept {
  if (name == "transformers" || name == "hf" || name == "pytorch") return Engine::transformers;
  if (name == "vllm") return Engine::vllm;
  if (name == "llamacpp" || name == "llama.cpp" || name == "llama-cpp") return Engine::llamacpp;
  return std::nullopt;
}

std::string_view attention_name(Attention attention) noexcept {
  return attention == Attention::eager ? "eager" : "sdpa";
}

std::optional<Attention> parse_attention(std::string_view name) noexcept {
  if (name == "sdpa" || name == "flash" || name == "flash_attention_2") return Attention::sdpa;
  if (name == "eager") return Attention::eager;
  return std::nullopt;
}

std::string_view kv_allocation_name(KvAllocation allocation) noexcept {
  switch (allocation) {
    case KvAllocation::paged: return "paged";
    case KvAllocation::static_max: return "static";
    case KvAllocation::engine_default: return "default";
  }
  return "default";
}

std::optional<KvAllocation> parse_kv_allocation(std::string_view name) noexcept {
  if (name == "static") return KvAllocation::static_max;
  if (name == "paged") return KvAllocation::paged;
  return std::nullopt;
}

void detail::TorchReserve::add(std::uint64_t request, std::uint64_t count) noexcept {
  if (request == 0 || count == 0) return;
  const std::uint64_t rounded = ceil_div(request, kTorchMinBlock) * kTorchMinBlock;
  // Saturate rather than wrap: the caller's totals are checked separately.
  auto add_to = [count](std::uint64_t& sum, std::uint64_t v) {
    const auto p = checked_mul(v, count);
    const auto s = p ? checked_add(sum, *p) : std::nullopt;
    sum = s ? *s : ~0ULL;
  };
  add_to(requested_, request);
  if (rounded <= kTorchSmallSize) add_to(small_, rounded);
  else if (rounded < kTorchMinLargeAlloc) add_to(mid_, rounded);
  else add_to(large_, ceil_div(rounded, kTorchRoundLarge) * kTorchRoundLarge);
}

std::uint64_t detail::TorchReserve::reserved() const noexcept {
  const auto small = ceil_div(small_, kTorchSmallBuffer) * kTorchSmallBuffer;
  const auto mid = ceil_div(mid_, kTorchLargeBuffer) * kTorchLargeBuffer;
  const auto sum = checked_add(large_, small);
  const auto total = sum ? checked_add(*sum, mid) : std::nullopt;
  return total ? *total : ~0ULL;
}

std::optional<VllmRule> parse_vllm_version(std::string_view v) noexcept {
  if (!v.empty() && (v.front() == 'v' || v.front() == 'V')) v.remove_prefix(1);
  std::uint64_t part[3] = {0, 0, 0};
  std::size_t i = 0;
  for (std::size_t n = 0; n < 3; ++n) {
    const std::size_t start = i;
    while (i < v.size() && v[i] >= '0' && v[i] <= '9' && i - start < 6) part[n] = part[n] * 10 + static_cast<std::uint64_t>(v[i++] - '0');
    if (i == start) return std::nullopt;
    if (i == v.size() || v[i] != '.') break;
    ++i;
  }
  // What may follow the numbers: a pre-release or local tag ("rc1", "+cu128", ".dev3").
  if (i < v.size() && !(v[i] == 'r' || v[i] == '+' || v[i] == 'd' || v[i] == 'p' || v[i] == 'a' || v[i] == 'b'))
    return std::nullopt;
  const auto at_least = [&](std::uint64_t a, std::uint64_t b, std::uint64_t c) {
    if (part[0] != a) return part[0] > a;
    if (part[1] != b) return part[1] > b;
    return part[2] >= c;
  };
  if (!at_least(0, 9, 2)) return std::nullopt;
  return at_least(0, 21, 0) ? VllmRule::graphs_inside : VllmRule::graphs_outside;
}

double vllm_default_gpu_util(VllmRule rule) noexcept {
  return rule == VllmRule::graphs_inside ? kVllmDefaultGpuUtilGraphsInside : kVllmDefaultGpuUtil;
}

}  // namespace vramfit
