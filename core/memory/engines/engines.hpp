#pragma once
// The engines vramfit models and what kind of program each one is, in one table. Code that asks "does this engine
// keep a KV pool for many requests" or "does it run on a Mac" reads a trait here rather than naming engines, so an
// engine added to the table is asked the same questions everywhere (HACKING.md, "A new engine").
#include <array>        // std::array
#include <cstddef>      // std::size_t
#include <optional>     // std::optional
#include <string>       // std::string
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
  // Has an Apple GPU (Metal) backend; metal_only: and runs on no other GPU.
  bool metal = false;
  bool metal_only = false;
  // PyTorch's CUDA caching allocator holds its tensors (transformers, vLLM, SGLang).
  bool torch = false;
};

inline constexpr std::array<EngineTraits, 6> kEngineTable{{
    {.engine = Engine::transformers, .name = "transformers", .title = "transformers", .metal = true, .torch = true},
    {.engine = Engine::vllm, .name = "vllm", .title = "vLLM", .kv_pool = true, .torch = true},
    {.engine = Engine::llamacpp, .name = "llamacpp", .title = "llama.cpp", .ggml = true, .metal = true},
    {.engine = Engine::sglang, .name = "sglang", .title = "SGLang", .kv_pool = true, .torch = true},
    {.engine = Engine::ollama, .name = "ollama", .title = "Ollama", .ggml = true, .metal = true},
    {.engine = Engine::mlx, .name = "mlx", .title = "MLX", .metal = true, .metal_only = true},
}};

constexpr const EngineTraits& engine_traits(Engine engine) noexcept {
  return kEngineTable[static_cast<std::size_t>(engine)];
}
static_assert([] {
  for (std::size_t i = 0; i < kEngineTable.size(); ++i)
    if (static_cast<std::size_t>(kEngineTable[i].engine) != i) return false;
  return true;
}(), "kEngineTable is indexed by Engine");
static_assert([] {
  for (const EngineTraits& t : kEngineTable)
    if (t.metal_only && !t.metal) return false;
  return true;
}(), "an engine that runs only on Apple GPUs runs on them");

constexpr std::string_view engine_name(Engine engine) noexcept { return engine_traits(engine).name; }
constexpr std::string_view engine_title(Engine engine) noexcept { return engine_traits(engine).title; }
// Also "llama.cpp", "hf", "mlx-lm".
std::optional<Engine> parse_engine(std::string_view name) noexcept;
inline constexpr std::string_view kEngineNames = "transformers, vllm, llamacpp, sglang, ollama, mlx";
static_assert([] {
  std::string_view rest = kEngineNames;
  for (std::size_t i = 0; i < kEngineTable.size(); ++i) {
    if (!rest.starts_with(kEngineTable[i].name)) return false;
    rest.remove_prefix(kEngineTable[i].name.size());
    if (i + 1 < kEngineTable.size() && !rest.starts_with(", ")) return false;
    if (i + 1 < kEngineTable.size()) rest.remove_prefix(2);
  }
  return rest.empty();
}(), "kEngineNames lists the table's names in its order");

constexpr bool kv_pool_engine(Engine engine) noexcept { return engine_traits(engine).kv_pool; }
constexpr bool ggml_engine(Engine engine) noexcept { return engine_traits(engine).ggml; }
constexpr bool runs_on_apple(Engine engine) noexcept { return engine_traits(engine).metal; }
// Whether the engine runs on a GPU of this kind at all: an Apple GPU, or any other.
constexpr bool runs_on_gpu(Engine engine, bool apple_gpu) noexcept {
  return apple_gpu ? engine_traits(engine).metal : !engine_traits(engine).metal_only;
}
constexpr bool runs_on_every_gpu(Engine engine) noexcept { return runs_on_gpu(engine, true) && runs_on_gpu(engine, false); }
// The titles of the engines that run on a GPU of that kind, in the table's order: "transformers / llama.cpp / …".
std::string engine_titles_on(bool apple_gpu);

}  // namespace vramfit
