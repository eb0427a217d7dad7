#pragma once
// SGLang's hybrid state pool: for models with linear-attention or Mamba layers (Qwen3-Next, Qwen3.5/3.6, Kimi
// Linear, Nemotron-H) SGLang sets aside request slots of conv and SSM state (MambaPool inside HybridReqToTokenPool)
// from the memory left after the weights, and sizes the KV pool of the full-attention layers from the rest
// (ModelRunnerKVCacheMixin.handle_max_mamba_cache, python/sglang/srt/model_executor/model_runner_kv_cache_mixin.py
// at sgl-project/sglang 226149ac).
#include <cstdint>  // std::uint64_t

namespace vramfit {

// ServerArgs.mamba_full_memory_ratio: the state pool's bytes over the KV pool's bytes.
inline constexpr double kSglangMambaFullMemoryRatio = 0.9;
// MAMBA_CACHE_SIZE_MAX_RUNNING_REQUESTS_RATIO: slots a running request may hold with the radix cache on (its own
// state and two cached prefixes'); max_running_requests is at most max_mamba_cache_size / 3.
inline constexpr std::uint64_t kSglangMambaSlotsPerRequest = 3;
// configs/mamba_utils.py: the conv state in bfloat16 (CONV_DTYPE), the SSM state in --mamba-ssm-dtype, float32
// unless set.
inline constexpr std::uint64_t kSglangConvStateElementBytes = 2;
inline constexpr std::uint64_t kSglangSsmStateElementBytes = 4;

struct SglangStatePool {
  std::uint64_t slot_bytes = 0;            // mamba_cache_per_req on one rank: conv + SSM state of every state layer
  std::uint64_t max_mamba_cache_size = 0;  // request slots
  std::uint64_t reserved_bytes = 0;        // max_mamba_cache_size × slot_bytes, taken from the KV budget
  std::uint64_t allocated_bytes = 0;       // MambaPool's tensors: one padding slot more than max_mamba_cache_size
  std::uint64_t max_running_requests = 0;  // max_mamba_cache_size / kSglangMambaSlotsPerRequest
};

// The state pool carved from `rest_bytes` (mem_fraction_static × free memory − weights): the state gets
// rest × r / (1 + r), in whole slots of `slot_bytes`. Zero slots when slot_bytes or rest is zero.
SglangStatePool sglang_state_pool(std::uint64_t rest_bytes, std::uint64_t slot_bytes,
                                  double mamba_full_memory_ratio = kSglangMambaFullMemoryRatio) noexcept;

}  // namespace vramfit
