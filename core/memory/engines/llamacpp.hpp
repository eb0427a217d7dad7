#pragma once
// llama.cpp (llama-server): n_ctx cells for all sequences, the layers -ngl puts on the GPU, the compute buffer ggml
// reserves for one ubatch, and what stays in system RAM; its --fit plan is memory/engines/llamacpp_fit.hpp.
#include <cstdint>      // std::uint64_t
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "memory/engines/engine.hpp"
#include "memory/kv_cache.hpp"  // KvDType, KvLayout
#include "model/model_spec.hpp"
#include "util/explanation.hpp"
#include "util/message.hpp"
#include "util/result.hpp"

namespace vramfit {

// --- llama.cpp -------------------------------------------------------------------------------------------
// The build the answer assumes: the one Ollama 0.32.15 (kOllamaVersionModelled) bundles (its LLAMA_CPP_VERSION), so
// both engines describe the same llama-server. Older builds are selectable back to kLlamaCppOldestBuild: --fit is on
// by default from PR #16653 (December 2025, in b7437: issue #18111's log), the projector (--mmproj) joins --fit's
// margin from PR #21489 (April 2026), and a draft model (-md) from PR #23485 (b9305; b9297 is without it, PR
// #23801's table). The builds of the first two are not pinned, so builds before b9297 are refused
// (docs/methodology.md).
inline constexpr std::uint64_t kLlamaCppBuildModelled = 10488;
inline constexpr std::string_view kLlamaCppVersionModelled = "b10488";
inline constexpr std::uint64_t kLlamaCppOldestBuild = 9297;
inline constexpr std::uint64_t kLlamaCppDraftInFitBuild = 9305;
// The first build assumed to hold PR #21489 (the projector in --fit's target): the PR was opened on 2026-04-05 and a
// note says it was merged on 2026-05-20; b9297 is from late May 2026. No build's log pins it.
inline constexpr std::uint64_t kLlamaCppProjectorInFitBuild = 9297;
static_assert(kLlamaCppProjectorInFitBuild <= kLlamaCppOldestBuild, "every build selectable keeps the projector's room");

// "b10488", "B9297" or "10488" as a build number; nullopt for anything else (a release tag, a version).
std::optional<std::uint64_t> parse_llamacpp_build(std::string_view version) noexcept;
// A build the answer can model: kLlamaCppOldestBuild to kLlamaCppBuildModelled.
constexpr bool llamacpp_build_modelled(std::uint64_t build) noexcept {
  return build >= kLlamaCppOldestBuild && build <= kLlamaCppBuildModelled;
}
// llama-server's load_model adds the draft's model, context and compute buffer to --fit's target before it plans
// the target model (tools/server/server-context.cpp, "[spec] estimated memory usage of draft model").
constexpr bool llamacpp_draft_in_fit(std::uint64_t build) noexcept { return build >= kLlamaCppDraftInFitBuild; }
std::string llamacpp_version_name(std::uint64_t build);  // "b10488"

inline constexpr std::uint64_t kLlamaDefaultCtx = 4096;  // common.h n_ctx since PR #10136 (Nov 2024)
inline constexpr std::uint64_t kLlamaNBatch = 2048;      // common.h n_batch
inline constexpr std::uint64_t kLlamaNUbatch = 512;      // common.h n_ubatch
inline constexpr std::uint64_t kLlamaSwaPad = 256;       // SWA cache size padded to 256 cells

struct LlamaCppBuffers {
  std::uint64_t build = kLlamaCppBuildModelled;  // the llama.cpp build assumed
  std::uint64_t n_ctx = 0;                  // KV cells: context × sequences
  std::uint64_t n_ubatch = 0;
  bool flash_attn = true;
  std::uint64_t gpu_layers = 0;             // repeating layers on the GPU
  std::uint64_t total_layers = 0;
  bool output_on_gpu = true;
  std::uint64_t compute_buffer_bytes = 0;   // GPU compute buffer (ggml graph reserve)
  std::uint64_t compute_buffer_other_bytes = 0;  // the same with flash attention toggled
  std::uint64_t compute_buffer_layers_bytes = 0;  // a device without the output layer: no logits in its graph
  std::uint64_t output_buffer_bytes = 0;    // host (CUDA_Host): n_vocab × n_outputs × 4
  std::uint64_t mmproj_bytes = 0;           // the vision projector on the GPU (--mmproj), inside the weights
  std::uint64_t host_weights_bytes = 0;     // token embeddings + layers left on the CPU
  std::uint64_t host_kv_bytes = 0;
  std::uint64_t host_state_bytes = 0;       // recurrent state of the layers left on the CPU
  std::uint64_t host_ram_bytes = 0;         // all of the above kept in system RAM
};

struct InferenceEstimate;
struct InferenceOptions;
namespace detail {
struct Workings;
}

}  // namespace vramfit

namespace vramfit::detail {  // steps of estimate_inference, declared for the tests that pin them

// llama.cpp's GPU compute buffer for one ubatch (worst-case graph reserve, f32 intermediates):
//   attention, -fa off: n_ubatch · (n_kv · n_head · 4 [KQ] + n_kv · 4 [KQ mask] + 4 · n_embd · 4)
//   attention, -fa on:  n_ubatch · (n_kv · 2 [f16 mask] + 4 · n_embd · 4)
//   output:             n_ubatch · (n_vocab + n_embd) · 4 [logits + final hidden state]
// and the largest of them (ggml-alloc reuses memory between phases).
std::uint64_t llamacpp_compute_buffer(std::uint64_t n_ubatch, std::uint64_t n_kv, std::uint64_t n_head,
                                      std::uint64_t n_embd, std::uint64_t n_vocab, std::uint64_t n_ff,
                                      bool flash_attn);

// A vision model's tower in a separate mmproj file that llama-server does not load (no --mmproj offload).
bool llamacpp_vision_tower_apart(const ModelSpec& spec, const InferenceOptions& o);

}  // namespace vramfit::detail

namespace vramfit::detail {  // llama.cpp's part of estimate_inference (memory/inference_steps.hpp)

std::optional<Error> add_llamacpp_memory(InferenceEstimate& e, Workings& w, const ModelSpec& spec,
                                         const InferenceOptions& o, const KvLayout& layout);
Explanation llamacpp_activations_explanation(const ModelSpec& spec, const InferenceOptions& o,
                                             const InferenceEstimate& e, const Workings& w);
void add_llamacpp_notes(std::vector<Message>& notes, const ModelSpec& spec, const InferenceOptions& o,
                        const InferenceEstimate& e);

}  // namespace vramfit::detail
