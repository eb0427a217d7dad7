#pragma once
// Inference memory: weights + KV cache + transient activations + runtime overhead.
#include <cstdint>   // std::uint64_t
#include <optional>  // std::optional
#include <string>    // std::string
#include <vector>    // std::vector

#include "vramfit/dtype.hpp"
#include "vramfit/kv_cache.hpp"
#include "vramfit/model_spec.hpp"
#include "vramfit/result.hpp"

namespace vramfit {

struct InferenceOptions {
  DType weights = DType::bf16;
  std::optional<DType> kv_dtype;  // default: the compute dtype (fp32 for fp32 weights, else 16-bit)
  std::uint64_t context_tokens = 4096;
  std::uint64_t batch = 1;
};

inline constexpr std::uint64_t kMaxContextTokens = 100'000'000;  // far above any model (10M-token contexts exist)
inline constexpr std::uint64_t kMaxBatch = 1'000'000;

// One line of the breakdown with the arithmetic that produced it, for "show me the formula".
struct Explanation {
  std::string key;      // weights, kv_cache, activations, overhead, total
  std::string formula;  // symbolic, e.g. "params × bits / 8"
  std::string values;   // the same with this scenario's numbers
  std::string source;   // paper, doc or measurement it rests on
};

struct InferenceEstimate {
  ParamCounts params;
  DType weights_dtype = DType::bf16;
  DType kv_dtype = DType::bf16;
  std::uint64_t context_tokens = 0;
  std::uint64_t batch = 0;

  std::uint64_t weights = 0;
  std::uint64_t kv_cache = 0;
  std::uint64_t activations = 0;
  std::uint64_t overhead = 0;
  std::uint64_t total = 0;

  KvCacheEstimate kv;
  std::vector<Explanation> explanations;
  std::vector<std::string> notes;
};

// CUDA context and kernel images resident in every process that touches the GPU. With lazy module
// loading (default since CUDA 12.2) PyTorch's context is ≈ 0.5 GiB; the HF "model memory anatomy"
// page measured 1343 MiB on a V100 with eager loading. We take the modern figure.
inline constexpr std::uint64_t kCudaContextBytes = 512ULL * 1024 * 1024;

Result<InferenceEstimate> estimate_inference(const ModelSpec& spec, const InferenceOptions& options);

}  // namespace vramfit
