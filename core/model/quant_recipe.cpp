#include "model/quant_recipe.hpp"

#include <utility>  // std::pair

namespace vramfit {
namespace {

// Hugging Face module names (transformers' modeling files) → llama.cpp tensor-name parts (src/llama-arch.cpp).
// The first entry found in the module decides, so longer names come first.
constexpr std::pair<std::string_view, std::string_view> kModuleParts[] = {
    {"kv_a_proj_with_mqa", "attn_kv_a_mqa"}, {"kv_b_proj", "attn_kv_b"}, {"q_a_proj", "attn_q_a"},
    {"q_b_proj", "attn_q_b"}, {"shared_expert_gate", "ffn_gate_inp_shexp"}, {"shared_expert", "_shexp"},
    {"experts", "_exps"}, {"router", "ffn_gate_inp"}, {"indexer", "indexer_"}, {"q_proj", "attn_q."},
    {"k_proj", "attn_k."}, {"v_proj", "attn_v."}, {"o_proj", "attn_output"}, {"in_proj", "ssm_in"},
    {"out_proj", "ssm_out"}, {"conv1d", "ssm_conv1d"}, {"linear_attn", "ssm_"}, {"self_attn", "attn_"},
    {"attention", "attn_"}, {"attn", "attn_"}, {"embed_tokens", "token_embd"}, {"embeddings", "token_embd"},
    {"lm_head", "output."}, {"gate_proj", "ffn_gate."}, {"up_proj", "ffn_up."}, {"down_proj", "ffn_down."},
    {".gate", "ffn_gate_inp"}, {"mlp", "ffn_"},
};

// "model.layers.12.mlp" → 12 and the rest after it; "*" (or no index) → -1.
std::int64_t layer_of(std::string_view module, std::string_view& rest) {
  const auto at = module.find("layers.");
  if (at == std::string_view::npos) return -1;
  rest = module.substr(at + 7);
  std::int64_t layer = 0;
  std::size_t digits = 0;
  while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9')
    layer = layer * 10 + (rest[digits++] - '0');
  if (digits == 0 || digits > 6) layer = -1;
  rest.remove_prefix(digits);
  return layer;
}

}  // namespace

bool rule_covers(const TensorFormatRule& rule, std::string_view name, std::int64_t layer) noexcept {
  if (rule.layer != -1 && rule.layer != layer) return false;
  if (layer >= 0) {  // "blk.3.attn_q.weight" → "attn_q.weight"
    const auto dot = name.find('.', 4);
    name.remove_prefix(dot == std::string_view::npos ? name.size() : dot + 1);
  }
  if (rule.tensors.empty()) return layer >= 0;
  if (rule.tensors.front() == '_') return name.find(rule.tensors) != std::string_view::npos;
  return name.starts_with(rule.tensors);
}

std::optional<TensorFormatRule> rule_for_module(std::string_view module, std::string format) {
  TensorFormatRule rule{std::string(module), -1, "", std::move(format)};
  std::string_view rest = module;
  rule.layer = layer_of(module, rest);
  const bool in_blocks = rest.size() != module.size();
  for (const auto& [hf, part] : kModuleParts) {
    if (rest.find(hf) == std::string_view::npos) continue;
    if (!in_blocks && part != "token_embd" && part != "output." && module.find('*') == std::string_view::npos)
      continue;  // a top-level module other than the embeddings and the head: vision towers, MTP heads
    rule.tensors = std::string(part);
    return rule;
  }
  // A whole block ("model.layers.0*", "model.layers.1.*"): every tensor in it.
  if (in_blocks && rule.layer >= 0 && rest.find_first_not_of(".*") == std::string_view::npos) return rule;
  return std::nullopt;
}

}  // namespace vramfit
