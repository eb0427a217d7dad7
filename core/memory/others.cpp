#include "memory/others.hpp"

#include "memory/inference.hpp"
#include "util/message.hpp"

namespace vramfit {

std::string other_model_key(const OtherModel& m) {
  return "other_model:" + m.name + "@" + std::to_string(m.context_tokens);
}

double vllm_util_holding(std::uint64_t need, std::uint64_t total) noexcept {
  if (!total) return 0;
  // The least k with floor(k / 100 × total) ≥ need: k = ceil(need × 100 / total), then checked against the floor
  // vLLM takes (gpu_worker: requested_memory = total × util), which can fall a byte short.
  std::uint64_t k = (need * 100 + total - 1) / total;
  while (k <= 100 && static_cast<std::uint64_t>(static_cast<double>(total) * (static_cast<double>(k) / 100.0)) < need)
    ++k;
  return k > 100 ? 0 : static_cast<double>(k) / 100.0;
}

std::uint64_t others_bytes(const std::vector<OtherModel>& others) noexcept {
  std::uint64_t sum = 0;
  for (const OtherModel& m : others) sum += m.bytes;
  return sum;
}

namespace {

Message other_source(Engine engine) {
  switch (engine) {
    case Engine::vllm:
      return message("explain.other_model.source_vllm",
                     "vLLM docs, --gpu-memory-utilization: a per-instance limit (two instances on one GPU at 0.5 "
                     "each); vllm/v1/worker/utils.py request_memory (PR #19312, 0.9.1) checks the next one's share "
                     "against the memory left free");
    case Engine::sglang:
      return message("explain.other_model.source_sglang",
                     "SGLang model_runner_kv_cache_mixin.py _profile_available_bytes: each server sizes its pool from "
                     "the free memory it measures, so a server started earlier is memory in use for the next");
    case Engine::llamacpp:
      return message("explain.other_model.source_llamacpp",
                     "llama.cpp: each llama-server process allocates its own weights, KV cache and compute buffers; "
                     "common/fit.cpp's --fit sees them as memory in use (cudaMemGetInfo)");
    case Engine::ollama:
      return message("explain.other_model.source_ollama",
                     "Ollama 0.33 server/sched.go: updateFreeSpace takes each loaded runner's VRAMByGPU from the "
                     "GPU's free memory before the next model loads");
    case Engine::mlx:
      return message("explain.other_model.source_mlx",
                     "MLX: every process allocates from the Mac's one unified memory, under the same wired limit "
                     "(mlx-lm generate.py wired_limit)");
    case Engine::transformers: break;
  }
  return message("explain.other_model.source_transformers",
                 "PyTorch: each process has its own CUDA context and caching allocator; accelerate's get_max_memory "
                 "takes torch.cuda.mem_get_info's free memory, after the other processes");
}

}  // namespace

OtherModel other_model_footprint(const InferenceEstimate& e, Engine engine, std::string name,
                                 std::uint64_t context_tokens, std::uint64_t total_bytes) {
  OtherModel m;
  m.name = std::move(name);
  m.context_tokens = context_tokens;
  const MessageArg who = arg::text("name", m.name), ctx = arg::digits("context", context_tokens);
  if (engine == Engine::vllm && e.vllm && total_bytes) {
    const VllmCapacity& v = *e.vllm;
    const std::uint64_t graphs_outside = v.cuda_graphs_in_budget ? 0 : v.cuda_graph_bytes;
    m.gpu_util = v.gpu_util;
    // Its own CUDA context sits outside the budget: vLLM takes its baseline after init_device, as the main model's
    // overhead counts it (kCudaContextBytes).
    m.bytes = v.budget_bytes + graphs_outside + kCudaContextBytes;
    m.explanation = {other_model_key(m),
                     message("explain.other_model.formula_vllm",
                             "another vLLM server holds its budget, floor(gpu_memory_utilization × total), set to the "
                             "least share that holds its weights, activation peak, non-torch memory and one sequence "
                             "of its context, plus CUDA graphs captured outside the budget and its own CUDA "
                             "context"),
                     message("explain.other_model.values_vllm",
                             "{name}, {context} tokens: floor({util} × {total}) + {graphs} + 512 MiB CUDA context = "
                             "{amount} B",
                             {who, ctx, arg::fixed("util", v.gpu_util, 2), arg::count("total", total_bytes),
                              arg::count("graphs", graphs_outside), arg::count("amount", m.bytes)}),
                     other_source(engine)};
    return m;
  }
  m.bytes = e.per_gpu.total;
  // SGLang's pool is mem_fraction_static of the free memory it found (weights + state pool + KV pool = fraction × F0,
  // _profile_available_bytes), not one request's cache: the server holds that whole share, beside its activations,
  // graphs and CUDA context.
  if (engine == Engine::sglang && e.sglang) {
    const SglangCapacity& s = *e.sglang;
    const std::uint64_t share = s.weights_bytes + s.state_pool.reserved_bytes + s.kv_capacity_bytes;
    const std::uint64_t request = e.per_gpu.weights + e.per_gpu.kv_cache + e.per_gpu.state_cache;
    if (share > request) m.bytes = e.per_gpu.total - request + share;
  }
  Message formula =
      engine == Engine::ollama
          ? message("explain.other_model.formula_ollama",
                    "another model Ollama keeps loaded: its runner's weights, KV cache and compute buffers on the GPU, "
                    "estimated alone with its own context")
          : engine == Engine::sglang
              ? message("explain.other_model.formula_sglang",
                        "another SGLang server: its weights and KV pool (mem_fraction_static of the memory it found "
                        "free) and its activations, estimated alone on this GPU")
              : message("explain.other_model.formula_process",
                        "another process with its own model: its weights, KV cache, buffers and CUDA context, "
                        "estimated alone with its own context");
  m.explanation = {other_model_key(m), std::move(formula),
                   message("explain.other_model.values", "{name}, {context} tokens: {amount} B",
                           {who, ctx, arg::count("amount", m.bytes)}),
                   other_source(engine)};
  return m;
}

}  // namespace vramfit
