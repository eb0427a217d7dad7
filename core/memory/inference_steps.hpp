#pragma once
// The engine-neutral steps of estimate_inference that each engine's file under memory/engines/ builds on: one
// forward pass's activation peak, the weight format as the engine runs it, the KV bytes one rank holds, and the
// figures the explanations quote. Each engine fills its own part of InferenceEstimate through three functions of
// the same shape (add_<engine>_memory, <engine>_activations_explanation, add_<engine>_notes), which
// estimate_inference calls through engine_steps (inference.cpp).
#include <cstdint>   // std::uint64_t
#include <optional>  // std::optional

#include "memory/inference.hpp"

namespace vramfit::detail {

struct ActivationPeak {
  std::uint64_t layer_bytes = 0;   // largest layer's live set (+ eager scores)
  std::uint64_t scores_bytes = 0;  // eager attention: scores, fp32 softmax, cast back, mask
  std::uint64_t width = 0;         // live width of the phase that sets the peak (attention or MLP)
  bool scores_in_peak = false;     // the eager scores belong to that phase
};

// The largest layer's live set in one forward pass over `tokens` × `batch`, `c` bytes an element; eager adds the
// attention scores. nullopt on overflow.
std::optional<ActivationPeak> activation_peak(const ModelSpec& s, std::uint64_t tokens, std::uint64_t batch,
                                              std::uint64_t c, bool eager);
// KV bytes per token on one tensor-parallel rank and pipeline stage.
std::uint64_t kv_bytes_per_token_rank(const ModelSpec& spec, std::uint64_t per_token, const InferenceOptions& o);
// The format the weights are stored in, as this engine and spec can run it.
Result<WeightFormat> weight_format_of(const ModelSpec& spec, const InferenceOptions& o);
// Reserved up front or paged: the request's choice, else the engine's.
KvAllocation kv_allocation_of(const InferenceOptions& o);

// Figures the explanations quote that the estimate itself does not keep.
struct Workings {
  std::uint64_t compute_bytes = 0;  // c: bytes of one activation element
  std::uint64_t peak_width = 0;     // transformers, vLLM: live width of the phase that sets the activation peak
  bool scores_in_peak = false;      // transformers: the eager scores belong to that phase
  bool mxfp4 = false;               // the weight format is MXFP4 (its experts in E2M1 with E8M0 scales)
  std::uint64_t llama_n_kv = 0;     // llama.cpp: KV cells one ubatch attends to
  std::uint64_t reserve_requested = 0, reserve_reserved = 0;  // PyTorch's caching allocator
};

}  // namespace vramfit::detail
