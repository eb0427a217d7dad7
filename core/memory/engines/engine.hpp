#pragma once
// Engine profiles: what PyTorch/transformers, vLLM and llama.cpp allocate besides weights and KV cache,
// each constant with the source it was read from (docs/methodology.md lists them all).
#include <cstdint>      // std::uint64_t
#include <optional>     // std::optional
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view

#include "memory/engines/engines.hpp"
#include "util/units.hpp"

namespace vramfit {

enum class Attention { sdpa, eager };  // llama.cpp: sdpa = -fa on, eager = -fa off
enum class KvAllocation { engine_default, static_max, paged };

std::string_view attention_name(Attention attention) noexcept;       // "sdpa", "eager"
std::optional<Attention> parse_attention(std::string_view name) noexcept;  // also "flash"
std::string_view kv_allocation_name(KvAllocation allocation) noexcept;     // "static", "paged"
std::optional<KvAllocation> parse_kv_allocation(std::string_view name) noexcept;
inline constexpr std::string_view kAttentionNames = "sdpa, eager";
inline constexpr std::string_view kKvAllocationNames = "static, paged";

// --- CUDA process ------------------------------------------------------------------------------------
// CUDA context + kernel images. With lazy module loading (default since CUDA 12.2) PyTorch's context is
// ≈ 0.5 GiB; HF "model memory anatomy" measured 1343 MiB on a V100 with eager loading (the range's high end).
inline constexpr std::uint64_t kCudaContextBytes = 512 * kMiB;
inline constexpr std::uint64_t kCudaContextHighBytes = 1343 * kMiB;
// cuBLAS workspace: NVIDIA's cublasSetWorkspace docs recommend 32 MiB on Hopper and newer, 4 MiB before
// (PyTorch sizes its per-handle workspace the same way; CUBLAS_WORKSPACE_CONFIG overrides it).
inline constexpr std::uint64_t kCublasWorkspaceBytes = 32 * kMiB;
inline constexpr std::uint64_t kCublasWorkspaceLowBytes = 4 * kMiB;

// --- PyTorch caching allocator (c10/cuda/CUDACachingAllocator.cpp) -------------------------------------
inline constexpr std::uint64_t kTorchMinBlock = 512;              // every request rounded up to 512 B
inline constexpr std::uint64_t kTorchSmallSize = 1 * kMiB;        // ≤ 1 MiB: "small", packed in 2 MiB segments
inline constexpr std::uint64_t kTorchSmallBuffer = 2 * kMiB;
inline constexpr std::uint64_t kTorchMinLargeAlloc = 10 * kMiB;   // 1–10 MiB: share 20 MiB segments
inline constexpr std::uint64_t kTorchLargeBuffer = 20 * kMiB;
inline constexpr std::uint64_t kTorchRoundLarge = 2 * kMiB;       // ≥ 10 MiB: own segment, rounded to 2 MiB

}  // namespace vramfit

namespace vramfit::detail {  // used by estimate_inference, declared for the tests that pin it

// Segment bytes reserved for a set of long-lived allocations of the given sizes: large ones rounded to
// 2 MiB each; mid-sized ones packed into 20 MiB segments; small ones (512 B granules) into 2 MiB segments.
class TorchReserve {
 public:
  void add(std::uint64_t request_bytes, std::uint64_t count = 1) noexcept;
  std::uint64_t reserved() const noexcept;  // what cudaMalloc'ed segments hold
  std::uint64_t requested() const noexcept { return requested_; }

 private:
  std::uint64_t large_ = 0, mid_ = 0, small_ = 0, requested_ = 0;
};

}  // namespace vramfit::detail

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

// --- SGLang ----------------------------------------------------------------------------------------------
// ModelRunner.profile_max_num_token (model_runner_kv_cache_mixin.py): with F0 the free memory before the weights
// (the minimum over ranks) and F1 the free memory after them,
//   rest = F1 − F0 × (1 − mem_fraction_static),  max_total_num_tokens = int(rest · 2^30) // cell,
// so the pool is mem_fraction_static × F0 − weights: "(model weights + KV cache pool) / GPU memory".
// Three rules for the default mem_fraction_static (ServerArgs): up to 0.5.2 a table by tensor parallel size; from
// 0.5.3 (PR #10975, "General heuristics for --mem-fraction-static") the GPU's size less a reserve for
// activations and the decode CUDA graphs; from 0.5.10 (PR #16331, piecewise CUDA graphs for prefill on by default)
// the reserve also holds the prefill graphs (reserve_for_graph_mb, PR #15927).
enum class SglangRule { by_tp, by_gpu_memory, with_prefill_graphs };  // up to 0.5.2; 0.5.3 to 0.5.9; 0.5.10 and later
inline constexpr std::string_view kSglangVersionByTp = "0.5.2";
inline constexpr std::string_view kSglangVersionByGpuMemory = "0.5.3";
inline constexpr std::string_view kSglangVersionPrefillGraphs = "0.5.10";
std::string_view sglang_rule_version(SglangRule rule) noexcept;
// "0.4.6", "v0.5.3rc0"; nullopt for text that is no version.
std::optional<SglangRule> parse_sglang_version(std::string_view version) noexcept;
// What SGLang's ServerArgs sets when --chunked-prefill-size and --cuda-graph-max-bs are not given.
struct SglangDefaults {
  double mem_fraction_static = 0;
  std::uint64_t chunked_prefill_size = 0;
  std::uint64_t cuda_graph_max_bs = 0;
  std::uint64_t prefill_graph_sizes = 0;  // with_prefill_graphs: token counts captured for prefill
  std::uint64_t reserved_mib = 0;         // by_gpu_memory and later: what the fraction keeps back
};
// `gpu_mib` the GPU's capacity in MiB (SGLang reads nvidia-smi's total); `multimodal` scales the old rule by 0.95;
// `mla` a model with a latent KV cache (use_mla_backend), whose prefill graphs SGLang reserves as a flat 1.5 GiB.
SglangDefaults sglang_defaults(SglangRule rule, std::uint64_t gpu_mib, std::uint64_t tp, std::uint64_t pp,
                               bool multimodal, bool mla = false) noexcept;
// init_memory: max_running_requests = min(max(int(tokens / context_len × 512), 2048), 4096).
inline constexpr std::uint64_t kSglangMinRunningRequests = 2048;
inline constexpr std::uint64_t kSglangMaxRunningRequests = 4096;
inline constexpr std::uint64_t kSglangPageSize = 1;  // --page-size default on CUDA (FlashInfer, Triton)
// init_torch_distributed's own allocations before the weights ("Init torch distributed ends. mem usage=…"):
// 0.13 GB over PCIe (QwQ-32B on 4 × L4, custom all-reduce off: github.com/didier-durand/llms-in-clouds docs/sglang.md),
// 1.96 GB with NVLink (TP0 of 8 × H200, custom all-reduce and NCCL buffers: sgl-project/sglang PR #11716's log).
inline constexpr std::uint64_t kSglangDistributedPcieBytes = 133 * kMiB;
inline constexpr std::uint64_t kSglangDistributedNvlinkBytes = 2007 * kMiB;

// --- MLX (mlx-lm, LM Studio's MLX runtime) ---------------------------------------------------------------
// mlx_lm/models/cache.py KVCache.step: the cache grows by concatenating zeros in steps of 256 tokens, so it holds
// the tokens rounded up to 256; RotatingKVCache (sliding-window layers, --max-kv-size) holds up to max_size + S − 1
// while a prompt chunk of S tokens is concatenated. generate.py generate_step prefills in chunks of
// prefill_step_size = 2048; QuantizedKVCache (--kv-bits) stores groups of 64 with a 16-bit scale and bias each.
inline constexpr std::uint64_t kMlxCacheStep = 256;
inline constexpr std::uint64_t kMlxPrefillStep = 2048;
inline constexpr std::uint64_t kMlxKvGroup = 64;
// generate_step evaluates only the cache after each prefill chunk, so those chunks' logits are never computed; the
// prompt's last call goes through _step, whose model call applies lm_head to every position it is given before
// keeping logits[:, -1, :]. From 0.27.0 (PR #406, "only apply lm_head to the last token") the chunks stop one token
// short and that call gets the last token alone; from 0.22.2 to 0.26.4 it got the prompt's last chunk, up to
// prefill_step_size tokens, and computed logits for each of them. Before 0.22.2 (PR #40) the chunks were 512 tokens
// and the causal mask an array: not modelled.
enum class MlxRule { chunk_logits, last_token_logits };  // 0.22.2 to 0.26.4; 0.27.0 and later
inline constexpr std::string_view kMlxVersionModelled = "0.31.3";
inline constexpr std::string_view kMlxVersionChunkLogits = "0.26.4";
std::string_view mlx_rule_version(MlxRule rule) noexcept;
// "0.26.4", "v0.31.3"; nullopt for text that is no version, or one before 0.22.2.
std::optional<MlxRule> parse_mlx_version(std::string_view version) noexcept;

// --- llama.cpp -------------------------------------------------------------------------------------------
inline constexpr std::uint64_t kLlamaDefaultCtx = 4096;  // common.h n_ctx since PR #10136 (Nov 2024)
inline constexpr std::uint64_t kLlamaNBatch = 2048;      // common.h n_batch
inline constexpr std::uint64_t kLlamaNUbatch = 512;      // common.h n_ubatch
inline constexpr std::uint64_t kLlamaSwaPad = 256;       // SWA cache size padded to 256 cells

// --- Ollama ----------------------------------------------------------------------------------------------
// Up to v0.11.10 Ollama's analytic estimator chose the layers to offload (llm/memory.go estimateGPULayers,
// fs/ggml/ggml.go GraphSize as of v0.11.10). From v0.30.0 (PR #16031) it starts llama.cpp's llama-server and leaves
// the layers to its --fit (llm/llama_server.go, memory/engines/ollama_server.hpp); the versions since differ in how they load
// a vision projector. In between (v0.11.11, commit eb10390de, to v0.24) Ollama placed layers from the runner's test
// allocations (llm/server.go buildLayout): not modelled. The default is the latest release read, v0.32.15.
inline constexpr std::string_view kOllamaVersionModelled = "0.32.15";
// up to 0.6.6; 0.6.7 to 0.11.10; then llama-server: 0.30.0 to 0.30.10, 0.30.11 to 0.31.1, 0.31.2 and later
enum class OllamaRule {
  num_ctx_2048,
  num_ctx_4096,
  llama_server,                 // the projector on the GPU only above 10 GiB and never on an integrated GPU
  llama_server_projector_room,  // the projector on the GPU where it and 1 GiB fit
  llama_server_fit_target,      // and --fit keeps that room free (LLAMA_ARG_FIT_TARGET, PR #16996)
};
// "0.5.7", "v0.11.10", "0.33.0"; nullopt for text that is no version or a version whose layout rule is not modelled.
std::optional<OllamaRule> parse_ollama_version(std::string_view version) noexcept;
// The first version of each rule, as the answer names the version it assumed (the default: kOllamaVersionModelled).
std::string_view ollama_rule_version(OllamaRule rule) noexcept;

// One version per memory rule an engine has besides its default, as parse_*_version reads it: a client's picker
// offers these (and the default) rather than keeping its own list of where the rules change.
struct EngineVersionChoice {
  Engine engine;
  std::string_view version;
};
std::span<const EngineVersionChoice> engine_version_choices() noexcept;
// api.DefaultOptions NumCtx: 2048, 4096 from 0.6.7; from 0.30 the lowest tier of server/routes.go (4096).
std::uint64_t ollama_default_num_ctx(OllamaRule rule) noexcept;
// Before 0.10.0 (#11330) the scheduler tried OLLAMA_NUM_PARALLEL 4 (2 from 0.6.7) before 1 when it was unset.
bool ollama_parallel_automatic(std::string_view version) noexcept;
// fs/ggml/ggml.go FlashAttention() (from 0.11.8): gpt-oss turns flash attention on whatever OLLAMA_FLASH_ATTENTION
// says (llm/server.go, "model wants flash attention"); an empty version is the one modelled.
bool ollama_flash_attention_default(std::string_view hf_model_type, std::string_view version) noexcept;
inline constexpr std::uint64_t kOllamaNumBatch = 512;  // api.DefaultOptions NumBatch
// discover/gpu.go: what Ollama keeps free on each GPU besides its estimate (cudaMinimumMemory, rocmMinimumMemory;
// gpu_darwin.go metalMinimumMemory).
inline constexpr std::uint64_t kOllamaMinimumMemoryCuda = 457 * kMiB;
inline constexpr std::uint64_t kOllamaMinimumMemoryMetal = 512 * kMiB;

}  // namespace vramfit
