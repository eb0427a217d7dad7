#pragma once
// vLLM: its rules by version, its profile run, its KV pool cut into blocks of its KV cache groups
// (memory/engines/vllm_kv_groups.hpp), its weights as loaded (memory/engines/vllm_weights.hpp), its CUDA graphs and
// what it would refuse.
#include <cstdint>      // std::uint64_t
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "memory/engines/engine.hpp"
#include "memory/engines/vllm_kv_groups.hpp"
#include "memory/kv_cache.hpp"  // KvDType, KvLayout
#include "memory/vision.hpp"    // VllmEncoderProfile
#include "model/model_spec.hpp"
#include "util/explanation.hpp"
#include "util/message.hpp"
#include "util/result.hpp"

namespace vramfit {

// --- vLLM ------------------------------------------------------------------------------------------------
// vLLM V1's KV pool (gpu_worker.determine_available_memory, from 0.9.2):
//   KV pool = gpu_memory_utilization × driver total − weights − torch peak increase − non-torch increase − graphs,
// where "graphs" is what the version sets aside for the CUDA graphs it captures after the pool:
//   graphs_outside (0.9.2 to 0.20): nothing, the graphs land outside the budget; gpu_memory_utilization 0.9.
//   graphs_inside (0.21 to 0.24, PR #38284): GPUModelRunner.profile_cudagraph_memory's estimate
//     (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1), with gpu_memory_utilization 0.92 so that about the same pool
//     remains.
//   runner_v2 (0.25 and 0.26, PR #44443): dense models run on Model Runner V2 (vllm/v1/worker/gpu/model_runner.py),
//     whose profile_cudagraph_memory returns 0 (vllm#49224): their graphs land outside the 0.92 budget; MoE and
//     hybrid models keep the V1 runner and its estimate.
//   hybrid_prefix_caching (0.27): as runner_v2, and prefix caching is on for hybrid models too (PR #50991), in
//     mamba_cache_mode align: a running sequence holds two state pages per state group.
// 0.28 raised max_num_batched_tokens on GPUs of 160 GiB and more (PR #51726) and 0.29 gave Model Runner V2 its own
// graph estimate (PR #53306); their releases are not in the sources read, so they are not modelled.
enum class VllmRule { graphs_outside, graphs_inside, runner_v2, hybrid_prefix_caching };  // ≤0.20; ≤0.24; ≤0.26; 0.27
inline constexpr std::string_view kVllmVersionModelled = "0.27";  // the default: hybrid_prefix_caching
inline constexpr std::string_view kVllmVersionRunnerV2 = "0.25";
inline constexpr std::string_view kVllmVersionGraphsInside = "0.21";
inline constexpr std::string_view kVllmVersionGraphsOutside = "0.11";
inline constexpr double kVllmDefaultGpuUtil = 0.92;               // CacheConfig.gpu_memory_utilization from 0.21
inline constexpr double kVllmDefaultGpuUtilGraphsOutside = 0.9;   // up to 0.20
// Mixture-of-experts architectures Model Runner V2 runs by default all the same in 0.27
// (DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES in vllm/config/vllm.py, as HF model_type: DeepseekV2ForCausalLM,
// GraniteMoeForCausalLM, KimiK3ForConditionalGeneration, Qwen2MoeForCausalLM; Inkling and LongcatFlashNgram too).
inline constexpr std::string_view kVllmRunnerV2MoeTypes[] = {"deepseek_v2", "granitemoe", "kimi_k3", "qwen2_moe"};
// `version` as people write it ("0.11", "v0.21.1", "0.10.2rc1"); before 0.9.2 the pool counted every byte on the
// GPU (weights, other processes) in one peak, and from 0.28 the rules above are not known: nullopt.
std::optional<VllmRule> parse_vllm_version(std::string_view version) noexcept;
// A version newer than the newest modelled (0.28 and later), as opposed to one too old or not a version.
bool vllm_version_after_modelled(std::string_view version) noexcept;
// The version the answer names for a rule: the default's release, or the release each older rule is pinned to.
std::string_view vllm_rule_version(VllmRule rule) noexcept;
double vllm_default_gpu_util(VllmRule rule) noexcept;
inline constexpr std::uint64_t kVllmBlockSize = 16;      // CacheConfig.block_size default on CUDA
// DeepSeek-V4's compressed KV (vllm/models/deepseek_v4/attention.py, MLAAttentionSpec; block size from
// DeepseekSparseSWABackend.get_preferred_block_size): 256-token blocks holding 256 / compress_ratio entries, each
// layer's page aligned to 576 B in the fp8_ds_mla layout (448 fp8 NoPE + 128 B bf16 RoPE + 8 B scales = 584 B an
// entry) and to 512 B for plain rows; the indexer's keys fp8 with one fp32 scale per 128.
inline constexpr std::uint64_t kVllmCompressedBlockTokens = 256;
inline constexpr std::uint64_t kVllmCompressedPageAlign = 576;
inline constexpr std::uint64_t kVllmPlainPageAlign = 512;
inline constexpr std::uint64_t kVllmDsMlaEntryBytes = 584;
inline constexpr std::uint64_t kVllmIndexerScaleBlock = 128;
// VllmConfig.max_concurrent_batches with async scheduling, on by default, on one pipeline stage.
inline constexpr std::uint64_t kVllmAsyncBatchesInFlight = 2;
// EngineArgs._set_default_args for `vllm serve` (UsageContext.OPENAI_API_SERVER): 2048 batched tokens and 256
// sequences; on GPUs whose total is ≥ 70 GiB and that are not A100: 8192 and 1024.
inline constexpr std::uint64_t kVllmMaxBatchedTokens = 2048;
inline constexpr std::uint64_t kVllmMaxBatchedTokensLarge = 8192;
inline constexpr std::uint64_t kVllmMaxNumSeqs = 256;
inline constexpr std::uint64_t kVllmMaxNumSeqsLarge = 1024;
inline constexpr std::uint64_t kVllmLargeGpuBytes = 70 * kGiB;
// The profile run's torch peak is usually the sampler's dummy run (GPUModelRunner._dummy_sampler_run) on
// R = min(max_num_seqs, max_num_batched_tokens) rows of full-vocabulary logits, not the forward pass. At the
// PyTorch top-k/top-p path's sort (vllm/v1/sample/sampler.py, ops/topk_topp_sampler.py apply_top_k_top_p) each
// logit holds: the model-dtype logits, logits.to(float32) 4 B, sort's values 4 B and int64 indices 8 B, its
// int64 arange input 8 B and CUB radix sort's alternate key and value buffers 4 + 8 B: 36 B + the model dtype.
// vllm#27508 shows the fp32 copy failing alone: 786 MiB = 1024 × 201088 × 4 B for gpt-oss.
inline constexpr std::uint64_t kVllmSamplerBytesPerLogit = 36;
inline constexpr std::uint64_t kVllmSamplerFp32Bytes = 4;
// "Non-torch memory" in vLLM 0.11's profiling log on an H100 (llm-d-benchmark measurements): 0.13–0.14 GiB on one
// GPU, 0.54–0.55 GiB with tensor parallel 2 (NCCL and custom all-reduce buffers).
inline constexpr std::uint64_t kVllmNonTorchBytes = 133 * kMiB;
inline constexpr std::uint64_t kVllmNonTorchTpBytes = 563 * kMiB;
inline constexpr std::uint64_t kVllmNonTorchLowBytes = 40 * kMiB;
// CUDA graph capture after the KV cache is allocated, outside gpu_memory_utilization in V0/V1 logs
// ("Graph capturing finished in 5 secs, took 0.47 GiB"); 0 with --enforce-eager.
inline constexpr std::uint64_t kVllmCudaGraphBytes = 480 * kMiB;

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
  std::optional<VllmEncoderProfile> encoder_profile;  // a vision model: the images its profile run encodes
};

struct InferenceEstimate;
struct InferenceOptions;
namespace detail {
struct Workings;
}

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
// What vLLM's CUDA graphs take: kVllmCudaGraphBytes, none with --enforce-eager.
std::uint64_t vllm_graph_bytes(const InferenceOptions& o);

}  // namespace vramfit::detail

namespace vramfit::detail {  // vLLM's part of estimate_inference (memory/inference_steps.hpp)

std::optional<Error> add_vllm_memory(InferenceEstimate& e, Workings& w, const ModelSpec& spec,
                                     const InferenceOptions& o, const KvLayout& layout);
Explanation vllm_activations_explanation(const ModelSpec& spec, const InferenceOptions& o, const InferenceEstimate& e,
                                         const Workings& w);
void add_vllm_notes(std::vector<Message>& notes, const ModelSpec& spec, const InferenceOptions& o,
                    const InferenceEstimate& e);

}  // namespace vramfit::detail
