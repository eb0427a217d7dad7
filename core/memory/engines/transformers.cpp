#include "memory/engines/transformers.hpp"

#include <algorithm>  // std::min, std::max
#include <string>     // std::string
#include <vector>     // std::vector

#include "memory/inference_steps.hpp"
#include "util/byte_math.hpp"
#include "util/units.hpp"

namespace vramfit::detail {

void TorchReserve::add(std::uint64_t request, std::uint64_t count) noexcept {
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

std::uint64_t TorchReserve::reserved() const noexcept {
  const auto small = ceil_div(small_, kTorchSmallBuffer) * kTorchSmallBuffer;
  const auto mid = ceil_div(mid_, kTorchLargeBuffer) * kTorchLargeBuffer;
  const auto sum = checked_add(large_, small);
  const auto total = sum ? checked_add(*sum, mid) : std::nullopt;
  return total ? *total : ~0ULL;
}

// transformers: one prefill pass's largest layer plus the last token's fp32 logits.
std::optional<Error> add_transformers_memory(InferenceEstimate& e, Workings& w, const ModelSpec& spec,
                                             const InferenceOptions& o, const KvLayout&) {
  auto peak = activation_peak(spec, o.context_tokens, o.batch, w.compute_bytes, o.attention == Attention::eager);
  const auto logits = spec.has_lm_head ? checked_mul(o.batch, spec.vocab_size * 4) : std::optional<std::uint64_t>(0);
  if (!peak || !logits || !checked_add(peak->layer_bytes, *logits))
    return make_error("context", message("error.inference.overflow_activations",
                                         "context × batch makes the activations overflow 64 bits"));
  e.logits = *logits;
  e.attention_scores = peak->scores_bytes;
  e.activations = peak->layer_bytes + e.logits;
  w.peak_width = peak->width;
  w.scores_in_peak = peak->scores_in_peak;
  return std::nullopt;
}

// PyTorch's caching allocator: segment rounding of long-lived tensors (weights; the static KV cache).
void add_torch_allocator_reserve(InferenceEstimate& e, Workings& w, const ModelSpec& spec, const InferenceOptions& o) {
  // Only PyTorch rounds so: ggml sizes its buffers exactly; MLX's buffer cache holds freed buffers outside its active
  // (peak) memory.
  if (!engine_traits(o.engine).torch || spec.is_bare()) return;
  TorchReserve reserve;
  if (o.weight_tensor_bytes) {
    e.weight_tensor_bytes = *o.weight_tensor_bytes;
  } else if (auto tensors = enumerate_tensors(spec); tensors && e.weight_detail.params) {
    for (const auto& t : tensors.value()) {
      const auto bytes = detail::mul_div_ceil(t.elements(), e.weight_detail.total, e.weight_detail.params);
      e.weight_tensor_bytes.push_back(bytes.value_or(0));
    }
  }
  for (const auto bytes : e.weight_tensor_bytes) reserve.add(bytes);
  if (const auto layers = spec.num_layers(); o.engine == Engine::transformers && spec.causal && layers)
    reserve.add(e.kv_cache / layers / 2, 2 * layers);  // one K and one V tensor per layer
  e.allocator_reserve = reserve.reserved() - std::min(reserve.reserved(), reserve.requested());
  w.reserve_requested = reserve.requested();
  w.reserve_reserved = reserve.reserved();
}

// Without expandable segments, freed activation blocks and a growing cache can stay reserved (transformers).
std::optional<std::uint64_t> torch_fragmentation_bytes(const ModelSpec& spec, const InferenceOptions& o,
                                                       const InferenceEstimate& e) {
  if (spec.is_bare() || o.expandable_segments || o.engine != Engine::transformers) return std::nullopt;
  const bool dynamic = o.kv_allocation == KvAllocation::engine_default;
  return e.activations + (dynamic ? e.kv_cache : 0);
}

Explanation transformers_activations_explanation(const ModelSpec&, const InferenceOptions& o,
                                                 const InferenceEstimate& e, const Workings& w) {
  const bool eager = o.attention == Attention::eager;
  const std::vector<MessageArg> args = {
      arg::count("batch", o.batch), arg::count("context", o.context_tokens), arg::count("width", w.peak_width),
      arg::count("element", w.compute_bytes), arg::count("scores", e.attention_scores), arg::count("logits", e.logits),
      arg::count("activations", e.activations)};
  return {"activations",
          eager ? message("explain.activations.formula_transformers_eager",
                          "b × s × max(attention, MLP live width) × bytes + b × heads × s² × (2·bytes + 4) + b × s² × "
                          "bytes (eager scores, fp32 softmax, cast back, mask) + b × vocab × 4 (last-token fp32 logits)")
                : message("explain.activations.formula_transformers",
                          "b × s × max(attention, MLP live width) × bytes + b × vocab × 4 (last-token fp32 logits)"),
          w.scores_in_peak ? message("explain.activations.values_transformers_scores",
                                     "{batch} × {context} × {width} × {element} B + {scores} B of scores + {logits} B "
                                     "= {activations} B", args)
                           : message("explain.activations.values_transformers",
                                     "{batch} × {context} × {width} × {element} B + {logits} B = {activations} B", args),
          eager ? message("explain.activations.source_transformers_eager",
                          "transformers eager_attention_forward: softmax(dtype=float32).to(dtype)")
                : message("explain.activations.source_transformers",
                          "largest layer of one prefill pass; SDPA/flash keeps no s² score matrix")};
}

// What transformers caches where the other engines cache less.
void add_transformers_notes(std::vector<Message>& notes, const ModelSpec& spec, const InferenceOptions& o,
                            const InferenceEstimate&) {
  if (spec.has_latent() && o.engine == Engine::transformers)
    notes.push_back(message("inference.transformers_mla",
                            "transformers' DeepSeek attention caches decompressed per-head K and V, not the MLA "
                            "latent that vLLM, SGLang and llama.cpp cache."));
}

}  // namespace vramfit::detail
