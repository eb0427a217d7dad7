#include "memory/in_use.hpp"

#include <algorithm>  // std::min
#include <cmath>      // std::ceil

#include "memory/engines/engine.hpp"          // kCudaContextBytes
#include "memory/engines/ollama_server.hpp"   // ollama_runs_llama_server, ollama_predicted_vram
#include "memory/inference.hpp"
#include "util/message.hpp"

namespace vramfit {

std::uint64_t free_beside(std::uint64_t free_bytes, std::uint64_t in_use_bytes) noexcept {
  return free_bytes > in_use_bytes ? free_bytes - in_use_bytes : 0;
}

std::uint64_t usable_beside(std::uint64_t usable, std::uint64_t in_use, bool unified, std::uint64_t ram) noexcept {
  if (!in_use) return usable;
  if (!unified) return free_beside(usable, in_use);
  return std::min(usable, free_beside(ram, in_use));
}

VllmStartCheck vllm_start_check(std::uint64_t total, double util, std::uint64_t in_use) noexcept {
  VllmStartCheck c;
  c.in_use_bytes = in_use;
  c.gpu_util = util;
  // mem_get_info after init_device: the CUDA context is already taken, with the other programs' memory.
  c.free_bytes = free_beside(free_beside(total, kCudaContextBytes), in_use);
  c.requested_bytes = static_cast<std::uint64_t>(std::ceil(static_cast<double>(total) * util));
  c.starts = c.free_bytes >= c.requested_bytes;
  // The largest util with two decimals whose ceil(util × total) is at most the free memory: util ≤ free / total.
  // free × 100 stays far inside 64 bits for any GPU (below 2^57 bytes).
  c.util_that_fits = total ? static_cast<double>(c.free_bytes * 100 / total) / 100.0 : 0;
  return c;
}

namespace detail {

namespace {

// vLLM: its start check against what is in use.
Explanation vllm_in_use_explanation(const InferenceEstimate& e, const MessageArg& in_use) {
  const VllmStartCheck& c = *e.vllm_start;
  return {"in_use",
          message("explain.in_use.formula_vllm",
                  "memory other programs hold: vLLM keeps its budget at gpu_memory_utilization × total and starts "
                  "only where the memory free after its CUDA context is at least that budget"),
          c.starts
              ? message("explain.in_use.values_vllm_starts",
                        "{in_use} B in use; free at start {free} B ≥ ceil({util} × total) = {requested} B: it starts",
                        {in_use, arg::count("free", c.free_bytes),
                         arg::fixed("util", c.gpu_util, 2),
                         arg::count("requested", c.requested_bytes)})
              : message("explain.in_use.values_vllm_refuses",
                        "{in_use} B in use; free at start {free} B < ceil({util} × total) = {requested} B: it "
                        "refuses to start",
                        {in_use, arg::count("free", c.free_bytes),
                         arg::fixed("util", c.gpu_util, 2),
                         arg::count("requested", c.requested_bytes)}),
          message("explain.in_use.source_vllm",
                  "vLLM PR #19312 (0.9.1): vllm/v1/worker/utils.py request_memory, \"Free memory on device ... on "
                  "startup is less than desired GPU memory utilization\"")};
}

Explanation in_use_explanation(const InferenceOptions& o, const InferenceEstimate& e) {
  // The other models have lines of their own; vLLM's start check weighs all that is in use.
  const MessageArg in_use =
      arg::count("in_use", e.vllm_start ? e.in_use : e.in_use - others_bytes(e.other_models));
  if (e.vllm_start) return vllm_in_use_explanation(e, in_use);
  switch (o.engine) {
    case Engine::sglang:
      return {"in_use",
              message("explain.in_use.formula_sglang",
                      "memory other programs hold: gone from the free memory SGLang measures before loading, of "
                      "which mem_fraction_static holds the weights and the KV pool"),
              message("explain.in_use.values", "{in_use} B", {in_use}),
              message("explain.in_use.source_sglang",
                      "SGLang model_runner_kv_cache_mixin.py _profile_available_bytes: rest = available memory − "
                      "pre_model_load_memory × (1 − mem_fraction_static), both free memory (get_available_gpu_memory, "
                      "torch.cuda.mem_get_info)")};
    case Engine::llamacpp:
      return {"in_use",
              message("explain.in_use.formula_llamacpp",
                      "memory other programs hold: gone from the free memory --fit measures on each device "
                      "(cudaMemGetInfo) before it keeps its margin"),
              message("explain.in_use.values", "{in_use} B", {in_use}),
              message("explain.in_use.source_llamacpp",
                      "llama.cpp common/fit.cpp: ggml_backend_dev_memory's free memory less --fit-target (1024 MiB)")};
    case Engine::ollama:
      return {"in_use",
              ollama_runs_llama_server(o)
                  ? message("explain.in_use.formula_ollama_server",
                            "memory other programs hold: gone from the free memory llama-server's --fit measures "
                            "(Ollama passes it no OLLAMA_GPU_OVERHEAD)")
                  : message("explain.in_use.formula_ollama",
                            "memory other programs hold: gone from the free memory Ollama's GPU discovery reports, "
                            "before OLLAMA_GPU_OVERHEAD and its minimum are kept"),
              message("explain.in_use.values", "{in_use} B", {in_use}),
              ollama_runs_llama_server(o)
                  ? message("explain.in_use.source_ollama_server",
                            "Ollama 0.33 llm/llama_server.go (llama-server --fit); OLLAMA_GPU_OVERHEAD only in "
                            "server/routes.go's default context and server/sched.go's log")
                  : message("explain.in_use.source_ollama",
                            "Ollama 0.11.10 discover/gpu.go (FreeMemory = cudaMemGetInfo's free), llm/memory.go "
                            "(FreeMemory > overhead + used + layer)")};
    case Engine::mlx:
      return {"in_use",
              message("explain.in_use.formula_mlx",
                      "memory other programs hold: counted against the Mac's RAM, not against the GPU's wired "
                      "limit, which stays at recommendedMaxWorkingSetSize; the model must fit both"),
              message("explain.in_use.values", "{in_use} B", {in_use}),
              message("explain.in_use.source_mlx",
                      "MLX mlx/backend/metal/allocator.cpp (block limit from recommendedMaxWorkingSetSize, a fixed "
                      "device property); mlx-lm generate.py wired_limit")};
    case Engine::transformers:
    case Engine::vllm:
      break;
  }
  return {"in_use",
          message("explain.in_use.formula_transformers",
                  "memory other programs hold: PyTorch allocates from what they leave, and device_map=\"auto\" "
                  "takes each GPU's free memory as its max_memory"),
          message("explain.in_use.values", "{in_use} B", {in_use}),
          message("explain.in_use.source_transformers",
                  "accelerate utils/modeling.py get_max_memory (torch.cuda.mem_get_info)")};
}

// The breakdown's total counts the card: the model's lines and what others hold.
Explanation card_total(const InferenceEstimate& e) {
  return {"total",
          message("explain.total.formula_in_use", "the model's memory + memory already in use"),
          message("explain.total.values_in_use", "{model} + {in_use} = {total} B",
                  {arg::count("model", e.total), arg::count("in_use", e.in_use), arg::count("total", e.total + e.in_use)}),
          message("explain.total.source_inference", "sum of the lines above")};
}

// The other models (memory/others.hpp): loaded first, this one last; Ollama's scheduler decides whether it keeps
// them (Ollama 0.33.0 server/sched.go).
void add_other_models_notes(InferenceEstimate& e, const ModelSpec& spec, const InferenceOptions& o) {
  if (e.other_models.empty()) return;
  std::string names;
  for (const OtherModel& m : e.other_models) names += (names.empty() ? "" : ", ") + m.name;
  e.notes.push_back(message("other_models.loaded_last",
                            "{names} loaded first, each estimated alone with its own context and its memory counted "
                            "as in use on each GPU; this model loads last, into what they leave.",
                            {arg::text("names", names)}));
  // Each SGLang server takes mem_fraction_static of the memory it finds free (_profile_available_bytes): one
  // started first at its default leaves the next little.
  if (o.engine == Engine::sglang)
    e.notes.push_back(message("other_models.sglang_fraction",
                              "Each other SGLang server is counted at its default mem_fraction_static, a share of the "
                              "memory it found free; started with a smaller --mem-fraction-static it leaves more to "
                              "this one."));
  if (o.engine != Engine::ollama) return;
  // OLLAMA_MAX_LOADED_MODELS, when unset, is defaultModelsPerGPU (3) × the GPUs; at that count the scheduler
  // unloads the least recently used runner (findRunnerToUnload) before it loads another.
  const std::uint64_t loaded = e.other_models.size() + 1;
  if (loaded > 3)
    e.notes.push_back(message("other_models.ollama_max_loaded",
                              "Ollama keeps at most 3 models loaded per GPU unless OLLAMA_MAX_LOADED_MODELS says more: "
                              "with {count} it unloads the least recently used one first. The command sets "
                              "OLLAMA_MAX_LOADED_MODELS={count}.",
                              {arg::digits("count", loaded)}));
  // load(requireFull): beside loaded runners a model must fit whole on the GPU and its PredictServerVRAM may take at
  // most 80% of the free memory left ("llama-server model predicted to exceed available memory, evicting"); else
  // the scheduler unloads the others and loads it alone.
  const std::uint64_t cells = o.context_tokens * o.batch;
  const std::uint64_t model_file =
      e.weight_detail.total - (e.llamacpp ? std::min(e.llamacpp->mmproj_bytes, e.weight_detail.total) : 0);
  const std::uint64_t predicted = ollama_predicted_vram(spec, model_file, cells);
  const std::uint64_t free = free_beside(o.gpu_memory_bytes, e.in_use);
  if (o.gpu_memory_bytes && (predicted > free * 80 / 100 || e.total > free))
    e.notes.push_back(message("other_models.ollama_evicts",
                              "Ollama would unload the other models to load this one: beside them {free_bytes} is "
                              "free, and a model loaded beside others must fit whole on the GPU with its predicted "
                              "{predicted_bytes} at most 80% of what is free.",
                              {arg::gib("free_bytes", free, 2), arg::gib("predicted_bytes", predicted, 2)}));
  e.notes.push_back(message("other_models.ollama_keep_alive",
                            "Ollama unloads a model 5 minutes after its last request (OLLAMA_KEEP_ALIVE); the command "
                            "sets OLLAMA_KEEP_ALIVE=-1 so that all of them stay loaded."));
}

}  // namespace

void add_in_use(InferenceEstimate& e, const ModelSpec& spec, const InferenceOptions& o) {
  e.in_use = o.memory_in_use;
  e.other_models = o.other_models;
  if (!e.in_use) return;
  add_other_models_notes(e, spec, o);
  if (e.vllm && e.vllm->driver_total_bytes) {
    e.vllm_start = vllm_start_check(e.vllm->driver_total_bytes, e.vllm->gpu_util, e.in_use);
    e.vllm_start->sequence_tokens = e.vllm->sequence_tokens;
    if (!e.vllm_start->starts && e.vllm_start->util_that_fits > 0) {
      // The pool does not depend on the memory in use (the budget is a share of the total), so the estimate at the
      // smaller share is the one on an empty card.
      InferenceOptions at = o;
      at.gpu_util = e.vllm_start->util_that_fits;
      at.memory_in_use = 0;
      at.explain = false;
      if (const auto again = estimate_inference(spec, at); again && again.value().vllm) {
        e.vllm_start->fits_kv_tokens = again.value().vllm->kv_capacity_tokens;
        e.vllm_start->fits_holds_sequence = again.value().vllm->max_concurrency > 0;
      }
    }
  }
  // The "already in use" line: what the person gave, or vLLM's start check, which weighs the other models too.
  const bool own_in_use = e.in_use > others_bytes(e.other_models) || e.vllm_start;
  if (o.explain) {
    auto total = std::find_if(e.explanations.begin(), e.explanations.end(),
                              [](const Explanation& x) { return x.key == "total"; });
    if (total != e.explanations.end()) {
      *total = card_total(e);
      const auto at = total - e.explanations.begin();
      if (own_in_use) e.explanations.insert(total, in_use_explanation(o, e));
      for (const OtherModel& m : e.other_models) e.explanations.insert(e.explanations.begin() + at, m.explanation);
    } else {
      for (const OtherModel& m : e.other_models) e.explanations.push_back(m.explanation);
      if (own_in_use) e.explanations.push_back(in_use_explanation(o, e));
    }
  }
  if (e.vllm_start && !e.vllm_start->starts && e.vllm_start->util_that_fits > 0 &&
      !e.vllm_start->fits_holds_sequence)
    e.notes.push_back(message("in_use.vllm_refuses_short",
                              "vLLM would not start: with {in_use_bytes} in use, {free_bytes} is free after its CUDA "
                              "context, less than gpu_memory_utilization {util} asks ({requested_bytes}). Even at "
                              "gpu_memory_utilization {fits}, the most that passes this check, its KV cache would hold "
                              "{tokens} tokens, less than one sequence of {length}.",
                              {arg::gib("in_use_bytes", e.in_use, 2), arg::gib("free_bytes", e.vllm_start->free_bytes, 2),
                               arg::fixed("util", e.vllm_start->gpu_util, 2),
                               arg::gib("requested_bytes", e.vllm_start->requested_bytes, 2),
                               arg::fixed("fits", e.vllm_start->util_that_fits, 2),
                               arg::count("tokens", e.vllm_start->fits_kv_tokens),
                               arg::count("length", e.vllm_start->sequence_tokens)}));
  else if (e.vllm_start && !e.vllm_start->starts)
    e.notes.push_back(message("in_use.vllm_refuses",
                              "vLLM would not start: with {in_use_bytes} in use, {free_bytes} is free after its CUDA "
                              "context, less than gpu_memory_utilization {util} asks ({requested_bytes}). "
                              "gpu_memory_utilization {fits} starts, with a smaller KV pool.",
                              {arg::gib("in_use_bytes", e.in_use, 2), arg::gib("free_bytes", e.vllm_start->free_bytes, 2),
                               arg::fixed("util", e.vllm_start->gpu_util, 2),
                               arg::gib("requested_bytes", e.vllm_start->requested_bytes, 2),
                               arg::fixed("fits", e.vllm_start->util_that_fits, 2)}));
  else if (e.vllm_start)
    e.notes.push_back(message("in_use.vllm_starts",
                              "vLLM starts beside the {in_use_bytes} in use: its budget is gpu_memory_utilization of "
                              "the total, so the KV pool is the same as on an empty card.",
                              {arg::gib("in_use_bytes", e.in_use, 2)}));
  // Every engine on a Mac (MLX, llama.cpp, Ollama): Metal's working-set limit is a fixed property of the device.
  if (o.engine == Engine::mlx || o.gpu_is_apple)
    e.notes.push_back(message("in_use.mac_ram",
                              "The {in_use_bytes} other programs use counts against the Mac's RAM, not against the "
                              "GPU's wired limit: the model fits where it is within the limit and within the RAM "
                              "they leave; beyond that macOS compresses or swaps their memory.",
                              {arg::gib("in_use_bytes", e.in_use, 2)}));
  if (o.engine == Engine::ollama && ollama_runs_llama_server(o))
    e.notes.push_back(message("in_use.ollama_default_context",
                              "Ollama picks its default context from each GPU's total memory, not its free memory: "
                              "memory in use does not lower it."));
}

}  // namespace detail

}  // namespace vramfit
