#pragma once
// Engine profiles: what PyTorch/transformers, vLLM and llama.cpp allocate besides weights and KV cache,
// each constant with the source it was read from (docs/methodology.md lists them all).
#include <cstdint>      // std::uint64_t
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view

#include "util/units.hpp"

namespace vramfit {

enum class Engine { transformers, vllm, llamacpp };
enum class Attention { sdpa, eager };  // llama.cpp: sdpa = -fa on, eager = -fa off
enum class KvAllocation { engine_default, static_max, paged };

std::string_view engine_name(Engine engine) noexcept;              // "transformers", "vllm", "llamacpp"
std::optional<Engine> parse_engine(std::string_view name) noexcept;  // also "llama.cpp", "hf"
std::string_view attention_name(Attention attention) noexcept;       // "sdpa", "eager"
std::optional<Attention> parse_attention(std::string_view name) noexcept;  // also "flash"
std::string_view kv_allocation_name(KvAllocation allocation) noexcept;     // "static", "paged"
std::optional<KvAllocation> parse_kv_allocation(std::string_view name) noexcept;
inline constexpr std::string_view kEngineNames = "transformers, vllm, llamacpp";
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
inline constexpr double kVllmDefaultGpuUtil = 0.9;       // EngineArgs.gpu_memory_utilization
inline constexpr std::uint64_t kVllmBlockSize = 16;      // CacheConfig.block_size default on CUDA
// DeepSeek-V4's compressed KV (vllm/model_executor/layers/deepseek_v4_attention.py, MLAAttentionSpec): 256-token
// blocks holding 256 / compress_ratio entries, each layer's page aligned to 576 B.
inline constexpr std::uint64_t kVllmCompressedBlockTokens = 256;
inline constexpr std::uint64_t kVllmCompressedPageAlign = 576;
// EngineArgs.get_batch_defaults (vllm/engine/arg_utils.py), offline LLM class: 8192 batched tokens and
// 256 sequences; on GPUs with ≥ 70 GiB that are not A100: 16384 and 1024. (API server: 2048 / 8192.)
inline constexpr std::uint64_t kVllmMaxBatchedTokens = 8192;
inline constexpr std::uint64_t kVllmMaxBatchedTokensLarge = 16384;
inline constexpr std::uint64_t kVllmMaxNumSeqs = 256;
inline constexpr std::uint64_t kVllmMaxNumSeqsLarge = 1024;
inline constexpr std::uint64_t kVllmLargeGpuBytes = 70 * kGiB;
// "non_torch_memory takes X GiB" in vLLM's memory-profiling log (worker.py): 0.04–0.26 GiB in single-GPU
// logs (Qwen3-4B 0.04, Qwen2.5-Coder-7B 0.11, 0.26); 2.10 GiB with 8-way tensor parallel (NCCL buffers).
inline constexpr std::uint64_t kVllmNonTorchBytes = 256 * kMiB;
inline constexpr std::uint64_t kVllmNonTorchLowBytes = 40 * kMiB;
// CUDA graph capture after the KV cache is allocated, outside gpu_memory_utilization in V0/V1 logs
// ("Graph capturing finished in 5 secs, took 0.47 GiB"); 0 with --enforce-eager.
inline constexpr std::uint64_t kVllmCudaGraphBytes = 480 * kMiB;

// --- llama.cpp -------------------------------------------------------------------------------------------
inline constexpr std::uint64_t kLlamaDefaultCtx = 4096;  // common.h n_ctx since PR #10136 (Nov 2024)
inline constexpr std::uint64_t kLlamaNBatch = 2048;      // common.h n_batch
inline constexpr std::uint64_t kLlamaNUbatch = 512;      // common.h n_ubatch
inline constexpr std::uint64_t kLlamaSwaPad = 256;       // SWA cache size padded to 256 cells

}  // namespace vramfit
