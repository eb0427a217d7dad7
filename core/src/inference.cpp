#include "vramfit/inference.hpp"

#include <algorithm>  // std::max
#include <string>     // std::to_string

#include "vramfit/units.hpp"

namespace vramfit {
namespace {

std::string n(std::uint64_t v) { return std::to_string(v); }

struct ActivationPeak {
  std::uint64_t bytes = 0;
  std::string values;
};

// Transient memory of one prefill forward pass in PyTorch with SDPA/flash attention: tensors are
// freed layer by layer, so the peak is the largest single layer's live set plus the logits.
//   attention: residual + normed input + q + k + v + attention output  = b·s·(2h + 2·a·d + 2·kv·d)
//   MLP:       residual + normed input + gate·act + up + product       = b·s·(2h + 3·i)  (gated)
//                                                                        b·s·(2h + 2·i)  (plain)
//   logits:    only the last position's, upcast to fp32                 = b·V·4  (transformers ≥ 4.45)
// MoE layers route each token to k experts: i counts k·i_expert + shared experts' widths.
std::optional<ActivationPeak> activation_peak(const ModelSpec& s, std::uint64_t tokens, std::uint64_t batch,
                                              DType compute) {
  const std::uint64_t c = dtype_info(compute).bits / 8;
  const std::uint64_t h = s.hidden_size, a = s.num_attention_heads;
  std::uint64_t attention_width = 0;
  if (s.is_mla()) {
    const auto qk = s.mla.qk_nope_head_dim + s.mla.qk_rope_head_dim;
    attention_width = 2 * h + a * (2 * qk + 2 * s.mla.v_head_dim);  // decompressed per-head q, k, v, output
  } else {
    attention_width = 2 * h + 2 * a * s.head_dim + 2 * s.num_kv_heads * s.head_dim;
  }
  std::uint64_t inner = s.intermediate_size;
  if (s.is_moe()) {
    const auto shared = s.moe.shared_intermediate ? s.moe.shared_intermediate : s.moe.expert_intermediate;
    const auto routed = s.moe.experts_per_token * s.moe.expert_intermediate + s.moe.shared_experts * shared;
    inner = std::max(s.moe.leading_dense_layers ? s.intermediate_size : 0, routed);
  }
  const std::uint64_t mlp_width = 2 * h + (s.gated_mlp ? 3 : 2) * inner;
  const std::uint64_t width = std::max(attention_width, mlp_width);
  const auto tokens_total = checked_mul(tokens, batch);
  const auto layer = tokens_total ? checked_mul(*tokens_total, width) : std::nullopt;
  const auto layer_bytes = layer ? checked_mul(*layer, c) : std::nullopt;
  const auto logits = s.has_lm_head ? checked_mul(batch, s.vocab_size * 4) : std::optional<std::uint64_t>(0);
  if (!layer_bytes || !logits) return std::nullopt;
  const auto total = checked_add(*layer_bytes, *logits);
  if (!total) return std::nullopt;
  ActivationPeak out;
  out.bytes = *total;
  out.values = n(batch) + " × " + n(tokens) + " × " + n(width) + " × " + n(c) + " B + " + n(batch) + " × " +
               n(s.has_lm_head ? s.vocab_size : 0) + " × 4 B";
  return out;
}

}  // namespace

Result<InferenceEstimate> estimate_inference(const ModelSpec& spec, const InferenceOptions& o) {
  if (o.context_tokens < 1 || o.context_tokens > kMaxContextTokens)
    return make_error("context", "must be between 1 and " + n(kMaxContextTokens) + " tokens, got " + n(o.context_tokens));
  if (o.batch < 1 || o.batch > kMaxBatch)
    return make_error("batch", "must be between 1 and " + n(kMaxBatch) + ", got " + n(o.batch));
  auto params = count_params(spec);
  if (!params) return params.error();

  InferenceEstimate e;
  e.params = params.value();
  e.weights_dtype = o.weights;
  const DType compute = compute_dtype_for(o.weights);
  e.kv_dtype = o.kv_dtype.value_or(compute);
  e.context_tokens = o.context_tokens;
  e.batch = o.batch;

  const auto weights = bytes_for(e.params.total, o.weights);
  if (!weights) return make_error("params", "weights overflow 64 bits");
  e.weights = *weights;
  e.explanations.push_back({"weights", "parameters × bits per weight / 8",
                            n(e.params.total) + " × " + n(dtype_info(o.weights).bits) + " / 8 = " + n(e.weights) + " B",
                            "every weight stored once at the chosen precision"});

  auto kv = estimate_kv_cache(spec, e.kv_dtype, o.context_tokens, o.batch);
  if (!kv) return kv.error();
  e.kv = kv.value();
  e.kv_cache = e.kv.bytes;
  if (spec.is_bare()) {
    e.explanations.push_back({"kv_cache", "unknown without the architecture", "0 B",
                              "give layers and hidden size, a preset or a config.json"});
    e.notes.push_back("Only a parameter count is known: the KV cache and activations are not estimated.");
  } else if (!spec.causal) {
    e.explanations.push_back({"kv_cache", "none: an encoder keeps no KV cache", "0 B", "architecture"});
  } else {
    const std::string per_layer =
        spec.is_mla() ? "(kv_lora_rank + qk_rope_head_dim) × bytes" : "2 × kv_heads × head_dim × bytes";
    const std::string per_layer_values =
        spec.is_mla() ? "(" + n(spec.mla.kv_lora_rank) + " + " + n(spec.mla.qk_rope_head_dim) + ") × " +
                            n(dtype_info(e.kv_dtype).bits / 8)
                      : "2 × " + n(spec.num_kv_heads) + " × " + n(spec.head_dim) + " × " + n(dtype_info(e.kv_dtype).bits / 8);
    e.explanations.push_back(
        {"kv_cache", "batch × Σ_layers min(context, window_layer) × " + per_layer,
         n(o.batch) + " × " + n(e.kv.cached_token_slots) + " token·layers × " + per_layer_values + " B = " +
             n(e.kv_cache) + " B (" + n(e.kv.bytes_per_token) + " B per token, all layers)",
         spec.is_mla() ? "DeepSeek-V2 §2.1.2 (latent cache)" : "vLLM paper §3 (Kwon et al. 2023)"});
  }

  if (!spec.is_bare()) {
    auto peak = activation_peak(spec, o.context_tokens, o.batch, compute);
    if (!peak) return make_error("context", "context × batch makes the activations overflow 64 bits");
    e.activations = peak->bytes;
    e.explanations.push_back({"activations",
                              "b × s × max(attention, MLP live width) × bytes + b × vocab × 4 (last-token fp32 logits)",
                              peak->values + " = " + n(e.activations) + " B",
                              "largest layer of one prefill pass; SDPA/flash attention keeps no s² score matrix"});
  }

  e.overhead = kCudaContextBytes;
  e.explanations.push_back({"overhead", "CUDA context and kernels", n(e.overhead) + " B (512 MiB)",
                            "CUDA ≥ 12.2 lazy loading ≈ 0.5 GiB; HF model-memory anatomy saw 1.3 GiB on V100"});

  const auto total = checked_add(e.weights, e.kv_cache);
  const auto total2 = total ? checked_add(*total, e.activations) : std::nullopt;
  const auto total3 = total2 ? checked_add(*total2, e.overhead) : std::nullopt;
  if (!total3) return make_error("context", "the total overflows 64 bits; use smaller values");
  e.total = *total3;
  e.explanations.push_back({"total", "weights + KV cache + activations + overhead",
                            n(e.weights) + " + " + n(e.kv_cache) + " + " + n(e.activations) + " + " + n(e.overhead) +
                                " = " + n(e.total) + " B",
                            "sum of the lines above"});
  for (const auto& note : spec.notes) e.notes.push_back(note);
  if (spec.max_context && o.context_tokens > spec.max_context)
    e.notes.push_back("Context " + n(o.context_tokens) + " exceeds the model's max_position_embeddings (" +
                      n(spec.max_context) + ").");
  return e;
}

}  // namespace vramfit
