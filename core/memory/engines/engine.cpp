#include "memory/engines/engine.hpp"

#include <array>  // std::array

#include "util/text.hpp"  // NamedValue, find_named

namespace vramfit {

namespace {

// Names in enum order, then the other spellings parse_attention reads.
constexpr std::array<NamedValue<Attention>, 2> kAttentions{{{"sdpa", Attention::sdpa}, {"eager", Attention::eager}}};
constexpr std::array<NamedValue<Attention>, 2> kAttentionAliases{
    {{"flash", Attention::sdpa}, {"flash_attention_2", Attention::sdpa}}};
// Names in enum order.
constexpr std::array<NamedValue<KvAllocation>, 3> kKvAllocations{
    {{"default", KvAllocation::engine_default}, {"static", KvAllocation::static_max}, {"paged", KvAllocation::paged}}};

}  // namespace

std::string_view attention_name(Attention attention) noexcept {
  return kAttentions[static_cast<std::size_t>(attention)].name;
}

std::optional<Attention> parse_attention(std::string_view name) noexcept {
  if (const auto* entry = find_named(kAttentions, name)) return entry->value;
  if (const auto* entry = find_named(kAttentionAliases, name)) return entry->value;
  return std::nullopt;
}

std::string_view kv_allocation_name(KvAllocation allocation) noexcept {
  return kKvAllocations[static_cast<std::size_t>(allocation)].name;
}

std::optional<KvAllocation> parse_kv_allocation(std::string_view name) noexcept {
  // "default" names the engine's own choice in answers; a request leaves the key out for it.
  const auto* entry = find_named(kKvAllocations, name);
  if (!entry || entry->value == KvAllocation::engine_default) return std::nullopt;
  return entry->value;
}

std::span<const EngineVersionChoice> engine_version_choices() noexcept {
  static constexpr EngineVersionChoice kChoices[] = {
      {Engine::vllm, "0.25"},      {Engine::vllm, "0.21"},       {Engine::vllm, "0.11"},       {Engine::sglang, "0.5.9"},    {Engine::sglang, "0.5.2"},
      {Engine::ollama, "0.31.1"},  {Engine::ollama, "0.30.10"},  {Engine::ollama, "0.11.10"},
      {Engine::ollama, "0.6.6"},   {Engine::mlx, "0.26.4"},      {Engine::llamacpp, "b9297"}};
  return kChoices;
}

Message driver_total_clause(bool rocm) {
  if (rocm)
    return message("engine.rocm_total", "the total ROCm reports for this GPU under Linux: less than the memory the card "
                                        "is sold with, by what the driver keeps");
  return message("engine.cuda_total", "the total CUDA reports for this GPU under Linux: less than the memory the card "
                                      "is sold with, by what the driver keeps");
}

std::string_view without_v(std::string_view version) noexcept {
  if (!version.empty() && (version.front() == 'v' || version.front() == 'V')) version.remove_prefix(1);
  return version;
}

std::string version_named(std::string_view asked, std::string_view rule_release) {
  return std::string(asked.empty() ? rule_release : without_v(asked));
}

bool version_after(std::string_view asked, std::string_view newest) noexcept {
  const auto a = detail::parse_engine_version(asked), n = detail::parse_engine_version(newest);
  return a && n && a->at_least(n->part[0], n->part[1], n->part[2] + 1);
}

}  // namespace vramfit

namespace vramfit::detail {

std::optional<EngineVersion> parse_engine_version(std::string_view v) noexcept {
  v = without_v(v);
  EngineVersion out;
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

}  // namespace vramfit::detail
