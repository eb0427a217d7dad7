#include "model/model_spec.hpp"

#include <initializer_list>  // std::initializer_list
#include <optional>          // std::optional
#include <string>    // std::to_string

#include "util/units.hpp"

namespace vramfit {
namespace {

// Sums products of shape factors; remembers whether any step overflowed 64 bits.
class Tally {
 public:
  Tally& add(std::uint64_t a, std::uint64_t b = 1, std::uint64_t c = 1) {
    const auto ab = checked_mul(a, b);
    const auto abc = ab ? checked_mul(*ab, c) : std::nullopt;
    const auto sum = abc ? checked_add(sum_, *abc) : std::nullopt;
    if (!sum) overflow_ = true;
    else sum_ = *sum;
    return *this;
  }
  std::uint64_t sum() const noexcept { return sum_; }
  bool overflow() const noexcept { return overflow_; }

 private:
  std::uint64_t sum_ = 0;
  bool overflow_ = false;
};

std::uint64_t norm_params(const ModelSpec& s, std::uint64_t width) {
  return s.norm == NormKind::layer ? 2 * width : width;
}

// One feed-forward block of width `inner`: gate+up+down (gated) or up+down.
Tally mlp_params(const ModelSpec& s, std::uint64_t inner) {
  Tally t;
  t.add(s.gated_mlp ? 3 : 2, s.hidden_size, inner);
  if (s.mlp_bias) t.add(s.gated_mlp ? 2 : 1, inner).add(s.hidden_size);
  return t;
}

Tally attention_params(const ModelSpec& s) {
  Tally t;
  const auto h = s.hidden_size;
  const auto a = s.num_attention_heads;
  if (s.is_mla()) {
    // DeepSeek-V2 §2.1.2: low-rank joint compression of K and V (+ of Q when q_lora_rank is set).
    const auto& m = s.mla;
    const auto qk_head = m.qk_nope_head_dim + m.qk_rope_head_dim;
    if (m.q_lora_rank != 0) t.add(h, m.q_lora_rank).add(m.q_lora_rank).add(m.q_lora_rank, a, qk_head);
    else t.add(h, a, qk_head);
    t.add(h, m.kv_lora_rank + m.qk_rope_head_dim).add(m.kv_lora_rank);
    t.add(m.kv_lora_rank, a, m.qk_nope_head_dim + m.v_head_dim);
    t.add(a, m.v_head_dim, h);
    return t;
  }
  const auto d = s.head_dim;
  const auto kv = s.num_kv_heads;
  t.add(h, a, d).add(2, h, kv * d).add(a, d, h);  // q, k and v, o
  if (s.qkv_bias) t.add(a, d).add(2, kv, d);
  if (s.qk_norm) t.add(2, d);
  if (s.attn_out_bias) t.add(h);
  return t;
}

Error overflow_error() {
  return make_error("config", "the shapes multiply to more than 2^64 parameters; check the sizes");
}

}  // namespace

bool ModelSpec::layer_is_windowed(std::uint64_t layer) const noexcept {
  if (sliding_window == 0) return false;
  if (windowed_layers.empty()) return true;
  return layer < windowed_layers.size() && windowed_layers[layer];
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

  const auto h = s.hidden_size;
  Tally embedding;
  embedding.add(s.vocab_size, h).add(s.learned_positions, h).add(s.token_types, h);
  if (s.embedding_norm) embedding.add(norm_params(s, h));

  const Tally attention = attention_params(s);
  const Tally dense_mlp = mlp_params(s, s.intermediate_size);
  Tally expert_mlp, shared_mlp;
  if (s.is_moe()) {
    expert_mlp = mlp_params(s, s.moe.expert_intermediate);
    const auto shared_width = s.moe.shared_intermediate ? s.moe.shared_intermediate : s.moe.expert_intermediate;
    shared_mlp = mlp_params(s, shared_width);
  }
  const auto dense_layers = s.is_moe() ? s.moe.leading_dense_layers : s.num_layers;
  const auto moe_layers = s.num_layers - dense_layers;

  Tally total;
  total.add(embedding.sum());
  total.add(s.num_layers, attention.sum()).add(s.num_layers, s.norms_per_layer, norm_params(s, h));
  total.add(dense_layers, dense_mlp.sum());
  Tally inactive;
  if (moe_layers) {
    total.add(moe_layers, s.moe.routed_experts, expert_mlp.sum());
    total.add(moe_layers, s.moe.shared_experts, shared_mlp.sum());
    total.add(moe_layers, s.moe.routed_experts, h);  // router
    if (s.moe.router_bias) total.add(moe_layers, s.moe.routed_experts);
    inactive.add(moe_layers, s.moe.routed_experts - s.moe.experts_per_token, expert_mlp.sum());
  }
  if (s.final_norm) total.add(norm_params(s, h));
  if (s.pooler) total.add(h, h).add(h);
  total.add(s.vision_params);
  const std::uint64_t lm_head = (s.has_lm_head && !s.tied_embeddings) ? s.vocab_size * h : 0;
  total.add(lm_head);

  const Tally* tallies[] = {&embedding, &attention, &dense_mlp, &expert_mlp, &shared_mlp, &total, &inactive};
  for (const Tally* t : tallies)
    if (t->overflow()) return overflow_error();
  return ParamCounts{total.sum(), total.sum() - inactive.sum(), embedding.sum(), lm_head};
}

}  // namespace vramfit
