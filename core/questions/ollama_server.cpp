#include "questions/ollama_server.hpp"

#include <algorithm>  // std::max

#include "memory/engines/ollama_server.hpp"

namespace vramfit {

namespace {

// server/routes.go Server.Serve sums TotalMemory − OLLAMA_GPU_OVERHEAD over the GPUs it found (one here: Ollama
// across several GPUs is refused). TotalMemory is what `llama-server --list-devices` prints (discover/llama_server.go),
// which ggml-cuda reads from cudaMemGetInfo: CUDA's total, the catalog's driver_visible_gib. Ollama's NVML reading
// (mem_nvml.cpp) was in its own ggml from 0.12.4 to 0.29, versions that are refused.
std::uint64_t default_num_ctx(const ResolvedRequest& out, std::vector<Message>& notes) {
  if (!out.gpu) {
    notes.push_back(message("ollama.context_no_gpu",
                            "No GPU chosen: Ollama's default context depends on the GPU's memory (4096 tokens below "
                            "23 GiB, 32768 from 23 GiB, 262144 from 47 GiB); 4096 assumed. Choose a GPU for its own "
                            "default."));
    return kOllamaSmallTierCtx;
  }
  const std::uint64_t total = out.gpu->driver_total_bytes(), overhead = out.options.ollama_gpu_overhead;
  const std::uint64_t vram = total > overhead ? total - overhead : 0;
  const std::uint64_t tier = ollama_vram_num_ctx(vram);
  notes.push_back(message("ollama.context_tier",
                          "Ollama picks its default context by the GPU's memory: {tier} tokens for {vram_bytes} (4096 "
                          "below 23 GiB, 32768 from 23 GiB, 262144 from 47 GiB).",
                          {arg::gib("vram_bytes", vram, 2), arg::digits("tier", tier)}));
  return tier;
}

}  // namespace

void resolve_ollama_server(const Request& r, ResolvedRequest& out) {
  InferenceOptions& o = out.options;
  if (!ollama_runs_llama_server(o)) return;
  // LlamaServerFlashAttention: --flash-attn auto unless OLLAMA_FLASH_ATTENTION is set; llama.cpp then turns it on
  // where the GPU supports it (every GPU of the catalog: CUDA from compute 6.0, Metal, ROCm).
  if (!r.attention) o.attention = Attention::sdpa;
  o.gpu_is_cuda = out.gpu && out.gpu->vendor == "NVIDIA";
  if (r.ollama_gpu_overhead)
    out.name_notes.push_back(message("ollama.gpu_overhead_tier",
                                     "From 0.30 OLLAMA_GPU_OVERHEAD only lowers the GPU memory Ollama counts for its "
                                     "default context; llama-server's --fit keeps its own 1 GiB margin."));
  const ModelSpec& m = out.model;
  if (!r.context) o.context_tokens = default_num_ctx(out, out.name_notes);
  if (m.vision_params && o.context_tokens < kOllamaVisionMinCtx) {  // server/sched.go getRunner
    o.context_tokens = kOllamaVisionMinCtx;
    out.name_notes.push_back(message("ollama.vision_min_context",
                                     "Ollama runs a multimodal model with at least 2048 tokens of context."));
  }
  if (m.max_context && o.context_tokens > m.max_context) {  // llm/server.go NewLlamaServer
    out.name_notes.push_back(message("ollama.context_capped",
                                     "Ollama caps num_ctx {asked} at the model's training context, {max} tokens.",
                                     {arg::digits("asked", o.context_tokens), arg::digits("max", m.max_context)}));
    o.context_tokens = m.max_context;
  }
}

void add_ollama_server_notes(Report& report, const ResolvedRequest& rr) {
  if (!ollama_runs_llama_server(rr.options) || !report.llamacpp_fit) return;
  auto& notes = report.estimate.notes;
  // server/sched.go reduceAutoNumCtxForLoadOOM: only a context Ollama chose itself is lowered, once.
  if (!report.llamacpp_fit->fits && report.context_source == "engine_default")
    notes.push_back(message("ollama.load_retry",
                            "If llama-server runs out of memory loading it, Ollama retries once at its next lower "
                            "default context (32768, then 4096 tokens); that retry is not modelled."));
  const OllamaProjector projector = ollama_projector(report.model, rr.options);
  if (projector.place != OllamaProjectorPlace::gpu) return;
  // llama-server's load_model (tools/server/server-context.cpp, PR #21489, in every build Ollama bundles) adds the
  // projector's memory to --fit's target; llm/llama_server.go extraEnvsForStart (from v0.31.2) has already set that
  // target to the projector + 1 GiB.
  // As the margin counts it (llamacpp_projector_in_target).
  const std::uint64_t in_target = llamacpp_projector_in_target(report.llamacpp_fit->projector_bytes, report.estimate.vision);
  if (projector.fit_target_bytes)
    notes.push_back(message("ollama.projector_fit_target",
                            "Ollama has llama-server's --fit keep {target_bytes} free for the vision projector "
                            "(LLAMA_ARG_FIT_TARGET: the projector + 1 GiB, in place of --fit's own 1 GiB), and "
                            "llama-server adds the projector and its image buffer ({projector_bytes}) to that: the "
                            "projector's weights are kept free twice, and the layers get that much less room.",
                            {arg::bytes("target_bytes", projector.fit_target_bytes),
                             arg::bytes("projector_bytes", in_target)}));
  else
    notes.push_back(message("ollama.projector_in_fit",
                            "llama-server's --fit keeps room for the vision projector and its image buffer "
                            "({projector_bytes}) beside its own 1 GiB; the projector then loads into it.",
                            {arg::bytes("projector_bytes", in_target)}));
}

}  // namespace vramfit
