#include "memory/engines/engine.hpp"

#include <algorithm>  // std::max
#include <cmath>      // std::round

namespace vramfit {

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

namespace {

// "0.11", "v0.21.1", "0.10.2rc1" as three numbers; nullopt for anything else.
struct Version {
  std::uint64_t part[3] = {0, 0, 0};
  bool at_least(std::uint64_t a, std::uint64_t b, std::uint64_t c) const noexcept {
    if (part[0] != a) return part[0] > a;
    if (part[1] != b) return part[1] > b;
    return part[2] >= c;
  }
};

std::optional<Version> parse_version(std::string_view v) noexcept {
  if (!v.empty() && (v.front() == 'v' || v.front() == 'V')) v.remove_prefix(1);
  Version out;
  std::size_t i = 0;
  for (std::size_t n = 0; n < 3; ++n) {
    const std::size_t start = i;
    while (i < v.size() && v[i] >= '0' && v[i] <= '9' && i - start < 6) out.part[n] = out.part[n] * 10 + static_cast<std::uint64_t>(v[i++] - '0');
    if (i == start) return std::nullopt;
    if (i == v.size() || v[i] != '.') break;
    ++i;
  }
  // What may follow the numbers: a pre-release or local tag ("rc1", "-rc2", "+cu128", ".dev3").
  if (i < v.size() && !(v[i] == 'r' || v[i] == '-' || v[i] == '+' || v[i] == 'd' || v[i] == 'p' || v[i] == 'a' || v[i] == 'b'))
    return std::nullopt;
  return out;
}

}  // namespace

std::optional<VllmRule> parse_vllm_version(std::string_view v) noexcept {
  const auto version = parse_version(v);
  if (!version || !version->at_least(0, 9, 2) || version->at_least(0, 28, 0)) return std::nullopt;
  if (version->at_least(0, 27, 0)) return VllmRule::hybrid_prefix_caching;
  if (version->at_least(0, 25, 0)) return VllmRule::runner_v2;
  return version->at_least(0, 21, 0) ? VllmRule::graphs_inside : VllmRule::graphs_outside;
}

bool vllm_version_after_modelled(std::string_view v) noexcept {
  const auto version = parse_version(v);
  return version && version->at_least(0, 28, 0);
}

std::string_view vllm_rule_version(VllmRule rule) noexcept {
  switch (rule) {
    case VllmRule::graphs_outside: return kVllmVersionGraphsOutside;
    case VllmRule::graphs_inside: return kVllmVersionGraphsInside;
    case VllmRule::runner_v2: return kVllmVersionRunnerV2;
    case VllmRule::hybrid_prefix_caching: return kVllmVersionModelled;
  }
  return kVllmVersionModelled;
}

std::optional<SglangRule> parse_sglang_version(std::string_view v) noexcept {
  const auto version = parse_version(v);
  if (!version) return std::nullopt;
  if (version->at_least(0, 5, 10)) return SglangRule::with_prefill_graphs;
  return version->at_least(0, 5, 3) ? SglangRule::by_gpu_memory : SglangRule::by_tp;
}

std::string_view sglang_rule_version(SglangRule rule) noexcept {
  switch (rule) {
    case SglangRule::by_tp: return kSglangVersionByTp;
    case SglangRule::by_gpu_memory: return kSglangVersionByGpuMemory;
    case SglangRule::with_prefill_graphs: return kSglangVersionPrefillGraphs;
  }
  return kSglangVersionPrefillGraphs;
}

namespace {

// ServerArgs._generate_prefill_cuda_graph_batch_sizes: 4..32 step 4, 48..256 step 16, 288..512 step 32,
// 576..1024 step 64, 1280..4096 step 256, then from 4608 in steps of 512, all up to max_bs.
std::uint64_t prefill_graph_size_count(std::uint64_t max_bs) noexcept {
  struct Run {
    std::uint64_t first, last, step;
  };
  static constexpr Run kRuns[] = {{4, 32, 4}, {48, 256, 16}, {288, 512, 32}, {576, 1024, 64}, {1280, 4096, 256}};
  std::uint64_t n = 0;
  for (const Run& r : kRuns)
    if (max_bs >= r.first) n += (std::min(max_bs, r.last) - r.first) / r.step + 1;
  if (max_bs >= 4608) n += (max_bs - 4608) / 512 + 1;
  return n;
}

}  // namespace

SglangDefaults sglang_defaults(SglangRule rule, std::uint64_t gpu_mib, std::uint64_t tp, std::uint64_t pp,
                               bool multimodal, bool mla) noexcept {
  SglangDefaults d;
  if (rule == SglangRule::by_tp) {  // ServerArgs.__post_init__ up to 0.5.2
    d.mem_fraction_static = tp >= 16 ? 0.79 : tp >= 8 ? 0.81 : tp >= 4 ? 0.85 : tp >= 2 ? 0.87 : 0.88;
    if (multimodal) d.mem_fraction_static *= 0.95;
    d.chunked_prefill_size = gpu_mib < 25'000 ? 2048 : 8192;
    return d;
  }
  // ServerArgs._handle_gpu_memory_settings (0.5.3+), CUDA buckets by capacity; 0.5.10 splits off a < 90 GiB
  // bucket with the same values.
  const bool wide = tp >= 4;
  if (gpu_mib < 20 * 1024) d.chunked_prefill_size = 2048, d.cuda_graph_max_bs = 8;
  else if (gpu_mib < 35 * 1024) d.chunked_prefill_size = 2048, d.cuda_graph_max_bs = wide ? 80 : 24;
  else if (gpu_mib < 60 * 1024) d.chunked_prefill_size = 4096, d.cuda_graph_max_bs = wide ? 160 : 32;
  else if (gpu_mib < 160 * 1024) d.chunked_prefill_size = 8192, d.cuda_graph_max_bs = wide ? 512 : 256;
  else d.chunked_prefill_size = 16384, d.cuda_graph_max_bs = 512;
  // reserved = 512 + max(chunked_prefill_size, 2048) × 1.5 + tp × pp / 8 × 1024 + the graphs' reserve MiB, at
  // least 10 GiB on GPUs above 60 GiB. The graphs: cuda_graph_max_bs × 2 for decode; from 0.5.10 also 8 per
  // captured prefill size (the sizes up to chunked_prefill_size; up to 2048 for MLA), or 1.5 GiB for MLA.
  double graphs = static_cast<double>(d.cuda_graph_max_bs) * 2.0;
  if (rule == SglangRule::with_prefill_graphs) {
    d.prefill_graph_sizes = prefill_graph_size_count(mla ? 2048 : d.chunked_prefill_size);
    graphs += mla ? 1.5 * 1024.0 : static_cast<double>(d.prefill_graph_sizes) * 8.0;
  }
  double reserved = 512.0 + static_cast<double>(std::max<std::uint64_t>(d.chunked_prefill_size, 2048)) * 1.5 +
                    static_cast<double>(tp * pp) / 8.0 * 1024.0 + graphs;
  if (gpu_mib > 60 * 1024) reserved = std::max(reserved, 10.0 * 1024.0);
  d.reserved_mib = static_cast<std::uint64_t>(reserved);
  const double mib = static_cast<double>(std::max<std::uint64_t>(gpu_mib, 1));
  d.mem_fraction_static = gpu_mib ? std::round((mib - reserved) / mib * 1000.0) / 1000.0 : 0.88;
  return d;
}

std::optional<OllamaRule> parse_ollama_version(std::string_view v) noexcept {
  const auto version = parse_version(v);
  if (!version) return std::nullopt;
  if (version->at_least(0, 31, 2)) return OllamaRule::llama_server_fit_target;
  if (version->at_least(0, 30, 11)) return OllamaRule::llama_server_projector_room;
  if (version->at_least(0, 30, 0)) return OllamaRule::llama_server;
  if (version->at_least(0, 11, 11)) return std::nullopt;
  return version->at_least(0, 6, 7) ? OllamaRule::num_ctx_4096 : OllamaRule::num_ctx_2048;
}

std::string_view mlx_rule_version(MlxRule rule) noexcept {
  return rule == MlxRule::chunk_logits ? kMlxVersionChunkLogits : kMlxVersionModelled;
}

std::optional<MlxRule> parse_mlx_version(std::string_view v) noexcept {
  const auto version = parse_version(v);
  if (!version || !version->at_least(0, 22, 2)) return std::nullopt;
  return version->at_least(0, 27, 0) ? MlxRule::last_token_logits : MlxRule::chunk_logits;
}

std::span<const EngineVersionChoice> engine_version_choices() noexcept {
  static constexpr EngineVersionChoice kChoices[] = {
      {Engine::vllm, "0.25"},      {Engine::vllm, "0.21"},       {Engine::vllm, "0.11"},       {Engine::sglang, "0.5.9"},    {Engine::sglang, "0.5.2"},
      {Engine::ollama, "0.31.1"},  {Engine::ollama, "0.30.10"},  {Engine::ollama, "0.11.10"},
      {Engine::ollama, "0.6.6"},   {Engine::mlx, "0.26.4"}};
  return kChoices;
}

std::string_view ollama_rule_version(OllamaRule rule) noexcept {
  switch (rule) {
    case OllamaRule::num_ctx_2048: return "0.6.6";
    case OllamaRule::num_ctx_4096: return "0.11.10";
    case OllamaRule::llama_server: return "0.30.10";
    case OllamaRule::llama_server_projector_room: return "0.31.1";
    case OllamaRule::llama_server_fit_target: return kOllamaVersionModelled;
  }
  return kOllamaVersionModelled;
}

bool ollama_parallel_automatic(std::string_view v) noexcept {
  const auto version = parse_version(v);
  return version && !version->at_least(0, 10, 0);
}

bool ollama_flash_attention_default(std::string_view t, std::string_view v) noexcept {
  if (t != "gpt_oss") return false;
  if (v.empty()) return true;
  const auto version = parse_version(v);
  return version && version->at_least(0, 11, 8);
}

std::uint64_t ollama_default_num_ctx(OllamaRule rule) noexcept {
  return rule == OllamaRule::num_ctx_2048 ? 2048 : 4096;
}

double vllm_default_gpu_util(VllmRule rule) noexcept {
  return rule == VllmRule::graphs_outside ? kVllmDefaultGpuUtilGraphsOutside : kVllmDefaultGpuUtil;
}

}  // namespace vramfit
