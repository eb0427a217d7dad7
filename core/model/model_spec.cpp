#include "model/model_spec.hpp"

#include <optional>  // std::optional
#include <string>    // std::to_string

#include "model/tensors.hpp"
#include "util/byte_math.hpp"  // CheckedSum

namespace vramfit {
namespace {

Error overflow_error() {
  return make_error("config", "the shapes multiply to more than 2^64 parameters; check the sizes");
}

}  // namespace

bool ModelSpec::layer_is_windowed(std::uint64_t layer) const noexcept {
  if (sliding_window == 0) return false;
  if (windowed_layers.empty()) return true;
  return layer < windowed_layers.size() && windowed_layers[static_cast<std::size_t>(layer)];
}

Result<bool> validate(const ModelSpec& s) {
  // Upper limits are far above any published model and keep hostile inputs from overflowing.
  auto range = [](const char* field, std::uint64_t v, std::uint64_t lo, std::uint64_t hi) -> std::optional<Error> {
    if (v >= lo && v <= hi) return std::nullopt;
    return make_error(field, std::string("must be between ") + std::to_string(lo) + " and " + std::to_string(hi) +
                                 ", got " + std::to_string(v));
  };
  if (s.is_bare()) {
    if (auto e = range("params", s.bare_params, 1, 100'000'000'000'000ULL)) return *e;
    return true;
  }
  constexpr std::uint64_t kMaxDim = 1'000'000;
  if (auto e = range("hidden_size", s.hidden_size, 1, kMaxDim)) return *e;
  if (auto e = range("num_hidden_layers", s.num_layers, 1, 10'000)) return *e;
  if (auto e = range("num_attention_heads", s.num_attention_heads, 1, 100'000)) return *e;
  if (auto e = range("vocab_size", s.vocab_size, 1, 100'000'000)) return *e;
  if (!s.is_mla()) {
    if (auto e = range("num_key_value_heads", s.num_kv_heads, 1, s.num_attention_heads)) return *e;
    if (s.num_attention_heads % s.num_kv_heads != 0)
      return make_error("num_key_value_heads", "must divide num_attention_heads (" +
                                                   std::to_string(s.num_attention_heads) + "), got " +
                                                   std::to_string(s.num_kv_heads));
    if (auto e = range("head_dim", s.head_dim, 1, 65'536)) return *e;
  } else {
    if (auto e = range("kv_lora_rank", s.mla.kv_lora_rank, 1, kMaxDim)) return *e;
    if (auto e = range("qk_rope_head_dim", s.mla.qk_rope_head_dim, 0, 65'536)) return *e;
    if (auto e = range("qk_nope_head_dim", s.mla.qk_nope_head_dim, 1, 65'536)) return *e;
    if (auto e = range("v_head_dim", s.mla.v_head_dim, 1, 65'536)) return *e;
    if (auto e = range("q_lora_rank", s.mla.q_lora_rank, 0, kMaxDim)) return *e;
  }
  const bool all_moe = s.is_moe() && s.moe.leading_dense_layers == 0;
  if (auto e = range("intermediate_size", s.intermediate_size, all_moe ? 0 : 1, 100 * kMaxDim)) return *e;
  if (s.is_moe()) {
    if (auto e = range("num_experts", s.moe.routed_experts, 1, 100'000)) return *e;
    if (auto e = range("num_experts_per_tok", s.moe.experts_per_token, 1, s.moe.routed_experts)) return *e;
    if (auto e = range("moe_intermediate_size", s.moe.expert_intermediate, 1, 100 * kMaxDim)) return *e;
    if (auto e = range("first_k_dense_replace", s.moe.leading_dense_layers, 0, s.num_layers)) return *e;
    if (auto e = range("n_shared_experts", s.moe.shared_experts, 0, 1'000)) return *e;
  }
  if (auto e = range("norms per layer", s.norms_per_layer, 0, 16)) return *e;
  if (auto e = range("max_position_embeddings", s.learned_positions, 0, 100'000'000)) return *e;
  if (auto e = range("type_vocab_size", s.token_types, 0, 1'000'000)) return *e;
  if (!s.windowed_layers.empty() && s.windowed_layers.size() != s.num_layers)
    return make_error("layer_types", "needs one entry per layer (" + std::to_string(s.num_layers) + "), got " +
                                         std::to_string(s.windowed_layers.size()));
  return true;
}

Result<ParamCounts> count_params(const ModelSpec& s) {
  if (auto ok = validate(s); !ok) return ok.error();
  if (s.is_bare()) return ParamCounts{s.bare_params, s.bare_params, 0, 0};
  detail::CheckedSum total, inactive, embedding, lm_head;
  for (const ModelTensor& t : model_tensors(s)) {
    const auto elements = t.elements();
    if (!elements) return overflow_error();
    total.add({*elements, t.copies()});
    if (t.role == TensorRole::embedding) embedding.add(*elements);
    if (t.role == TensorRole::output) lm_head.add(*elements);
    // Routed experts a token is not sent to do not run for it.
    if (t.experts > 1) inactive.add({*elements / t.experts, t.experts - s.moe.experts_per_token, t.copies()});
  }
  for (const auto* sum : {&total, &inactive, &embedding, &lm_head})
    if (sum->overflow()) return overflow_error();
  return ParamCounts{total.value(), total.value() - inactive.value(), embedding.value(), lm_head.value()};
}

}  // namespace vramfit
