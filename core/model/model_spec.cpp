#include "model/model_spec.hpp"

#include <algorithm>  // std::any_of
#include <numeric>    // std::gcd
#include <optional>   // std::optional
#include <string>     // std::to_string

#include "model/tensors.hpp"
#include "util/byte_math.hpp"  // CheckedSum

namespace vramfit {
namespace {

Error overflow_error() {
  return make_error("config", message("model.overflow", "the shapes multiply to more than 2^64 parameters; check the sizes"));
}

}  // namespace

std::uint64_t ModelSpec::num_layers() const noexcept {
  std::uint64_t n = 0;
  for (const auto& run : layers) n += run.count;
  return n;
}

const LayerRun& ModelSpec::layer(std::uint64_t index) const noexcept {
  for (const auto& run : layers) {
    if (index < run.count) return run;
    index -= run.count;
  }
  return layers.back();
}

bool ModelSpec::has_moe() const noexcept {
  return std::any_of(layers.begin(), layers.end(), [](const LayerRun& r) { return r.mlp.kind == MlpKind::moe; });
}

bool ModelSpec::has_latent() const noexcept {
  return std::any_of(layers.begin(), layers.end(),
                     [](const LayerRun& r) { return r.mixer == MixerKind::latent_attention; });
}

std::uint64_t ModelSpec::attention_heads_gcd() const noexcept {
  std::uint64_t g = 0;
  for (const auto& run : layers) {
    g = std::gcd(g, run.attention_heads());
    if (run.mixer == MixerKind::attention) g = std::gcd(g, run.attention.kv_heads);
  }
  return g;
}

namespace {

using Check = std::optional<Error>;

// Upper limits are far above any published model and keep hostile inputs from overflowing.
Check range(const char* field, std::uint64_t v, std::uint64_t lo, std::uint64_t hi) {
  if (v >= lo && v <= hi) return std::nullopt;
  return make_error(field, message("model.range", "must be between {min} and {max}, got {value}",
                                   {arg::digits("min", lo), arg::digits("max", hi), arg::digits("value", v)}));
}

// "must divide num_attention_heads (32), got 5": `field` must divide `whole`'s value.
Error must_divide(const char* field, const char* whole, std::uint64_t n, std::uint64_t v) {
  return make_error(field, message("model.must_divide", "must divide {whole} ({n}), got {value}",
                                   {arg::text("whole", whole), arg::digits("n", n), arg::digits("value", v)}));
}

constexpr std::uint64_t kMaxDim = 1'000'000;

Check check_attention(const AttentionMixer& a) {
  if (auto e = range("num_attention_heads", a.heads, 1, 100'000)) return e;
  if (auto e = range("num_key_value_heads", a.kv_heads, 1, a.heads)) return e;
  if (a.heads % a.kv_heads != 0)
    return must_divide("num_key_value_heads", "num_attention_heads", a.heads, a.kv_heads);
  if (auto e = range("head_dim", a.head_dim, 1, 65'536)) return e;
  if (auto e = range("v_head_dim", a.v_head_dim, 0, 65'536)) return e;
  if (auto e = range("sliding_window", a.window, 0, 100'000'000)) return e;
  if (auto e = range("attention_chunk_size", a.chunk, 0, 100'000'000)) return e;
  if (auto e = range("compress_ratios", a.compress_ratio, 0, 1'000'000)) return e;
  if (auto e = range("qk_rope_head_dim", a.rope_dim, 0, a.head_dim)) return e;
  if (auto e = range("q_lora_rank", a.q_lora_rank, 0, kMaxDim)) return e;
  if (auto e = range("o_lora_rank", a.o_lora_rank, 0, kMaxDim)) return e;
  if (auto e = range("o_groups", a.o_groups, a.o_lora_rank ? 1 : 0, a.heads)) return e;
  if (a.o_groups && a.heads % a.o_groups != 0)
    return must_divide("o_groups", "num_attention_heads", a.heads, a.o_groups);
  if (auto e = range("index_n_heads", a.index_heads, 0, 100'000)) return e;
  return range("index_head_dim", a.index_head_dim, 0, 65'536);
}

Check check_latent(const LatentMixer& m) {
  if (auto e = range("num_attention_heads", m.heads, 1, 100'000)) return e;
  if (auto e = range("kv_lora_rank", m.kv_lora_rank, 1, kMaxDim)) return e;
  if (auto e = range("qk_rope_head_dim", m.qk_rope_head_dim, 0, 65'536)) return e;
  if (auto e = range("qk_nope_head_dim", m.qk_nope_head_dim, 1, 65'536)) return e;
  if (auto e = range("v_head_dim", m.v_head_dim, 1, 65'536)) return e;
  if (auto e = range("q_lora_rank", m.q_lora_rank, 0, kMaxDim)) return e;
  if (auto e = range("index_n_heads", m.index_heads, 0, 100'000)) return e;
  return range("index_head_dim", m.index_head_dim, 0, 65'536);
}

Check check_linear(const LinearMixer& m) {
  if (m.kind == LinearKind::kimi_delta) {  // one head count and width for q, k and v (linear_attn_config)
    if (auto e = range("linear_attn_config.num_heads", m.key_heads, 1, 100'000)) return e;
    if (auto e = range("linear_attn_config.head_dim", m.key_head_dim, 1, 65'536)) return e;
    return range("linear_attn_config.short_conv_kernel_size", m.conv_kernel, 1, 1'024);
  }
  if (auto e = range("linear_num_key_heads", m.key_heads, 1, 100'000)) return e;
  if (auto e = range("linear_num_value_heads", m.value_heads, 1, 100'000)) return e;
  if (auto e = range("linear_key_head_dim", m.key_head_dim, 1, 65'536)) return e;
  if (auto e = range("linear_value_head_dim", m.value_head_dim, 1, 65'536)) return e;
  if (m.value_heads % m.key_heads != 0)
    return make_error("linear_num_value_heads",
                      message("model.multiple_of", "must be a multiple of linear_num_key_heads ({n}), got {value}",
                              {arg::digits("n", m.key_heads), arg::digits("value", m.value_heads)}));
  return range("linear_conv_kernel_dim", m.conv_kernel, 1, 1'024);
}

Check check_mamba(const MambaMixer& m) {
  if (auto e = range("mamba_num_heads", m.heads, 1, 100'000)) return e;
  if (auto e = range("mamba_head_dim", m.head_dim, 1, 65'536)) return e;
  if (auto e = range("ssm_state_size", m.state_size, 1, 65'536)) return e;
  if (auto e = range("n_groups", m.groups, 1, m.heads)) return e;
  if (m.heads % m.groups != 0)
    return must_divide("n_groups", "mamba_num_heads", m.heads, m.groups);
  return range("conv_kernel", m.conv_kernel, 1, 1'024);
}

Check check_mlp(const MlpBlock& m) {
  switch (m.kind) {
    case MlpKind::dense: return range("intermediate_size", m.intermediate, 1, 100 * kMaxDim);
    case MlpKind::none: return std::nullopt;
    case MlpKind::moe: break;
  }
  if (auto e = range("num_experts", m.routed_experts, 1, 100'000)) return e;
  if (auto e = range("num_experts_per_tok", m.experts_per_token, 1, m.routed_experts)) return e;
  if (auto e = range("moe_intermediate_size", m.expert_intermediate, 1, 100 * kMaxDim)) return e;
  if (auto e = range("n_shared_experts", m.shared_experts, 0, 1'000)) return e;
  if (auto e = range("moe_latent_size", m.latent, 0, kMaxDim)) return e;
  return range("shared_expert_intermediate_size", m.shared_intermediate, 0, 100 * kMaxDim);
}

Check check_layer(const LayerRun& run) {
  if (auto e = range("num_hidden_layers", run.count, 1, 10'000)) return e;
  switch (run.mixer) {
    case MixerKind::attention:
      if (auto e = check_attention(run.attention)) return e;
      break;
    case MixerKind::latent_attention:
      if (auto e = check_latent(run.latent)) return e;
      break;
    case MixerKind::linear_attention:
      if (auto e = check_linear(run.linear)) return e;
      break;
    case MixerKind::mamba2:
      if (auto e = check_mamba(run.mamba)) return e;
      break;
    case MixerKind::none: break;
  }
  return check_mlp(run.mlp);
}

}  // namespace

Result<bool> validate(const ModelSpec& s) {
  if (s.is_bare()) {
    if (auto e = range("params", s.bare_params, 1, 100'000'000'000'000ULL)) return *e;
    return true;
  }
  if (auto e = range("hidden_size", s.hidden_size, 1, kMaxDim)) return *e;
  if (s.layers.empty()) return *range("num_hidden_layers", 0, 1, 10'000);
  for (const auto& run : s.layers)
    if (auto e = check_layer(run)) return *e;
  if (auto e = range("num_hidden_layers", s.num_layers(), 1, 10'000)) return *e;
  if (auto e = range("vocab_size", s.vocab_size, 1, 100'000'000)) return *e;
  if (auto e = range("norms per layer", s.norms_per_layer, 0, 16)) return *e;
  if (auto e = range("max_position_embeddings", s.learned_positions, 0, 100'000'000)) return *e;
  if (auto e = range("type_vocab_size", s.token_types, 0, 1'000'000)) return *e;
  if (auto e = range("hc_mult", s.hyper_connections, 0, 64)) return *e;
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
    if (t.experts > 1) inactive.add({*elements / t.experts, t.experts - t.active_experts, t.copies()});
  }
  // A text token does not pass through the vision tower: it runs on images, in the prompt.
  inactive.add(s.vision_params);
  for (const auto* sum : {&total, &inactive, &embedding, &lm_head})
    if (sum->overflow()) return overflow_error();
  return ParamCounts{total.value(), total.value() - inactive.value(), embedding.value(), lm_head.value()};
}

}  // namespace vramfit
