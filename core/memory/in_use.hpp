#pragma once
// Memory other programs already hold on each GPU (a desktop and browser, another model server): every engine
// measures the memory free when it starts, so what others hold reaches each one through its own rule, not as a
// plain subtraction from its total.
#include <cstdint>  // std::uint64_t

namespace vramfit {

struct InferenceEstimate;
struct InferenceOptions;
struct ModelSpec;

// vLLM from 0.9.1 (PR #19312) checks at start that the memory free after its CUDA context is at least
// ceil(gpu_memory_utilization × total) and refuses otherwise ("Free memory on device ... on startup is less than
// desired GPU memory utilization", vllm/v1/worker/utils.py request_memory). Its budget stays that share of the
// total, so memory in use elsewhere leaves the KV pool as it is, or stops vLLM from starting.
struct VllmStartCheck {
  std::uint64_t in_use_bytes = 0;     // other programs' memory, as given
  std::uint64_t free_bytes = 0;       // total − CUDA context − in use: torch.cuda.mem_get_info at the check
  std::uint64_t requested_bytes = 0;  // ceil(gpu_memory_utilization × total)
  double gpu_util = 0;                // the fraction asked (or the version's default)
  double util_that_fits = 0;          // floor(free / total) to two places: the most that passes; 0: none does
  bool starts = true;
  // The estimate again at util_that_fits: its budget, and so its KV pool, is that share of the total. vLLM starts
  // there only where the pool holds one sequence (check_enough_kv_cache_memory).
  bool fits_holds_sequence = false;
  std::uint64_t fits_kv_tokens = 0;   // "GPU KV cache size" at util_that_fits
  std::uint64_t sequence_tokens = 0;  // max_model_len: one sequence
};

// The check on a GPU whose driver reports `total_bytes`, with `in_use_bytes` held by others.
VllmStartCheck vllm_start_check(std::uint64_t total_bytes, double gpu_util, std::uint64_t in_use_bytes) noexcept;

// The memory an engine finds free, `free_bytes`, less what others hold (none below 0).
std::uint64_t free_beside(std::uint64_t free_bytes, std::uint64_t in_use_bytes) noexcept;

// The most a model may take on a card of `usable_bytes` while others hold `in_use_bytes`. A discrete card: what is
// left of its memory. A GPU that shares the machine's RAM (`unified`, `ram_bytes` its RAM): the GPU's share (a Mac's
// wired limit, an APU's GTT limit) stays as it is, since other programs' memory counts against the RAM, not that
// limit; the model then fits where it is within the share and within the RAM the others leave.
std::uint64_t usable_beside(std::uint64_t usable_bytes, std::uint64_t in_use_bytes, bool unified,
                            std::uint64_t ram_bytes) noexcept;

namespace detail {
// The estimate's "already in use" line: its bytes, vLLM's start check (with the pool at the share that passes it,
// estimated again for `spec`), its explanation and the engine's note.
void add_in_use(InferenceEstimate& e, const ModelSpec& spec, const InferenceOptions& o);
}  // namespace detail

}  // namespace vramfit
