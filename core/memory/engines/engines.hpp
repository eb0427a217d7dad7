#pragma once
// The engines vramfit models and what kind of program each one is, in one table. Code that asks "does this engine
// keep a KV pool for many requests" or "does it run on a Mac" reads a trait here rather than naming engines, so an
// engine added to the table is asked the same questions everywhere (HACKING.md, "A new engine").
#include <array>        // std::array
#include <cstddef>      // std::size_t
#include <optional>     // std::optional
#include <string_view>  // std::string_view

namespace vramfit {

enum class Engine { transformers, vllm, llamacpp, sglang, ollama, mlx };

struct EngineTraits {
  Engine engine;
  std::string_view name;   // the request's value: "vllm"
  std::string_view title;  // as its project writes it: "vLLM"
  // Serves many requests from a KV pool taken up front as a share of the GPU (vLLM's gpu_memory_utilization,
  // SGLang's mem_fraction_static): capacity and concurrency are answers, several GPUs split every layer (tensor
  // parallel) or take stages, and a single request's context is bounded by the pool.
  bool kv_pool = false;
  // Runs GGUF files on ggml: its weights are the file's tensors, its buffers ggml's, several GPUs hold whole layers
  // (llama.cpp, and Ollama, which runs llama.cpp's ggml).
  bool ggml = false;
  // Has an Apple GPU (Metal) backend, and runs on nothing else.
  bool metal = false;
  bool metal_only = false;
  // PyTorch's CUDA caching allocator holds its tensors (transformers, vLLM, SGLang).
  bool torch = false;
};

inline constexpr std::array<EngineTraits, 6> kEngineTable{{
    {Engine::transformers, "transformers", "transformers", false, false, true, false, true},
    {Engine::vllm, "vllm", "vLLM", true, false, false, false, true},
    {Engine::llamacpp, "llamacpp", "llama.cpp", false, true, true, false, false},
    {Engine::sglang, "sglang", "SGLang", true, false, false, false, true},
    {Engine::ollama, "ollama", "Ollama", false, true, true, false, false},
    {Engine::mlx, "mlx", "MLX", false, false, true, true, false},
}};

constexpr const EngineTraits& engine_traits(Engine engine) noexcept {
  return kEngineTable[static_cast<std::size_t>(engine)];
}
static_assert([] {
  for (std::size_t i = 0; i < kEngineTable.size(); ++i)
    if (static_cast<std::size_t>(kEngineTable[i].engine) != i) return false;
  return true;
}(), "kEngineTable is indexed by Engine");

constexpr std::string_view engine_name(Engine engine) noexcept { return engine_traits(engine).name; }
constexpr std::string_view engine_title(Engine engine) noexcept { return engine_traits(engine).title; }
// Also "llama.cpp", "hf", "mlx-lm".
std::optional<Engine> parse_engine(std::string_view name) noexcept;
inline constexpr std::string_view kEngineNames = "transformers, vllm, llamacpp, sglang, ollama, mlx";

constexpr bool kv_pool_engine(Engine engine) noexcept { return engine_traits(engine).kv_pool; }
constexpr bool ggml_engine(Engine engine) noexcept { return engine_traits(engine).ggml; }
constexpr bool runs_on_apple(Engine engine) noexcept { return engine_traits(engine).metal; }
// Whether the engine runs on a GPU of this kind at all: an Apple GPU, or any other.
constexpr bool runs_on_gpu(Engine engine, bool apple_gpu) noexcept {
  return apple_gpu ? engine_traits(engine).metal : !engine_traits(engine).metal_only;
}

}  // namespace vramfit
