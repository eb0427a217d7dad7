#pragma once
// Ollama's own memory estimate (llm/memory.go estimateGPULayers, fs/ggml/ggml.go GraphSize, v0.11.10): the KV cache
// for num_ctx × OLLAMA_NUM_PARALLEL tokens, a compute-graph estimate by architecture, a minimum reserve per GPU, and
// the layers it offloads, last to first, while they fit; the rest stays in system RAM.
#include <cstdint>      // std::uint64_t
#include <optional>     // std::optional
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "memory/engines/engine.hpp"
#include "memory/kv_cache.hpp"  // KvDType, KvLayout
#include "model/model_spec.hpp"
#include "util/explanation.hpp"
#include "util/message.hpp"
#include "util/result.hpp"

namespace vramfit {

// Which of GraphSize's formulas applies: its llama, qwen2, gemma (Gemma 3n's × 4) and gpt-oss cases, its generic
// rule (architectures it has no case for), or a case of its own that vramfit does not model (the generic rule is
// used and a note says so).
enum class OllamaGraphFormula { llama, qwen2, gemma, gemma3n, gpt_oss, generic, unmodelled };
OllamaGraphFormula ollama_graph_formula(std::string_view hf_model_type, bool moe) noexcept;
std::string_view ollama_graph_formula_name(OllamaGraphFormula formula) noexcept;  // "llama", "qwen2", "generic", …

// The tokens GraphSize counts in each block's KV cache: num_ctx × num_parallel for every block, except in the two
// architectures it sizes apart. Gemma 3: every block but each 6th (Ollama's fixed pattern, whatever the config
// says) holds num_parallel × attention.sliding_window + batch. gpt-oss: the even blocks hold num_parallel × 4096 +
// batch. Gemma 2 slides too, but GraphSize gives it the full context.
enum class OllamaKvRule { full, gemma3, gpt_oss };
OllamaKvRule ollama_kv_rule(std::string_view hf_model_type) noexcept;
struct OllamaKvTokens {
  OllamaKvRule rule = OllamaKvRule::full;
  std::uint64_t blocks = 0;
  std::uint64_t context = 0;   // num_ctx × num_parallel
  std::uint64_t parallel = 1;  // num_parallel
  std::uint64_t batch = 0;     // min(num_ctx, num_batch)
  std::uint64_t window = 0;    // attention.sliding_window (Gemma 3)
};
std::vector<std::uint64_t> ollama_kv_tokens(const OllamaKvTokens& in);

struct OllamaGraphInputs {
  OllamaGraphFormula formula = OllamaGraphFormula::generic;
  std::uint64_t context = 0;    // num_ctx × num_parallel
  std::uint64_t batch = 0;      // min(num_ctx, num_batch)
  std::uint64_t embedding = 0;  // embedding_length
  std::uint64_t heads = 0;      // head_count (the largest)
  std::uint64_t heads_kv = 0;   // head_count_kv (the largest)
  std::uint64_t head_dim = 0;   // key_length
  std::uint64_t vocab = 0;
  std::uint64_t kv_total = 0;   // Σ layers' KV, for the generic rule
  bool metal = false;           // Metal: the partial graph is the full one
  // gpt-oss's case: the smallest head_count_kv, Σ layers' KV with every layer at the full context, num_parallel.
  std::uint64_t heads_kv_min = 0;
  std::uint64_t kv_full_total = 0;
  std::uint64_t parallel = 1;
  bool flash_attention = false;
};
struct OllamaGraph {
  std::uint64_t full = 0;     // every layer on the GPU
  std::uint64_t partial = 0;  // some layers on the CPU
};
OllamaGraph ollama_graph(const OllamaGraphInputs& in) noexcept;

// A vision model's projector as estimateGPULayers counts it (llm/memory.go, v0.11.10): for the Ollama engine's models,
// whose GGUF holds the vision tower, fs/ggml/ggml.go VisionGraphSize sums the "v." tensors' bytes (the tower; the
// "mm." projection into the text model is in no count) and a graph by architecture, and both join the output layer
// that is placed last (memoryLastLayer); the log prints them as projector.weights and projector.graph.
struct OllamaEstimatorProjector {
  std::uint64_t weights = 0;
  std::uint64_t graph = 0;
  bool graph_known = false;  // VisionGraphSize has a case for the architecture (gemma3 here)
};
// `tower_bytes`: the vision tower and projection as stored (F16).
OllamaEstimatorProjector ollama_estimator_projector(const ModelSpec& spec, std::uint64_t tower_bytes) noexcept;

// One GPU's placement (more GPUs are not modelled).
struct OllamaLayerInputs {
  std::uint64_t free_bytes = 0;     // memory.available
  std::uint64_t minimum_bytes = 0;  // the GPU's MinimumMemory
  std::uint64_t overhead_bytes = 0;  // OLLAMA_GPU_OVERHEAD
  std::vector<std::uint64_t> layer_bytes;  // blk.i weights
  std::vector<std::uint64_t> kv_bytes;     // blk.i KV cache
  std::uint64_t output_bytes = 0;          // output_norm + output (token_embd when tied)
  OllamaGraph graph;
  std::optional<std::uint64_t> num_gpu;    // num_gpu set by the user; none: -1, as many as fit
};
struct OllamaPlacement {
  bool gpu_usable = false;         // the GPU passed the minimum check (else every layer stays on the CPU)
  std::uint64_t layers_model = 0;  // block count + 1 (the output layer)
  std::uint64_t layers_offload = 0;
  bool fully_loaded = false;       // every block and the output layer on the GPU
  std::uint64_t graph_bytes = 0;   // graph full or partial, as the placement needs
  std::uint64_t vram_bytes = 0;    // memory.required.partial: minimum + one spare layer + offloaded layers + graph
  std::uint64_t overflow_bytes = 0;  // layers (weights and KV) left on the CPU
  std::uint64_t total_bytes = 0;   // memory.required.full = vram + overflow
};
OllamaPlacement place_ollama_layers(const OllamaLayerInputs& in) noexcept;

// --- Ollama ----------------------------------------------------------------------------------------------
// Up to v0.11.10 Ollama's analytic estimator chose the layers to offload (llm/memory.go estimateGPULayers,
// fs/ggml/ggml.go GraphSize as of v0.11.10). From v0.30.0 (PR #16031) it starts llama.cpp's llama-server and leaves
// the layers to its --fit (llm/llama_server.go, memory/engines/ollama_server.hpp); the versions since differ in how
// they load a vision projector. In between (v0.11.11, commit eb10390de, to v0.24) Ollama placed layers from the
// runner's test allocations (llm/server.go buildLayout): not modelled. The default is the latest release read,
// v0.32.15.
inline constexpr std::string_view kOllamaVersionModelled = "0.32.15";
// up to 0.6.6; 0.6.7 to 0.11.10; then llama-server: 0.30.0 to 0.30.10, 0.30.11 to 0.31.1, 0.31.2 and later
enum class OllamaRule {
  num_ctx_2048,
  num_ctx_4096,
  llama_server,                 // the projector on the GPU only above 10 GiB and never on an integrated GPU
  llama_server_projector_room,  // the projector on the GPU where it and 1 GiB fit
  llama_server_fit_target,      // and --fit keeps that room free (LLAMA_ARG_FIT_TARGET, PR #16996)
};
// "0.5.7", "v0.11.10", "0.33.0"; nullopt for text that is no version or a version whose layout rule is not modelled.
std::optional<OllamaRule> parse_ollama_version(std::string_view version) noexcept;
// The llama.cpp build an Ollama release from 0.30.0 to 0.32.15 bundles (the file LLAMA_CPP_VERSION at its tag);
// nullopt before 0.30.0, after 0.32.15 or for text that is no version.
std::optional<std::uint64_t> ollama_llamacpp_build(std::string_view version) noexcept;
// api.DefaultOptions NumCtx: 2048, 4096 from 0.6.7; from 0.30 the lowest tier of server/routes.go (4096).
std::uint64_t ollama_default_num_ctx(OllamaRule rule) noexcept;
// Before 0.10.0 (#11330) the scheduler tried OLLAMA_NUM_PARALLEL 4 (2 from 0.6.7) before 1 when it was unset.
bool ollama_parallel_automatic(std::string_view version) noexcept;
// fs/ggml/ggml.go FlashAttention() (from 0.11.8): gpt-oss turns flash attention on whatever OLLAMA_FLASH_ATTENTION
// says (llm/server.go, "model wants flash attention"); an empty version is the one modelled.
bool ollama_flash_attention_default(std::string_view hf_model_type, std::string_view version) noexcept;
inline constexpr std::uint64_t kOllamaNumBatch = 512;  // api.DefaultOptions NumBatch
// discover/gpu.go: what Ollama keeps free on each GPU besides its estimate (cudaMinimumMemory, rocmMinimumMemory;
// gpu_darwin.go metalMinimumMemory).
inline constexpr std::uint64_t kOllamaMinimumMemoryCuda = 457 * kMiB;
inline constexpr std::uint64_t kOllamaMinimumMemoryMetal = 512 * kMiB;

// Ollama's estimate for one GPU, as its "offload to cuda" log line prints it.
struct OllamaEstimate {
  std::uint64_t num_ctx = 0;
  std::uint64_t num_parallel = 1;
  bool flash_attention = false;
  KvDType kv_type = KvDType::fp16;   // f16, q8_0 or q4_0, as Ollama sizes it (1 and 0.5 bytes for the last two)
  bool kv_type_ignored = false;      // a quantized cache asked for without flash attention: Ollama keeps f16
  std::string graph_formula;         // which of GraphSize's formulas
  std::uint64_t kv_bytes = 0;        // memory.required.kv
  std::uint64_t window_layers = 0;   // blocks GraphSize sizes apart from num_ctx × num_parallel (Gemma 3, gpt-oss)
  std::uint64_t window_tokens = 0;   // the tokens it gives each of them
  std::uint64_t graph_full_bytes = 0;     // memory.graph.full
  std::uint64_t graph_partial_bytes = 0;  // memory.graph.partial
  std::uint64_t minimum_bytes = 0;   // the GPU's MinimumMemory
  std::uint64_t gpu_overhead_bytes = 0;   // OLLAMA_GPU_OVERHEAD
  std::uint64_t overhead_bytes = 0;  // the minimum and the spare layer Ollama adds to the GPU
  std::uint64_t weights_repeating_bytes = 0;
  std::uint64_t output_bytes = 0;    // the output layer Ollama places last
  std::uint64_t projector_weights_bytes = 0;  // projector.weights, placed with the output layer
  std::uint64_t projector_graph_bytes = 0;    // projector.graph
  bool projector_graph_known = true;
  bool projector_on_gpu = false;
  bool planned = false;              // a GPU was given: the placement below is for it
  std::uint64_t available_bytes = 0;  // memory.available
  std::uint64_t layers_model = 0;    // layers.model: blocks + output
  std::uint64_t layers_offload = 0;  // layers.offload: "offloaded N/M layers to GPU"
  bool gpu_usable = false;
  std::uint64_t required_full_bytes = 0;     // memory.required.full
  std::uint64_t required_partial_bytes = 0;  // memory.required.partial: the GPU's allocation
  std::uint64_t system_ram_bytes = 0;  // layers left on the CPU + token embeddings
};

struct InferenceEstimate;
struct InferenceOptions;
namespace detail {
struct Workings;
}

}  // namespace vramfit

namespace vramfit::detail {

// The KV cache line as Ollama's estimate gives it.
Explanation ollama_kv_explanation(const OllamaEstimate& m, const InferenceEstimate& e);

}  // namespace vramfit::detail

namespace vramfit::detail {  // Ollama's part of estimate_inference (memory/inference_steps.hpp)

std::optional<Error> add_ollama_memory(InferenceEstimate& e, Workings& w, const ModelSpec& spec,
                                       const InferenceOptions& o, const KvLayout& layout);
Explanation ollama_activations_explanation(const ModelSpec& spec, const InferenceOptions& o, const InferenceEstimate& e,
                                           const Workings& w);
void add_ollama_notes(std::vector<Message>& notes, const ModelSpec& spec, const InferenceOptions& o,
                      const InferenceEstimate& e);

}  // namespace vramfit::detail
