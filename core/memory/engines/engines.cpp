#include "memory/engines/engines.hpp"

namespace vramfit {

std::optional<Engine> parse_engine(std::string_view name) noexcept {
  for (const EngineTraits& e : kEngineTable)
    if (name == e.name) return e.engine;
  // Other spellings people use.
  if (name == "hf" || name == "pytorch") return Engine::transformers;
  if (name == "llama.cpp" || name == "llama-cpp") return Engine::llamacpp;
  if (name == "mlx-lm" || name == "mlx_lm") return Engine::mlx;
  return std::nullopt;
}

std::string engine_titles_on(bool apple_gpu) {
  std::string titles;
  for (const EngineTraits& e : kEngineTable)
    if (runs_on_gpu(e.engine, apple_gpu)) titles += (titles.empty() ? "" : " / ") + std::string(e.title);
  return titles;
}

}  // namespace vramfit
