#pragma once
// Inference memory: weights + KV cache + transient activations + runtime overhead + allocator reserve,
// as a chosen engine (transformers, vLLM, llama.cpp) allocates them.
#include <cstdint>   // std::uint64_t
#include <optional>  // std::optional
#include <string>    // std::string
#include <string_view>  // std::string_view
#include <vector>    // std::vector

#include "formats/dtype.hpp"
#include "memory/device_split.hpp"
#include "memory/engines/engine.hpp"
#include "memory/kv_cache.hpp"
#include "memory/engines/sglang_pool.hpp"
#include "memory/engines/vllm_kv_groups.hpp"
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
  bool gpu_is_a100 = false;                        // vLLM keeps the small batch defaults on A100
  std::uint32_t gpu_compute_capability = 0;        // NVIDIA's major · 10 + minor; 0: none chosen or not NVIDIA
  std::optional<std::uint64_t> max_num_batched_tokens;
  std::optional<std::uint64_t> max_num_seqs;
  std::uint64_t tensor_parallel = 1;               // vLLM --tensor-parallel-size: GPUs each layer is split across
  std::uint64_t pipeline_parallel = 1;             // vLLM --pipeline-parallel-size: stages of consecutive layers
  VllmRule vllm_rule = VllmRule::hybrid_prefix_caching;  // which version's pool rule (engine_version)
  std::string vllm_version;                        // engine_version as asked, without a leading v; empty: the rule's
  bool enforce_eager = false;                      // vLLM --enforce-eager: no CUDA graphs

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
  // llama-server --mmproj with the projector on the GPU (--mmproj-offload, its default): a vision model's tower is
  // counted with the weights; otherwise it is a file apart, not loaded.
  bool mmproj_offload = false;

  // Several GPUs holding whole layers (llama.cpp --split-mode layer, transformers device_map="auto"): each one's
  // share as llama.cpp's --tensor-split takes it (by default its free memory); empty: one GPU.
  std::vector<double> device_split;
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

struct VllmCapacity {
  double gpu_util = kVllmDefaultGpuUtil;
  std::uint64_t driver_total_bytes = 0;     // the GPU's total as the driver reports it
  std::uint64_t budget_bytes = 0;           // floor(gpu_util × driver total): vLLM's "requested memory"
  std::uint64_t max_num_batched_tokens = 0;
  std::uint64_t max_num_seqs = 0;
  std::uint64_t profile_activation_bytes = 0;  // torch peak increase: max(forward_bytes, sampler_bytes)
  std::uint64_t forward_bytes = 0;          // the forward pass over max_num_batched_tokens
  std::uint64_t sampler_bytes = 0;          // the sampler's dummy run on min(max_num_seqs, batched tokens) rows
  std::uint64_t non_torch_bytes = 0;
  std::uint64_t cuda_graph_bytes = 0;       // 0 with --enforce-eager
  bool cuda_graphs_in_budget = false;       // estimated and subtracted from the pool; else captured outside it
  VllmRule rule = VllmRule::hybrid_prefix_caching;  // the version's pool rule
  bool model_runner_v2 = false;             // from 0.25: the model runs on Model Runner V2 (no graph estimate)
  std::string engine_version;               // the version assumed: as asked, else the default's release
  std::uint64_t tensor_parallel = 1;
  std::uint64_t pipeline_parallel = 1;
  std::uint64_t weights_bytes = 0;          // on one GPU: the rank with the least KV room (the last stage)
  std::uint64_t replicated_weights_bytes = 0;  // of the model's weights, those every tensor-parallel rank holds whole
  std::uint64_t mxfp4_padding_bytes = 0;    // all ranks: MXFP4 experts padded to the MoE kernel's alignment
  std::string_view mxfp4_kernel;            // that kernel (Marlin, Triton, FlashInfer); empty: no padding
  std::uint64_t kv_bytes_per_token = 0;     // on one GPU: its KV heads and layers
  std::uint64_t kv_capacity_bytes = 0;      // per GPU: budget − weights − activation peak − non-torch
  std::uint64_t block_bytes = 0;            // what one block id takes from the pool: a page in every shared tensor
  std::uint64_t block_tokens = 0;           // the full-attention block (16, raised to hold a state page)
  std::uint64_t kv_cache_groups = 0;        // a request holds blocks in every group (sliding, full, state, ...)
  std::uint64_t num_blocks = 0;
  std::uint64_t blocks_per_request = 0;     // one request of sequence_tokens, summed over the groups
  std::uint64_t request_bytes = 0;          // the KV cache one request of sequence_tokens needs, as vLLM checks it
  std::uint64_t kv_capacity_tokens = 0;     // "GPU KV cache size" as the version prints it
  std::uint64_t state_bytes_per_sequence = 0;  // linear-attention / Mamba state pages one running sequence holds
  std::uint64_t sequence_tokens = 0;        // max_model_len the concurrency is quoted for
  std::uint64_t max_concurrency = 0;        // whole requests of sequence_tokens that fit: 0 and vLLM refuses to start
  double concurrency_ratio = 0;             // vLLM's "Maximum concurrency ... : X x" = num_blocks / blocks_per_request
};

// SGLang's KV pool on one GPU (ModelRunner.profile_max_num_token and init_memory).
struct SglangCapacity {
  SglangRule rule = SglangRule::with_prefill_graphs;
  double mem_fraction_static = 0;
  bool mem_fraction_default = true;        // SGLang's own default for this GPU and TP
  std::uint64_t reserved_mib = 0;          // from 0.5.3: what the default fraction keeps back
  std::uint64_t chunked_prefill_size = 0;
  std::uint64_t driver_total_bytes = 0;
  std::uint64_t distributed_bytes = 0;     // init_torch_distributed's buffers (TP > 1)
  std::uint64_t free_at_start_bytes = 0;   // F0: "Load weight begin. avail mem"
  std::uint64_t weights_bytes = 0;         // on one GPU: "Load weight end. ... mem usage"
  std::uint64_t kv_capacity_bytes = 0;     // rest = mem_fraction_static × F0 − weights, less the state pool
  std::uint64_t cell_bytes = 0;            // per token on one GPU: KV heads per rank × (K + V dims) × layers × bytes
  SglangStatePool state_pool;              // hybrid models: linear-attention / Mamba state slots, before the KV
  std::uint64_t max_total_num_tokens = 0;  // after --max-total-tokens and the page size
  std::uint64_t context_len = 0;           // --context-length: the request's context, else the model's maximum
  std::uint64_t max_running_requests = 0;
  std::uint64_t max_concurrency = 0;       // whole sequences of context_len in the pool, at most max_running_requests
  double concurrency_ratio = 0;            // max_total_num_tokens / context_len
  std::uint64_t tensor_parallel = 1;
  std::uint64_t pipeline_parallel = 1;
};

// What mx.get_peak_memory() counts during mlx_lm.generate besides the weights and the grown cache: the prefill
// chunk's forward pass and the cache growth's copy (generate.py generate_step, models/cache.py).
struct MlxMemory {
  std::uint64_t chunk_tokens = 0;    // prefill_step_size, or the prompt when shorter
  std::uint64_t cache_tokens = 0;    // tokens each full-attention layer's buffer holds (256-token steps)
  bool fused_attention = true;       // mx.fast.scaled_dot_product_attention's full kernel: no score matrix
  std::uint64_t layer_bytes = 0;     // the chunk's widest layer (attention or MLP)
  std::uint64_t scores_bytes = 0;    // unfused path: heads × chunk × keys in the model dtype
  std::uint64_t growth_bytes = 0;    // one layer's old K and V while mx.concatenate copies them into the grown buffer
  std::uint64_t logits_tokens = 1;   // positions lm_head runs over in the prompt's last call: 1, or its last chunk
  std::uint64_t logits_bytes = 0;    // those positions' logits and the last token's log-probabilities
  std::uint64_t head_input_bytes = 0;  // chunk_logits: lm_head's input over the last chunk, held beside its logits
  std::uint64_t kv_bits = 0;         // --kv-bits 8 or 4; 0: the model dtype
  std::uint64_t max_kv_size = 0;     // 0: none
  MlxRule rule = MlxRule::last_token_logits;
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
  std::uint64_t total = 0;
};

struct LlamaCppBuffers {
  std::uint64_t n_ctx = 0;                  // KV cells: context × sequences
  std::uint64_t n_ubatch = 0;
  bool flash_attn = true;
  std::uint64_t gpu_layers = 0;             // repeating layers on the GPU
  std::uint64_t total_layers = 0;
  bool output_on_gpu = true;
  std::uint64_t compute_buffer_bytes = 0;   // GPU compute buffer (ggml graph reserve)
  std::uint64_t compute_buffer_other_bytes = 0;  // the same with flash attention toggled
  std::uint64_t compute_buffer_layers_bytes = 0;  // a device without the output layer: no logits in its graph
  std::uint64_t output_buffer_bytes = 0;    // host (CUDA_Host): n_vocab × n_outputs × 4
  std::uint64_t mmproj_bytes = 0;           // the vision projector on the GPU (--mmproj), inside the weights
  std::uint64_t host_weights_bytes = 0;     // token embeddings + layers left on the CPU
  std::uint64_t host_kv_bytes = 0;
  std::uint64_t host_state_bytes = 0;       // recurrent state of the layers left on the CPU
  std::uint64_t host_ram_bytes = 0;         // all of the above kept in system RAM
};

// Ollama's estimate for one GPU, as its "offload to cuda" log line prints it.
struct OllamaEstimate {
  std::uint64_t num_ctx = 0;
  std::uint64_t num_parallel = 1;
  bool flash_attention = false;
  KvDType kv_type = KvDType::fp16;   // f16, q8_0 or q4_0, as Ollama sizes it (1 and 0.5 bytes for the last two)
  bool kv_type_ignored = false;      // a quantized cache asked for without flash attention: Ollama keeps f16
  std::string graph_formula;         // which of GraphSize's formulas
  std::uint64_t kv_bytes = 0;        // memory.required.kv
  std::uint64_t window_layers = 0;   // blocks GraphSize sizes apart from num_ctx × num_parallel (Gemma 3, gpt-oss)
  std::uint64_t window_tokens = 0;   // the tokens it gives each of them
  std::uint64_t graph_full_bytes = 0;     // memory.graph.full
  std::uint64_t graph_partial_bytes = 0;  // memory.graph.partial
  std::uint64_t minimum_bytes = 0;   // the GPU's MinimumMemory
  std::uint64_t gpu_overhead_bytes = 0;   // OLLAMA_GPU_OVERHEAD
  std::uint64_t overhead_bytes = 0;  // the minimum and the spare layer Ollama adds to the GPU
  std::uint64_t weights_repeating_bytes = 0;
  std::uint64_t output_bytes = 0;    // the output layer Ollama places last
  bool planned = false;              // a GPU was given: the placement below is for it
  std::uint64_t available_bytes = 0;  // memory.available
  std::uint64_t layers_model = 0;    // layers.model: blocks + output
  std::uint64_t layers_offload = 0;  // layers.offload: "offloaded N/M layers to GPU"
  bool gpu_usable = false;
  std::uint64_t required_full_bytes = 0;     // memory.required.full
  std::uint64_t required_partial_bytes = 0;  // memory.required.partial: the GPU's allocation
  std::uint64_t system_ram_bytes = 0;  // layers left on the CPU + token embeddings
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

  std::uint64_t weights = 0;
  std::uint64_t kv_cache = 0;     // per-token caches: grow with context and batch
  std::uint64_t state_cache = 0;  // per-sequence state of linear-attention and Mamba layers: grows with batch only
  std::uint64_t activations = 0;
  std::uint64_t overhead = 0;
  std::uint64_t allocator_reserve = 0;
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
  std::vector<Explanation> explanations;
  std::vector<Message> notes;
};

Result<InferenceEstimate> estimate_inference(const ModelSpec& spec, const InferenceOptions& options);

// vLLM splits each attention layer's query heads across tensor-parallel ranks, and its KV heads too, or replicates
// them when there are fewer KV heads than ranks (QKVParallelLinear); pipeline stages need a layer each. The error
// names tp or pp.
std::optional<Error> check_parallel(const ModelSpec& spec, const InferenceOptions& options);

}  // namespace vramfit

namespace vramfit::detail {  // steps of estimate_inference, declared for the tests that pin them

// vLLM's KV budget (gpu_worker.determine_available_memory): floor(util × memory) − weights − activation
// peak − non-torch memory (and from 0.21 the CUDA graphs' estimate, `graphs_in_budget`), cut into block ids of
// `groups.row_bytes` (get_kv_cache_config_from_groups). A request of sequence_tokens holds groups.blocks_per_request
// of them (get_max_concurrency_for_kv_cache_config); with fewer vLLM refuses to start (check_enough_kv_cache_memory).
// "GPU KV cache size" is num_blocks // groups × the smallest block up to 0.20 and int(concurrency × max_model_len)
// from 0.21 (PR #41069). Pure arithmetic, pinned against logs.
VllmCapacity vllm_kv_capacity(std::uint64_t gpu_memory_bytes, double gpu_util, std::uint64_t weights_bytes,
                              std::uint64_t activation_bytes, std::uint64_t non_torch_bytes, const VllmKvGroups& groups,
                              std::uint64_t sequence_tokens, VllmRule rule, std::uint64_t graphs_in_budget = 0);
// A model whose layers all attend in full, `kv_bytes_per_token` over all its layers: one group of 16-token blocks.
VllmCapacity vllm_kv_capacity(std::uint64_t gpu_memory_bytes, double gpu_util, std::uint64_t weights_bytes,
                              std::uint64_t activation_bytes, std::uint64_t non_torch_bytes,
                              std::uint64_t kv_bytes_per_token, std::uint64_t sequence_tokens);

// SGLang's pool from what its log prints: F0 ("Load weight begin. avail mem"), the weights' "mem usage", the
// fraction and the cell; rest = F1 − F0 × (1 − fraction) with F1 = F0 − weights,
// tokens = rest // cell as profile_max_num_token computes them, capped by max_total_tokens (0: none). A hybrid
// model (`state_slot_bytes` > 0, one request's state on one rank) first sets aside its state pool from rest
// (sglang_state_pool). Defined in sglang_pool.cpp.
SglangCapacity sglang_kv_capacity(std::uint64_t free_at_start_bytes, double mem_fraction_static,
                                  std::uint64_t weights_bytes, std::uint64_t cell_bytes, std::uint64_t context_len,
                                  std::uint64_t max_total_tokens = 0, std::uint64_t state_slot_bytes = 0);

// llama.cpp's GPU compute buffer for one ubatch (worst-case graph reserve, f32 intermediates):
//   attention, -fa off: n_ubatch · (n_kv · n_head · 4 [KQ] + n_kv · 4 [KQ mask] + 4 · n_embd · 4)
//   attention, -fa on:  n_ubatch · (n_kv · 2 [f16 mask] + 4 · n_embd · 4)
//   output:             n_ubatch · (n_vocab + n_embd) · 4 [logits + final hidden state]
// and the largest of them (ggml-alloc reuses memory between phases).
std::uint64_t llamacpp_compute_buffer(std::uint64_t n_ubatch, std::uint64_t n_kv, std::uint64_t n_head,
                                      std::uint64_t n_embd, std::uint64_t n_vocab, std::uint64_t n_ff,
                                      bool flash_attn);

}  // namespace vramfit::detail
