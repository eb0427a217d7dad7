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

}  // namespace vramfit
