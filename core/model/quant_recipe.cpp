#include "model/quant_recipe.hpp"

#include <utility>  // std::pair

namespace vramfit {
namespace {

// Hugging Face module names (transformers' modeling files) → llama.cpp tensor-name parts (src/llama-arch.cpp).
// The first entry found in the module decides, so longer names come first.
constexpr std::pair<std::string_view, std::string_view> kModuleParts[] = {
    // Towers and projectors outside the language model: the core counts them as one tensor.
    {"vision", "vision_tower"}, {"visual", "vision_tower"}, {"multi_modal_projector", "vision_tower"},
    {"mm_projector", "vision_tower"}, {"patch_merge", "vision_tower"},
    // Multi-head latent attention (DeepSeek-V2/V3, Kimi K2, GLM-5) and its sparse-attention indexer.
    {"kv_a_proj_with_mqa", "attn_kv_a_mqa"}, {"kv_b_proj", "attn_kv_b"}, {"q_a_proj", "attn_q_a"},
    {"q_b_proj", "attn_q_b"}, {"indexer.k_norm", "indexer_k_norm"}, {"indexers_proj", "indexer_proj"},
    {"weights_proj", "indexer_proj"}, {"indexer.wk", "indexer_k."}, {"indexer.wq_b", "indexer_q_b"},
    {"indexer", "indexer_"},
    // Experts, shared experts and routers (Qwen, DeepSeek, MiniMax block_sparse_moe, Nemotron-H latent MoE).
    {"shared_expert_gate", "ffn_gate_inp_shexp"}, {"shared_expert", "_shexp"}, {"experts", "_exps"},
    {"router", "ffn_gate_inp"}, {"fc1_latent_proj", "ffn_latent_in"}, {"fc2_latent_proj", "ffn_latent_out"},
    {"q_proj", "attn_q."}, {"k_proj", "attn_k."}, {"v_proj", "attn_v."}, {"o_proj", "attn_output"},
    // Gated DeltaNet (Qwen3-Next, Qwen3.5: in_proj_qkv and in_proj_z are one ssm_in) and Mamba2 (Nemotron-H).
    {"in_proj_ba", "ssm_ba"}, {"in_proj_b", "ssm_ba"}, {"in_proj_a", "ssm_ba"}, {"in_proj", "ssm_in"},
    {"out_proj", "ssm_out"}, {"conv1d", "ssm_conv1d"}, {"linear_attn", "ssm_"}, {"self_attn", "attn_"},
    {"attention", "attn_"}, {"attn", "attn_"}, {"embed_tokens", "token_embd"}, {"embeddings", "token_embd"},
    {"embed", "token_embd"}, {"lm_head", "output."}, {"head", "output."}, {"gate_proj", "ffn_gate."},
    {"up_proj", "ffn_up."}, {"down_proj", "ffn_down."}, {".gate", "ffn_gate_inp"}, {"mlp", "ffn_"}, {"ffn", "ffn_"},
    {"gate", "ffn_gate_inp"},  // MiniMax's bare "gate": the router
};

// One projection of the experts or shared experts ("experts.3.down_proj", MiniMax's "experts.0.w2"): its tensor.
std::string one_projection(std::string_view module, std::string_view group) {
  constexpr std::pair<std::string_view, std::string_view> kProjections[] = {
      {"gate_proj", "ffn_gate"}, {"up_proj", "ffn_up"}, {"down_proj", "ffn_down"},
      {".w1", "ffn_gate"}, {".w3", "ffn_up"}, {".w2", "ffn_down"}};
  for (const auto& [hf, part] : kProjections)
    if (module.find(hf) != std::string_view::npos) return std::string(part) + std::string(group);
  return std::string(group);
}

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

std::optional<TensorFormatRule> rule_for_module(std::string_view module, std::string format,
                                                std::string_view architecture) {
  TensorFormatRule rule{std::string(module), -1, "", std::move(format)};
  std::string_view rest = module;
  rule.layer = layer_of(module, rest);
  const bool in_blocks = rest.size() != module.size();
  // A bare name ("gate", "self_attn") or a glob matches in every block, as transformers' modules_to_not_convert
  // and ModelOpt's fnmatch patterns do.
  const bool everywhere = module.find('*') != std::string_view::npos || module.find('.') == std::string_view::npos;
  for (const auto& [hf, part] : kModuleParts) {
    if (rest.find(hf) == std::string_view::npos) continue;
    const bool outside = part == "token_embd" || part == "output." || part == "vision_tower";
    if (!in_blocks && !outside && !everywhere) continue;  // a top-level module the core has no tensor for
    rule.tensors = std::string(part);
    if (part == "_exps" || part == "_shexp") rule.tensors = one_projection(rest, part);
    // Gemma 4 runs a dense MLP beside its experts; the core names it as a shared expert.
    if (part == "ffn_" && (architecture == "gemma4" || architecture == "gemma4_text")) rule.tensors = "_shexp";
    return rule;
  }
  // A whole block ("model.layers.0*", "model.layers.1.*"): every tensor in it.
  if (in_blocks && rule.layer >= 0 && rest.find_first_not_of(".*") == std::string_view::npos) return rule;
  return std::nullopt;
}

}  // namespace vramfit
