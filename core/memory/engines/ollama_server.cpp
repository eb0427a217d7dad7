#include "memory/engines/ollama_server.hpp"

#include <algorithm>  // std::min, std::max
#include <vector>     // std::erase_if

namespace vramfit {

std::uint64_t ollama_vram_num_ctx(std::uint64_t total_vram_bytes) noexcept {
  if (total_vram_bytes >= kOllamaLargeTierBytes) return kOllamaLargeTierCtx;
  if (total_vram_bytes >= kOllamaMediumTierBytes) return kOllamaMediumTierCtx;
  return kOllamaSmallTierCtx;
}

// GGUF's head_count_kv per layer as Ollama's KV.HeadCountKVMin reads it: the least over the layers, where a layer
// without attention (Mamba, linear attention) holds 0 and a latent-attention layer 1 (llama.cpp stores MLA with one
// KV head); 0 becomes 1, as PredictServerVRAM does.
std::uint64_t ollama_predicted_vram(const ModelSpec& spec, std::uint64_t file_bytes, std::uint64_t context) noexcept {
  std::uint64_t kv_heads = ~0ULL, heads = 0;
  for (const LayerRun& run : spec.layers) {
    kv_heads = std::min(kv_heads, run.kv_heads());
    heads = std::max(heads, run.attention_heads());
  }
  if (kv_heads == 0 || kv_heads == ~0ULL) kv_heads = 1;
  const std::uint64_t head_dim = heads ? spec.hidden_size / heads : 0;
  return file_bytes + 2 * spec.num_layers() * kv_heads * head_dim * context * 2;
}

namespace {

// server/sched.go: the batch sizes and what each needs beside the prediction (generationBatchSurcharge) and how
// much of the free memory the prediction may take (generationBatchHasHeadroom).
constexpr std::uint64_t kBatchDefault = 512, kBatchConstrained = 256, kBatchMedium = 1024, kBatchLarge = 2048;

bool batch_fits(std::uint64_t batch, std::uint64_t predicted, std::uint64_t available) {  // generationBatchFits
  if (predicted == 0 || available == 0) return true;
  const std::uint64_t threshold = available * 80 / 100;
  if (predicted > threshold) return false;
  if (batch >= kBatchLarge && predicted > available * 60 / 100) return false;
  if (batch >= kBatchMedium && predicted > available * 75 / 100) return false;
  const std::uint64_t surcharge = batch >= kBatchLarge ? 2 * kGiB : batch >= kBatchMedium ? 768 * kMiB : 0;
  return surcharge <= threshold - predicted;
}

}  // namespace

OllamaProjector ollama_projector(const ModelSpec& spec, const InferenceOptions& o) {
  OllamaProjector p;
  // A file read as it is has its own tensors; the tower of a preset or config.json is an mmproj file of F16 tensors.
  if (!spec.vision_params || spec.is_bare() || o.exact_weights) return p;
  p.bytes = 2 * spec.vision_params;
  const std::uint64_t layers = spec.num_layers() + 1;  // modelLayers: BlockCount + 1
  const std::uint64_t required = p.bytes + kOllamaProjectorHeadroom;
  const std::uint64_t memory = o.gpu_memory_bytes;
  if (o.gpu_layers && *o.gpu_layers == 0) p.place = OllamaProjectorPlace::cpu_only;
  else if (o.gpu_layers && *o.gpu_layers < layers) p.place = OllamaProjectorPlace::partial_offload;
  else if (o.ollama_rule == OllamaRule::llama_server && o.gpu_is_apple) p.place = OllamaProjectorPlace::integrated_gpu;
  else if (o.ollama_rule == OllamaRule::llama_server && memory > 0 && memory <= kOllamaProjectorLimitedMemory)
    p.place = OllamaProjectorPlace::limited_memory;
  else if (o.ollama_rule != OllamaRule::llama_server && memory > 0 && memory < required)
    p.place = OllamaProjectorPlace::limited_memory;
  else p.place = OllamaProjectorPlace::gpu;
  if (p.place == OllamaProjectorPlace::gpu && o.ollama_rule == OllamaRule::llama_server_fit_target)
    p.fit_target_bytes = ceil_div(required, kMiB) * kMiB;
  return p;
}

namespace {

// Where Ollama puts a vision model's projector, said beside the estimate.
Message projector_note(const OllamaProjector& p, OllamaRule rule) {
  const MessageArg bytes = arg::bytes("projector_bytes", p.bytes);
  switch (p.place) {
    case OllamaProjectorPlace::none: break;
    case OllamaProjectorPlace::gpu:
      return message("ollama.projector_gpu",
                     "Ollama runs this vision model with its projector (--mmproj, {projector_bytes} in F16) on the "
                     "GPU: counted in the vision encoder's line with clip's compute buffer for its warm-up image, which "
                     "the 1 GiB Ollama leaves free beside the projector holds.",
                     {bytes});
    case OllamaProjectorPlace::cpu_only:
    case OllamaProjectorPlace::partial_offload:
      return message("ollama.projector_cpu_layers",
                     "With num_gpu below every layer Ollama keeps the vision projector ({projector_bytes}) in system "
                     "RAM (--no-mmproj-offload); it is not counted here.",
                     {bytes});
    case OllamaProjectorPlace::limited_memory:
      return rule == OllamaRule::llama_server
                 ? message("ollama.projector_cpu_10gib",
                           "Before 0.30.11 Ollama keeps the vision projector ({projector_bytes}) in system RAM on a "
                           "GPU of 10 GiB or less (--no-mmproj-offload); it is not counted here.",
                           {bytes})
                 : message("ollama.projector_cpu_room",
                           "The GPU has less than the vision projector ({projector_bytes}) plus 1 GiB, so Ollama keeps "
                           "the projector in system RAM (--no-mmproj-offload); it is not counted here.",
                           {bytes});
    case OllamaProjectorPlace::integrated_gpu:
      return message("ollama.projector_cpu_integrated",
                     "Before 0.30.11 Ollama keeps the vision projector ({projector_bytes}) on the CPU on a GPU that "
                     "shares the system's memory, as Apple's do (--no-mmproj-offload); it is not counted here.",
                     {bytes});
  }
  return {};
}

}  // namespace

std::uint64_t ollama_generation_batch(const OllamaBatchInputs& in) noexcept {
  // Flash attention off on CUDA: 512, or 256 above 4096 tokens on a GPU of at most 8 GiB
  // (constrainedCUDAWithoutFlashAttention, which reads the free memory, else the total).
  if (in.flash_attention_off && in.cuda)
    return in.context > 4096 && in.available_bytes > 0 && in.available_bytes <= 8 * kGiB ? kBatchConstrained
                                                                                           : kBatchDefault;
  // generationBatchForContext, then one step down at a time while the batch does not fit.
  std::uint64_t batch = in.context > 32768 ? kBatchLarge : in.context > 4096 ? kBatchMedium : kBatchDefault;
  while (batch > kBatchDefault && !batch_fits(batch, in.predicted_bytes, in.available_bytes))
    batch = batch > kBatchMedium ? kBatchMedium : kBatchDefault;
  return batch;
}

Result<InferenceEstimate> estimate_ollama_server(const ModelSpec& spec, const InferenceOptions& o) {
  const bool quantized_kv = o.kv_dtype && (*o.kv_dtype == KvDType::q8_0 || *o.kv_dtype == KvDType::q4_0);
  // llama.cpp's llama_context refuses a quantized V cache without flash attention ("V cache quantization requires
  // flash_attn"), and Ollama passes OLLAMA_KV_CACHE_TYPE to both caches.
  if (quantized_kv && o.attention == Attention::eager)
    return make_error("kv_dtype", message("ollama.quantized_kv_needs_fa",
                                          "OLLAMA_KV_CACHE_TYPE {kv} needs flash attention: llama-server refuses a "
                                          "quantized cache with OLLAMA_FLASH_ATTENTION=0",
                                          {arg::text("kv", kv_dtype_info(*o.kv_dtype).name)}));
  // Any other type goes through as llama.cpp takes it: Ollama no longer checks it (fs/ggml SupportsKVCacheType, which
  // allowed f16, q8_0 and q4_0, has no caller from v0.30.0).
  const OllamaProjector projector = ollama_projector(spec, o);
  InferenceOptions server = o;
  server.engine = Engine::llamacpp;
  server.n_ubatch = kOllamaNumBatch;
  server.mmproj_offload = projector.place == OllamaProjectorPlace::gpu;
  server.memory_in_use = 0;  // said once, by Ollama's own estimate
  auto e = estimate_inference(spec, server);
  if (!e || spec.is_bare()) return e;
  const std::uint64_t cells = o.context_tokens * o.batch;
  // PredictServerVRAM reads the model file's size: the projector, a file apart, is not in it.
  const std::uint64_t model_file = e.value().weight_detail.total - (e.value().llamacpp ? e.value().llamacpp->mmproj_bytes : 0);
  const std::uint64_t batch = ollama_generation_batch(
      {cells, ollama_predicted_vram(spec, model_file, cells), o.gpu_memory_bytes, o.attention == Attention::eager,
       o.gpu_is_cuda});
  if (batch != server.n_ubatch) {
    server.n_ubatch = batch;
    e = estimate_inference(spec, server);
    if (!e) return e;
  }
  InferenceEstimate& out = e.value();
  out.engine = Engine::ollama;
  // Ollama passes --mmproj: llama.cpp's "not loaded without --mmproj" does not apply.
  std::erase_if(out.notes, [](const Message& m) { return m.id == "llamacpp.mmproj_apart"; });
  if (const Message note = projector_note(projector, o.ollama_rule); !note.empty()) out.notes.push_back(note);
  // llm/llama_server.go passes -ngl only for a num_gpu the user set; llama-server's --fit then leaves the layers.
  if (o.gpu_layers)
    out.notes.push_back(message("ollama.llama_server_ngl",
                                "Ollama from 0.30 runs llama.cpp's llama-server with a context of {cells} tokens and "
                                "batches of {batch} (-c, -ub), and num_gpu as -ngl {layers}: the layers stay as set.",
                                {arg::digits("cells", cells), arg::digits("batch", batch),
                                 arg::digits("layers", *o.gpu_layers)}));
  else
    out.notes.push_back(message("ollama.llama_server",
                                "Ollama from 0.30 runs llama.cpp's llama-server with a context of {cells} tokens and "
                                "batches of {batch} (-c, -ub); llama-server's --fit places the layers and keeps that "
                                "context.",
                                {arg::digits("cells", cells), arg::digits("batch", batch)}));
  return e;
}

}  // namespace vramfit
