#pragma once
// llama.cpp's --fit (common/fit.cpp, common_params_fit_impl; the tool llama-fit-params prints its result): before
// loading, it dry-runs the model against the GPU's free memory minus a margin and, only where the defaults do not
// fit, lowers the context towards a floor, then moves the routed experts of the last layers to system RAM, then
// whole layers.
#include <cstdint>      // std::uint64_t
#include <optional>     // std::optional
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "memory/engines/llamacpp.hpp"
#include "memory/inference.hpp"
#include "model/model_spec.hpp"
#include "util/result.hpp"
#include "util/units.hpp"

namespace vramfit {

inline constexpr std::uint64_t kLlamaFitMarginBytes = 1024 * kMiB;  // -fitt / --fit-target default, per device
inline constexpr std::uint64_t kLlamaFitMinContext = 4096;           // -fitc / --fit-ctx default: the context floor
inline constexpr std::uint64_t kLlamaContextAlign = 256;             // fit rounds a lowered context down to 256

// What fit had to change: nothing, the context, the experts' placement, or whole layers.
enum class LlamaFitStep { none, context, experts, layers };
std::string_view llama_fit_step_name(LlamaFitStep step) noexcept;  // "none", "context", "experts", "layers"

// The plan for one GPU. Byte counts are what llama.cpp's breakdown calls "self" (model + context + compute); the
// CUDA context and other processes are outside it, already gone from free_bytes.
struct LlamaCppFitPlan {
  LlamaFitStep step = LlamaFitStep::none;
  bool fits = true;                     // the plan leaves margin_bytes free (false: not even one layer does)
  std::uint64_t free_bytes = 0;         // free device memory fit measures against
  std::uint64_t margin_bytes = kLlamaFitMarginBytes;
  std::uint64_t projected_bytes = 0;    // every layer on the GPU at context_start
  std::uint64_t context_start = 0;      // the request's context, else the model's training context
  bool context_set = false;             // the user set -c: fit keeps it
  std::uint64_t context = 0;            // -c
  std::uint64_t context_saving_bytes = 0;
  std::uint64_t total_layers = 0;
  std::uint64_t gpu_layers = 0;         // -ngl: repeating layers on the GPU (the last ones)
  bool output_on_gpu = true;            // -ngl above the layer count
  std::uint64_t expert_layers = 0;      // layers with routed experts
  std::uint64_t cpu_expert_layers = 0;  // of those, the last ones whose experts stay in system RAM
  std::uint64_t first_cpu_expert_layer = 0;  // index of the first of them (= total_layers when none)
  std::uint64_t n_cpu_moe = 0;          // --n-cpu-moe equal in bytes: the first N layers' experts in RAM instead
  std::uint64_t gpu_model_bytes = 0;
  std::uint64_t gpu_context_bytes = 0;  // KV cache and recurrent state of the GPU's layers
  std::uint64_t gpu_compute_bytes = 0;
  std::uint64_t gpu_bytes = 0;          // model + context + compute
  std::uint64_t host_model_bytes = 0;   // weights left in system RAM (token embeddings included)
  std::uint64_t host_context_bytes = 0;
  std::uint64_t host_ram_bytes = 0;     // system RAM the placement takes: the two above
  // A vision projector llama-server loads after fit has placed the layers (--mmproj), on the same GPU; in gpu_bytes.
  std::uint64_t projector_bytes = 0;
  // The projector's room is in fit's target (llama-server adds the projector and clip's compute buffer to it, PR
  // #21489; Ollama from 0.31.2 sets projector + 1 GiB): clip's buffer lands in the room fit keeps free. Otherwise
  // (Ollama up to 0.31.1) the buffer comes on top of the placement.
  bool margin_holds_projector = false;
  // A draft model's room is in fit's target too (llama-server from b9305, PR #23485); the draft loads into it.
  bool margin_holds_draft = false;
};

// What --fit keeps free on the GPU it plans: its target (-fitt, 1 GiB; under Ollama from 0.31.2 its
// LLAMA_ARG_FIT_TARGET) and what llama-server's load_model adds to it before the plan
// (tools/server/server-context.cpp): a projector loaded on the GPU, mtmd_get_memory_usage's weights and clip compute
// buffer (PR #21489, in every build modelled); from b9305 a draft model's weights, context and compute buffer
// (common_get_device_memory_data, PR #23485).
struct LlamaCppFitTarget {
  std::uint64_t target_bytes = kLlamaFitMarginBytes;
  std::uint64_t projector_bytes = 0;  // weights + clip's compute buffer; 0: no projector on this GPU
  std::uint64_t draft_bytes = 0;      // weights + context + compute buffer; 0: no draft
  std::uint64_t build = kLlamaCppBuildModelled;
};
std::uint64_t llamacpp_fit_margin(const LlamaCppFitTarget& t) noexcept;
// LlamaCppFitTarget's projector_bytes: the projector's weights (`projector_bytes`, the plan's) and its image buffer
// where the vision tower loads on the GPU (not apart); 0 otherwise.
inline std::uint64_t llamacpp_projector_in_target(std::uint64_t projector_bytes,
                                                  const std::optional<VisionEncoder>& vision) noexcept {
  return projector_bytes && vision && !vision->apart ? projector_bytes + vision->compute_bytes : 0;
}

// What fit's dry runs measure, as vramfit estimates them: per repeating layer its weights without routed experts
// plus its cache (at context_start and at the floor), its routed experts, and the rest.
struct LlamaCppFitInputs {
  std::uint64_t free_bytes = 0;
  std::uint64_t margin_bytes = kLlamaFitMarginBytes;
  std::uint64_t context_start = 0;
  std::uint64_t context_floor = kLlamaFitMinContext;
  bool context_set = false;
  std::vector<std::uint64_t> layer_bytes;        // per layer: weights without routed experts
  std::vector<std::uint64_t> expert_bytes;       // per layer: routed experts (0 for a dense layer)
  std::vector<std::uint64_t> cache_bytes_start;  // per layer: cache at context_start
  std::vector<std::uint64_t> cache_bytes_floor;  // per layer: cache at the floor
  std::uint64_t output_bytes = 0;                // output layer (lm_head and final norm)
  std::uint64_t host_only_bytes = 0;             // always in RAM: token embeddings
  std::uint64_t compute_bytes = 0;               // GPU compute buffer (does not grow with the context here)
  std::uint64_t projector_bytes = 0;             // loaded after the plan, on the GPU: fit's dry runs leave it out
};

// Fit's steps on one GPU, as build 6895 (tools/fit-params/README.md) ran them: the output layer stays in RAM once
// anything has to move (-ngl counts the repeating layers only). Pure arithmetic, pinned to that README's log.
LlamaCppFitPlan plan_llamacpp_fit(const LlamaCppFitInputs& in);

// The inputs for `spec` run as `options` (engine llamacpp) on a GPU with `free_bytes` free; `context_set` when the
// request named the context, else fit starts from the model's training context. A projector (options.mmproj_offload)
// is not part of the dry runs (fit runs before mtmd loads it): it goes to projector_bytes.
Result<LlamaCppFitInputs> llamacpp_fit_inputs(const ModelSpec& spec, InferenceOptions options,
                                              std::uint64_t free_bytes, bool context_set);

}  // namespace vramfit
