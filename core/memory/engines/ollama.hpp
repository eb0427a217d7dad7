#pragma once
// Ollama's own memory estimate (llm/memory.go estimateGPULayers, fs/ggml/ggml.go GraphSize, v0.11.10): the KV cache
// for num_ctx × OLLAMA_NUM_PARALLEL tokens, a compute-graph estimate by architecture, a minimum reserve per GPU, and
// the layers it offloads, last to first, while they fit; the rest stays in system RAM.
#include <cstdint>      // std::uint64_t
#include <optional>     // std::optional
#include <string_view>  // std::string_view
#include <vector>       // std::vector

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

}  // namespace vramfit
