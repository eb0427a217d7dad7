#pragma once
// vLLM's weights as it loads them, where they differ from the checkpoint's bytes: MXFP4 MoE experts padded to the
// alignment of the kernel vLLM picks for the GPU (model_executor/layers/quantization/mxfp4.py,
// Mxfp4MoEMethod.create_weights), and tensors every tensor-parallel rank holds whole.
#include <cstdint>      // std::uint32_t, std::uint64_t
#include <string_view>  // std::string_view

#include "model/model_spec.hpp"
#include "model/tensors.hpp"  // TensorShape

namespace vramfit {

// The MXFP4 MoE kernel and the multiples it pads each expert's intermediate width (per tensor-parallel rank) and
// hidden width to.
struct VllmMxfp4Kernel {
  std::string_view name;             // empty: no padding modelled (not an NVIDIA GPU, or none chosen)
  std::uint64_t intermediate_align = 1;
  std::uint64_t hidden_align = 1;
};

// get_mxfp4_backend on a CUDA GPU of compute capability `cc` (major · 10 + minor; 0: unknown): Triton on Hopper
// (intermediate to 64), FlashInfer on the SM100 family (both to 256), Marlin elsewhere (intermediate to 128, hidden
// to 256: "n % 256 == 0 and k % 128 == 0").
VllmMxfp4Kernel vllm_mxfp4_kernel(std::uint32_t cc) noexcept;

// Bytes the padding adds over all ranks: for every routed expert, its gate_up (2·I × H/2 weights, 2·I × H/32 E8M0
// scales, 2·I bf16 biases) and down projection (H × I/2, H × I/32, H) at the padded widths less at the
// checkpoint's, I being the expert width one of `tensor_parallel` ranks holds.
std::uint64_t vllm_mxfp4_padding_bytes(const ModelSpec& spec, std::uint64_t tensor_parallel, const VllmMxfp4Kernel& k);

// Whether every tensor-parallel rank of vLLM's DeepSeek-V4 (vllm/models/deepseek_v4) holds `tensor` whole: the
// fused wq_a/wkv projection (MergedColumnParallelLinear with disable_tp, "fused ReplicatedLinear"), the indexer's
// wq_b and weights_proj (ReplicatedLinear), every compressor's projections (disable_tp), position bias and norm,
// the attention sinks (each rank pads its heads to 64 or 128), the hyper-connection mixers, the MoE router
// (GateLinear, a ReplicatedLinear) with its bias or hash table, and the norms. The query, output, expert and
// vocabulary tensors are split.
bool vllm_dsv4_replicated(const TensorShape& tensor) noexcept;

// One rank's weights: the split part over tensor × pipeline ranks, the replicated part over the stages only.
std::uint64_t vllm_rank_weights(std::uint64_t total, std::uint64_t replicated, std::uint64_t tensor_parallel,
                                std::uint64_t pipeline_parallel) noexcept;

}  // namespace vramfit
