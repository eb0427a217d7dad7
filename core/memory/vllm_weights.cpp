#include "memory/vllm_weights.hpp"

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

}  // namespace vramfit
