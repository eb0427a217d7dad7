#pragma once
// transformers (PyTorch eager or SDPA): one prefill pass's largest layer and the last token's logits, and PyTorch's
// CUDA caching allocator, whose segment rounding every engine on PyTorch pays (transformers, vLLM, SGLang).
#include <cstdint>      // std::uint64_t
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "memory/engines/engine.hpp"
#include "memory/kv_cache.hpp"  // KvDType, KvLayout
#include "model/model_spec.hpp"
#include "util/explanation.hpp"
#include "util/message.hpp"
#include "util/result.hpp"

namespace vramfit {

// --- PyTorch caching allocator (c10/cuda/CUDACachingAllocator.cpp) -------------------------------------
inline constexpr std::uint64_t kTorchMinBlock = 512;              // every request rounded up to 512 B
inline constexpr std::uint64_t kTorchSmallSize = 1 * kMiB;        // ≤ 1 MiB: "small", packed in 2 MiB segments
inline constexpr std::uint64_t kTorchSmallBuffer = 2 * kMiB;
inline constexpr std::uint64_t kTorchMinLargeAlloc = 10 * kMiB;   // 1–10 MiB: share 20 MiB segments
inline constexpr std::uint64_t kTorchLargeBuffer = 20 * kMiB;
inline constexpr std::uint64_t kTorchRoundLarge = 2 * kMiB;       // ≥ 10 MiB: own segment, rounded to 2 MiB


struct InferenceEstimate;
struct InferenceOptions;
namespace detail {
struct Workings;
}

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

// The allocator's rounding of the weights (and transformers' static KV cache) for an engine on PyTorch; none for
// ggml's or MLX's buffers or a bare parameter count.
void add_torch_allocator_reserve(InferenceEstimate& e, Workings& w, const ModelSpec& spec, const InferenceOptions& o);
// transformers without expandable segments: freed activation blocks and a growing cache that can stay reserved.
std::optional<std::uint64_t> torch_fragmentation_bytes(const ModelSpec& spec, const InferenceOptions& o,
                                                       const InferenceEstimate& e);

}  // namespace vramfit::detail

namespace vramfit::detail {  // transformers's part of estimate_inference (memory/inference_steps.hpp)

std::optional<Error> add_transformers_memory(InferenceEstimate& e, Workings& w, const ModelSpec& spec,
                                             const InferenceOptions& o, const KvLayout& layout);
Explanation transformers_activations_explanation(const ModelSpec& spec, const InferenceOptions& o,
                                                 const InferenceEstimate& e, const Workings& w);
void add_transformers_notes(std::vector<Message>& notes, const ModelSpec& spec, const InferenceOptions& o,
                            const InferenceEstimate& e);

}  // namespace vramfit::detail
