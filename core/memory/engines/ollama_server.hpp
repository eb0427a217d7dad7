#pragma once
// Ollama from 0.30 (llm/llama_server.go, first in v0.30.0) runs every GGUF model in llama.cpp's llama-server:
// startLlamaServer passes -c num_ctx × numParallel, -np numParallel, -b/-ub num_batch, --cache-type-k/v from
// OLLAMA_KV_CACHE_TYPE and --flash-attn on|off|auto (LlamaServerFlashAttention), and -ngl only when num_gpu is set,
// so llama-server's --fit places the layers. Its memory is llama.cpp's (memory/inference.hpp) for that command line;
// what Ollama adds is how it picks num_ctx and num_batch.
#include <cstdint>  // std::uint64_t

#include "memory/inference.hpp"
#include "model/model_spec.hpp"
#include "util/result.hpp"
#include "util/units.hpp"

namespace vramfit {

// Engine ollama, version 0.30 or later.
constexpr bool ollama_runs_llama_server(const InferenceOptions& o) noexcept {
  return o.engine == Engine::ollama &&
         (o.ollama_rule == OllamaRule::llama_server || o.ollama_rule == OllamaRule::llama_server_projector_room ||
          o.ollama_rule == OllamaRule::llama_server_fit_target);
}

// A vision model (its projector a layer of the model's manifest, or its v.* tensors inside the file for the
// architectures llama/compat translates) runs with --mmproj (llm/llama_server.go appendMMProjArgs), and llama-server
// loads the projector onto the GPU unless Ollama adds --no-mmproj-offload (shouldDisableMMProjOffload): for num_gpu 0
// ("cpu-only"), for num_gpu below the blocks + 1 ("partial-text-offload"), and for a GPU whose memory is
// below the projector + 1 GiB (mmprojOffloadHeadroom, from v0.30.11; before, 10 GiB or less,
// limitedMMProjOffloadMemory, and any integrated GPU: Apple's). From v0.31.2 (PR #16996, extraEnvsForStart) an
// offloaded projector sets LLAMA_ARG_FIT_TARGET to ⌈(projector + 1 GiB) / MiB⌉, so that --fit keeps that much free
// for it instead of its own 1 GiB; before, the projector loads after --fit has placed the layers, unplanned.
inline constexpr std::uint64_t kOllamaProjectorHeadroom = 1 * kGiB;
inline constexpr std::uint64_t kOllamaProjectorLimitedMemory = 10 * kGiB;
enum class OllamaProjectorPlace { none, gpu, cpu_only, partial_offload, limited_memory, integrated_gpu };
struct OllamaProjector {
  std::uint64_t bytes = 0;  // mmprojMemoryRequirement: the projector's tensors (F16, as weights_bytes counts them)
  OllamaProjectorPlace place = OllamaProjectorPlace::none;
  std::uint64_t fit_target_bytes = 0;  // LLAMA_ARG_FIT_TARGET in bytes; 0: --fit's own margin
};
OllamaProjector ollama_projector(const ModelSpec& spec, const InferenceOptions& o);

// server/routes.go Server.Serve: the default num_ctx by Σ(TotalMemory − OLLAMA_GPU_OVERHEAD) over the GPUs, with
// thresholds "slightly lower (47/23 GiB vs. 48/24 GiB)" so that a 24 GB card's driver total still counts as 24.
inline constexpr std::uint64_t kOllamaLargeTierBytes = 47 * kGiB;
inline constexpr std::uint64_t kOllamaMediumTierBytes = 23 * kGiB;
inline constexpr std::uint64_t kOllamaLargeTierCtx = 262'144;
inline constexpr std::uint64_t kOllamaMediumTierCtx = 32'768;
inline constexpr std::uint64_t kOllamaSmallTierCtx = 4'096;
std::uint64_t ollama_vram_num_ctx(std::uint64_t total_vram_bytes) noexcept;

// server/sched.go getRunner: a multimodal model runs with at least 2048 tokens.
inline constexpr std::uint64_t kOllamaVisionMinCtx = 2048;

// llm/llama_server.go PredictServerVRAM: the file's size plus an f16 KV cache of
// 2 · block_count · head_count_kv (the least) · (embedding_length / head_count (the most)) · context · 2 B.
std::uint64_t ollama_predicted_vram(const ModelSpec& spec, std::uint64_t file_bytes, std::uint64_t context) noexcept;

// server/sched.go automaticGenerationBatch: the num_batch Ollama passes as -b and -ub when the model and request
// leave it unset.
struct OllamaBatchInputs {
  std::uint64_t context = 0;          // effectiveLlamaServerContext: min(num_ctx, n_ctx_train) × numParallel
  std::uint64_t predicted_bytes = 0;  // PredictServerVRAM
  std::uint64_t available_bytes = 0;  // the GPUs' free memory; 0: unknown (every batch "fits")
  bool flash_attention_off = false;   // OLLAMA_FLASH_ATTENTION=0
  bool cuda = false;                  // an NVIDIA GPU
};
std::uint64_t ollama_generation_batch(const OllamaBatchInputs& in) noexcept;

// The estimate for Ollama's llama-server: llama.cpp's buffers for the command line Ollama builds, reported as
// engine ollama. `o.context_tokens` is num_ctx (already capped by the caller), `o.batch` OLLAMA_NUM_PARALLEL.
Result<InferenceEstimate> estimate_ollama_server(const ModelSpec& spec, const InferenceOptions& o);

}  // namespace vramfit
