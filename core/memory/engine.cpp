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

}  // namespace vramfit
