#pragma once
// Other models kept loaded on the same GPUs as the model asked about: each estimated alone under the same engine,
// its footprint on each GPU is memory already in use when the model asked about loads last (memory/in_use.hpp).
// What a footprint is follows how each engine holds a model: a server process of its own (vLLM, SGLang,
// llama-server, transformers, mlx_lm) holds what it allocated; Ollama's one server holds a runner per model.
#include <cstdint>  // std::uint64_t
#include <string>   // std::string
#include <vector>   // std::vector

#include "memory/engines/engine.hpp"  // Engine
#include "util/explanation.hpp"

namespace vramfit {

struct InferenceEstimate;

struct OtherModel {
  std::string name;                 // the preset's id
  std::uint64_t context_tokens = 0;  // the context it runs with
  std::uint64_t bytes = 0;          // what it holds on each GPU
  double gpu_util = 0;              // vLLM: the gpu_memory_utilization it is started with; 0 otherwise
  std::string command;              // the line that starts it; empty where the engine has none
  Explanation explanation;          // its breakdown line's formula, values and source
};

// The breakdown's key for `m`: "other_model:<name>@<context>", unique per model and context.
std::string other_model_key(const OtherModel& m);

// vLLM's share of the GPU for a second server holding `need_bytes` (its weights, activation peak, non-torch memory,
// the graphs its budget holds and one sequence's KV blocks): the least gpu_memory_utilization with two decimals
// whose budget, floor(util × total), holds it; 0 where even 1.0 does not.
double vllm_util_holding(std::uint64_t need_bytes, std::uint64_t total_bytes) noexcept;

// What the other model `e` (estimated alone on the same GPU, under `engine`) holds on each GPU, and the line that
// explains it. `total_bytes`: the GPU's total as the driver reports it (0: no GPU chosen). For vLLM `e` is the
// estimate at the util vllm_util_holding gave (its budget is what the process holds).
OtherModel other_model_footprint(const InferenceEstimate& e, Engine engine, std::string name,
                                 std::uint64_t context_tokens, std::uint64_t total_bytes);

// The bytes the other models hold on each GPU together.
std::uint64_t others_bytes(const std::vector<OtherModel>& others) noexcept;

}  // namespace vramfit
