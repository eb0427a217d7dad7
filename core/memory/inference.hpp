#pragma once
// Inference memory: weights + KV cache + transient activations + runtime overhead + allocator reserve, as a chosen
// engine allocates them. What is the engine's own (its defaults, pools, buffers, notes) is in its file under
// memory/engines/; estimate_inference assembles the engine-neutral lines around it.
#include <cstdint>   // std::uint64_t
#include <optional>  // std::optional
#include <string>    // std::string
#include <string_view>  // std::string_view
#include <vector>    // std::vector

#include "formats/dtype.hpp"
#include "memory/draft.hpp"
#include "memory/device_split.hpp"
#include "memory/engines/engine.hpp"
#include "memory/engines/llamacpp.hpp"
#include "memory/engines/mlx.hpp"
#include "memory/engines/ollama.hpp"
#include "memory/engines/sglang.hpp"
#include "memory/engines/transformers.hpp"
#include "memory/engines/vllm.hpp"
#include "memory/in_use.hpp"
#include "memory/others.hpp"
#include "memory/kv_cache.hpp"
#include "memory/vision.hpp"
#include "model/model_spec.hpp"
#include "util/explanation.hpp"
#include "util/result.hpp"
#include "formats/weight_formats.hpp"
#include "util/message.hpp"  // Message

namespace vramfit {

struct InferenceOptions {
  DType weights = DType::bf16;                // a plain dtype; `weight_format` wins when set
  std::optional<WeightFormat> weight_format;  // any parse_weight_format name (nf4, gptq-4bit-128g, q4_k_m, ...)
  std::optional<WeightBytes> exact_weights;   // read from a model file's header: wins over both
  // Bytes of each weight tensor for the allocator's rounding, from an earlier estimate of the same model and
  // format: curves and solvers evaluate one model hundreds of times, and enumerating its tensors (names and
  // all) dominates a point's cost. Must come from the same spec and weights.
  std::optional<std::vector<std::uint64_t>> weight_tensor_bytes;
  // false: skip the explanation strings (curves want numbers only; building the text dominated a point).
  bool explain = true;
  std::optional<KvDType> kv_dtype;            // default: the engine's (llama.cpp f16; else the compute dtype)
  std::uint64_t context_tokens = 4096;        // tokens per sequence the cache is sized for
  std::uint64_t batch = 1;                    // concurrent sequences

  Engine engine = Engine::transformers;
  Attention attention = Attention::sdpa;           // transformers eager/sdpa; llama.cpp -fa off/on
  KvAllocation kv_allocation = KvAllocation::engine_default;
  std::optional<std::uint64_t> avg_tokens;         // actual average length per sequence (paged cost)
  bool expandable_segments = false;                // PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True

  // vLLM: needs the GPU to turn gpu_memory_utilization into a KV capacity.
  double gpu_util = kVllmDefaultGpuUtil;
  std::uint64_t gpu_memory_bytes = 0;              // the driver's total (cudaMemGetInfo); 0: no GPU, no capacity
  bool gpu_total_nominal = false;                  // the driver's total is unknown: gpu_memory_bytes is nominal
  bool gpu_is_rocm = false;                        // an AMD GPU: the driver's total is the one ROCm reports
  bool gpu_is_a100 = false;                        // vLLM keeps the small batch defaults on A100
  std::uint32_t gpu_compute_capability = 0;        // NVIDIA's major · 10 + minor; 0: none chosen or not NVIDIA
  std::optional<std::uint64_t> max_num_batched_tokens;
  std::optional<std::uint64_t> max_num_seqs;
  std::uint64_t tensor_parallel = 1;               // vLLM --tensor-parallel-size: GPUs each layer is split across
  std::uint64_t pipeline_parallel = 1;             // vLLM --pipeline-parallel-size: stages of consecutive layers
  VllmRule vllm_rule = VllmRule::hybrid_prefix_caching;  // which version's pool rule (engine_version)
  std::string vllm_version;                        // engine_version as asked, without a leading v; empty: the rule's
  std::string sglang_version;                      // likewise under SGLang
  std::string mlx_version;                         // likewise under mlx-lm
  bool enforce_eager = false;                      // vLLM --enforce-eager: no CUDA graphs
  // vLLM --language-model-only (every modality's --limit-mm-per-prompt 0): the vision tower is neither built nor
  // loaded (interfaces.py _mark_tower_model), and the profile run encodes no images.
  bool language_model_only = false;

  // SGLang: the pool needs the GPU as vLLM's does; tensor_parallel and pipeline_parallel above apply too.
  std::optional<double> mem_fraction_static;       // --mem-fraction-static; none: SGLang's default for the GPU
  std::optional<std::uint64_t> max_total_tokens;   // --max-total-tokens: only lowers the pool's token count
  SglangRule sglang_rule = SglangRule::with_prefill_graphs;
  bool gpu_has_nvlink = false;                     // custom all-reduce and NCCL's NVLink buffers under TP

  // MLX: --max-kv-size turns every layer's cache into a RotatingKVCache of this many tokens (keep 4).
  std::optional<std::uint64_t> max_kv_size;
  MlxRule mlx_rule = MlxRule::last_token_logits;   // which version's logits rule (engine_version)

  // Ollama: batch is OLLAMA_NUM_PARALLEL, context num_ctx, attention sdpa OLLAMA_FLASH_ATTENTION=1; with a GPU
  // (gpu_memory_bytes taken as the memory Ollama finds free) it places the layers.
  std::uint64_t ollama_gpu_overhead = 0;           // OLLAMA_GPU_OVERHEAD, bytes kept free per GPU
  // Which version's rule (default num_ctx; llama-server from 0.30); the default is kOllamaVersionModelled's.
  OllamaRule ollama_rule = OllamaRule::llama_server_fit_target;
  bool gpu_is_apple = false;                       // Metal: another minimum, and no partial-offload graph
  bool gpu_is_cuda = false;                        // an NVIDIA GPU: from 0.30 the batch Ollama picks without flash attention

  // llama.cpp (and Ollama's num_gpu)
  std::optional<std::uint64_t> gpu_layers;         // -ngl; none: every layer and the output layer
  std::uint64_t n_ubatch = kLlamaNUbatch;
  std::uint64_t llamacpp_build = kLlamaCppBuildModelled;  // engine_version: which build's --fit margin
  // llama-server --mmproj with the projector on the GPU (--mmproj-offload, its default): a vision model's tower is
  // counted with the weights; otherwise it is a file apart, not loaded.
  bool mmproj_offload = false;

  // A vision model's images: how many one request carries and their size in pixels (0 × 0: the size the engine
  // profiles with or resizes every image to). Their tokens are part of context_tokens.
  std::uint64_t images = 0;
  std::uint64_t image_width = 0;
  std::uint64_t image_height = 0;

  // Several GPUs holding whole layers (llama.cpp --split-mode layer, transformers device_map="auto"): each one's
  // share as llama.cpp's --tensor-split takes it (by default its free memory); empty: one GPU.
  std::vector<double> device_split;

  // Memory other programs already hold on each GPU (memory/in_use.hpp): each engine takes it from the free memory
  // it measures.
  std::uint64_t memory_in_use = 0;
  // Other models loaded on the same GPUs before this one (memory/others.hpp); their bytes are in memory_in_use.
  std::vector<OtherModel> other_models;
  // Speculative decoding: the draft the engine holds beside the model (memory/draft.hpp); none: no draft.
  std::optional<DraftOptions> draft;
};

inline constexpr std::uint64_t kMaxContextTokens = 100'000'000;  // far above any model (10M-token contexts exist)
inline constexpr std::uint64_t kMaxBatch = 1'000'000;

struct MemoryRange {
  std::uint64_t low = 0;
  std::uint64_t high = 0;
  std::vector<std::string> drivers;  // what moves the total between low and high
};

struct KvAllocationCost {  // what reserving for the maximum length costs against paged allocation
  KvAllocation strategy = KvAllocation::static_max;
  std::uint64_t avg_tokens = 0;    // actual average length per sequence
  std::uint64_t static_bytes = 0;  // every sequence reserved at context_tokens
  std::uint64_t paged_bytes = 0;   // every sequence in ceil(avg / 16) blocks of 16 tokens
};

// One GPU of a tensor- or pipeline-parallel deployment: the rank whose KV pool is smallest, which vLLM's pool
// takes for all (num_blocks = min over ranks).
struct PerGpuMemory {
  std::uint64_t gpus = 1;  // tensor_parallel × pipeline_parallel, or the devices of a layer split
  std::uint64_t weights = 0;
  std::uint64_t kv_cache = 0;
  std::uint64_t state_cache = 0;
  std::uint64_t activations = 0;  // not divided: every rank samples the whole vocabulary
  std::uint64_t overhead = 0;
  std::uint64_t allocator_reserve = 0;
  std::uint64_t draft = 0;  // the draft model's share on this GPU
  std::uint64_t total = 0;
};

struct InferenceEstimate {
  ParamCounts params;
  DType weights_dtype = DType::bf16;   // compute dtype of the run
  std::string weights_format;          // weight_format_name(...)
  KvDType kv_dtype = KvDType::bf16;
  std::uint64_t context_tokens = 0;
  std::uint64_t batch = 0;
  Engine engine = Engine::transformers;
  Attention attention = Attention::sdpa;
  bool expandable_segments = false;

  std::uint64_t weights = 0;        // the language model's (the vision encoder's line apart)
  std::uint64_t vision_encoder = 0;  // a vision model's encoder on the GPU: its weights and its compute peak
  std::uint64_t kv_cache = 0;     // per-token caches: grow with context and batch
  std::uint64_t state_cache = 0;  // per-sequence state of linear-attention and Mamba layers: grows with batch only
  std::uint64_t activations = 0;
  std::uint64_t overhead = 0;
  std::uint64_t allocator_reserve = 0;
  std::uint64_t draft = 0;        // speculative decoding's draft: its weights, KV cache and buffers (draft_detail)
  std::vector<std::uint64_t> weight_tensor_bytes;  // per weight tensor, as the allocator saw them (see options)
  std::uint64_t total = 0;
  MemoryRange range;

  std::uint64_t attention_scores = 0;  // eager s² buffers inside `activations`
  std::uint64_t logits = 0;            // logits inside `activations`
  WeightBytes weight_detail;
  KvCacheEstimate kv;
  KvAllocationCost kv_allocation;
  std::optional<VllmCapacity> vllm;
  std::optional<SglangCapacity> sglang;
  std::optional<MlxMemory> mlx;
  PerGpuMemory per_gpu;  // gpus 1: the whole estimate; over several devices the busiest one's
  std::vector<DeviceShare> devices;  // options.device_split: each GPU's layers and bytes
  std::optional<LlamaCppBuffers> llamacpp;
  std::optional<OllamaEstimate> ollama;
  std::uint64_t in_use = 0;                     // memory other programs hold on each GPU, beside `total`
  std::vector<OtherModel> other_models;         // the other models loaded before it: part of `in_use`
  std::optional<VllmStartCheck> vllm_start;     // vLLM sized for a GPU with memory in use: whether it starts
  std::optional<VisionEncoder> vision;  // a model with a vision tower
  std::optional<DraftMemory> draft_detail;
  std::vector<Explanation> explanations;
  std::vector<Message> notes;
};

Result<InferenceEstimate> estimate_inference(const ModelSpec& spec, const InferenceOptions& options);

// vLLM splits each attention layer's query heads across tensor-parallel ranks, and its KV heads too, or replicates
// them when there are fewer KV heads than ranks (QKVParallelLinear); pipeline stages need a layer each. The error
// names tp or pp.
std::optional<Error> check_parallel(const ModelSpec& spec, const InferenceOptions& options);

}  // namespace vramfit
