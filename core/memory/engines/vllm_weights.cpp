#include "memory/engines/vllm_weights.hpp"

#include <algorithm>    // std::min
#include <string_view>  // std::string_view

#include "util/units.hpp"  // ceil_div

namespace vramfit {
namespace {

std::uint64_t round_up(std::uint64_t x, std::uint64_t multiple) { return ceil_div(x, multiple) * multiple; }

// One expert's MXFP4 tensors at intermediate width i and hidden width h (32 weights share one 1-byte scale).
std::uint64_t expert_bytes(std::uint64_t i, std::uint64_t h) {
  const std::uint64_t gate_up = 2 * i * h / 2 + 2 * i * h / 32 + 2 * i * 2;
  const std::uint64_t down = h * i / 2 + h * i / 32 + h * 2;
  return gate_up + down;
}

}  // namespace

VllmMxfp4Kernel vllm_mxfp4_kernel(std::uint32_t cc) noexcept {
  if (cc == 0) return {};
  if (cc == 90) return {"Triton", 64, 1};
  if (cc >= 100 && cc < 110) return {"FlashInfer", 256, 256};
  return {"Marlin", 128, 256};
}

std::uint64_t vllm_mxfp4_padding_bytes(const ModelSpec& spec, std::uint64_t tensor_parallel, const VllmMxfp4Kernel& k) {
  std::uint64_t bytes = 0;
  for (const LayerRun& run : spec.layers) {
    const MlpBlock& m = run.mlp;
    if (m.kind != MlpKind::moe || !m.routed_experts) continue;
    const std::uint64_t i = ceil_div(m.expert_intermediate, tensor_parallel);
    const std::uint64_t h = m.latent ? m.latent : spec.hidden_size;
    const std::uint64_t grown = expert_bytes(round_up(i, k.intermediate_align), round_up(h, k.hidden_align));
    bytes += run.count * m.routed_experts * (grown - expert_bytes(i, h));
  }
  return bytes * tensor_parallel;
}

bool vllm_dsv4_replicated(const TensorShape& tensor) noexcept {
  if (tensor.role == TensorRole::norm) return true;
  std::string_view name = tensor.name;
  if (name.rfind("blk.", 0) == 0) name.remove_prefix(name.find('.', 4) + 1);
  name = name.substr(0, name.find('.'));
  for (const std::string_view whole : {"attn_q_a", "attn_kv", "attn_sinks", "indexer_q_b", "indexer_proj",
                                       "ffn_gate_inp", "exp_probs_b", "ffn_gate_tid2eid"})
    if (name == whole) return true;
  for (const std::string_view prefix : {"attn_compressor_", "indexer_compressor_", "hc_"})
    if (name.rfind(prefix, 0) == 0) return true;
  return false;
}

std::uint64_t vllm_rank_weights(std::uint64_t total, std::uint64_t replicated, std::uint64_t tensor_parallel,
                                std::uint64_t pipeline_parallel) noexcept {
  const std::uint64_t kept = std::min(replicated, total);
  return ceil_div(total - kept, tensor_parallel * pipeline_parallel) + ceil_div(kept, pipeline_parallel);
}

}  // namespace vramfit
