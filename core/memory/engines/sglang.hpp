#pragma once
// SGLang: its default mem_fraction_static by version, its chunked prefill, and the KV pool that fraction leaves after
// the weights (with a hybrid model's state pool, memory/engines/sglang_pool.hpp).
#include <cstdint>      // std::uint64_t
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "memory/engines/engine.hpp"
#include "memory/engines/sglang_pool.hpp"
#include "memory/kv_cache.hpp"  // KvDType, KvLayout
#include "model/model_spec.hpp"
#include "util/explanation.hpp"
#include "util/message.hpp"
#include "util/result.hpp"

namespace vramfit {

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
// From 0.5.3, with the default fraction, a multimodal model's is multiplied by 0.95 × clamp(1 − 0.1 × (ratio − 1),
// 0.8, 1.05), ratio = layers × hidden² of its vision_config over ViT-L/14's 24 × 1024² (ServerArgs
// adjust_mem_fraction_for_vlm; getattr(vision_config, "num_hidden_layers", 24) and "hidden_size", 1024: Qwen's
// vision config names its layers depth, so 24 stands for them).
double sglang_vlm_fraction_factor(const ModelSpec::VisionTower& tower) noexcept;
// init_memory: max_running_requests = min(max(int(tokens / context_len × 512), 2048), 4096).
inline constexpr std::uint64_t kSglangMinRunningRequests = 2048;
inline constexpr std::uint64_t kSglangMaxRunningRequests = 4096;
inline constexpr std::uint64_t kSglangPageSize = 1;  // --page-size default on CUDA (FlashInfer, Triton)
// init_torch_distributed's own allocations before the weights ("Init torch distributed ends. mem usage=…"):
// 0.13 GB over PCIe (QwQ-32B on 4 × L4, custom all-reduce off: github.com/didier-durand/llms-in-clouds docs/sglang.md),
// 1.96 GB with NVLink (TP0 of 8 × H200, custom all-reduce and NCCL buffers: sgl-project/sglang PR #11716's log).
inline constexpr std::uint64_t kSglangDistributedPcieBytes = 133 * kMiB;
inline constexpr std::uint64_t kSglangDistributedNvlinkBytes = 2007 * kMiB;

// SGLang's KV pool on one GPU (ModelRunner.profile_max_num_token and init_memory).
struct SglangCapacity {
  SglangRule rule = SglangRule::with_prefill_graphs;
  std::string engine_version;              // the version assumed: as asked, else the rule's representative release
  double mem_fraction_static = 0;
  bool mem_fraction_default = true;        // SGLang's own default for this GPU and TP
  double vlm_factor = 1;                   // the default's multimodal factor (adjust_mem_fraction_for_vlm)
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

struct InferenceEstimate;
struct InferenceOptions;
namespace detail {
struct Workings;
}

}  // namespace vramfit

namespace vramfit::detail {  // steps of estimate_inference, declared for the tests that pin them

// SGLang's pool from what its log prints: F0 ("Load weight begin. avail mem"), the weights' "mem usage", the
// fraction and the cell; rest = F1 − F0 × (1 − fraction) with F1 = F0 − weights,
// tokens = rest // cell as profile_max_num_token computes them, capped by max_total_tokens (0: none). A hybrid
// model (`state_slot_bytes` > 0, one request's state on one rank) first sets aside its state pool from rest
// (sglang_state_pool). Defined in sglang_pool.cpp.
SglangCapacity sglang_kv_capacity(std::uint64_t free_at_start_bytes, double mem_fraction_static,
                                  std::uint64_t weights_bytes, std::uint64_t cell_bytes, std::uint64_t context_len,
                                  std::uint64_t max_total_tokens = 0, std::uint64_t state_slot_bytes = 0);

}  // namespace vramfit::detail

namespace vramfit::detail {  // SGLang's part of estimate_inference (memory/inference_steps.hpp)

std::optional<Error> add_sglang_memory(InferenceEstimate& e, Workings& w, const ModelSpec& spec,
                                       const InferenceOptions& o, const KvLayout& layout);
Explanation sglang_activations_explanation(const ModelSpec& spec, const InferenceOptions& o, const InferenceEstimate& e,
                                           const Workings& w);
void add_sglang_notes(std::vector<Message>& notes, const ModelSpec& spec, const InferenceOptions& o,
                      const InferenceEstimate& e);

}  // namespace vramfit::detail
