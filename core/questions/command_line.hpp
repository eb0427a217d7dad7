#pragma once
// The command people run for an estimate: the engine's own command line with the settings the estimate assumed,
// each flag only where it differs from the engine's default.
#include <string>  // std::string

#include "memory/engines/llamacpp_fit.hpp"
#include "questions/evaluate.hpp"

namespace vramfit {

struct EngineCommand {
  std::string text;  // one line to paste into a shell; empty when the engine has no command
  Message note;      // what to replace (the model's path), or why there is no command
};

// `fit`: llama.cpp's plan on the request's GPU, whose context and expert placement the command then spells out.
EngineCommand command_for(const Report& report, const Request& request, const ResolvedRequest& scenario,
                          const LlamaCppFitPlan* fit);

// The default port each engine's server listens on: vLLM 8000 (vllm serve --port), SGLang 30000 (server_args.py
// port), llama-server 8080 (tools/server/README.md --port), mlx_lm.server 8080 (mlx_lm/server.py --port); 0 where
// the engine runs no server of its own per model (Ollama's one server, transformers).
unsigned default_server_port(Engine engine) noexcept;

// The `nth` (from 1) other model's command, `command` as the model alone would run it, on a port of its own:
// the default port + nth, so that no two servers started on one machine ask for the same port. MLX's other model
// is kept loaded by mlx_lm.server (mlx_lm.generate exits after one prompt). Unchanged where the engine has no port.
std::string other_server_command(const std::string& command, Engine engine, unsigned nth);

}  // namespace vramfit
