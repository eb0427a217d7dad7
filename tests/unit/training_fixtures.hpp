#pragma once
// Shared by the training tests: bare parameter counts, GPT-3 175B as Korthikanti et al. 2022 train it.
#include "test_support.hpp"
#include "memory/training.hpp"

namespace vramfit::test {

inline ModelSpec bare(std::uint64_t params) {
  ModelSpec s;
  s.bare_params = params;
  return s;
}

// Korthikanti et al. 2022 Table 3: 96 heads, hidden 12288, 96 layers (trained at sequence 2048,
// micro-batch 1, tensor parallel 8); vocabulary 51200; LayerNorm and a 4h GeLU MLP. No biases, so every
// parameter of a layer is a matrix (12h²).
inline ModelSpec gpt3_175b() {
  ModelSpec s;
  s.vocab_size = 51200;
  s.hidden_size = 12288;
  LayerRun layer;
  layer.count = 96;
  layer.attention = {.heads = 96, .kv_heads = 96, .head_dim = 128};
  layer.mlp.intermediate = 4 * 12288;
  s.layers = {layer};
  s.gated_mlp = false;
  s.norm = NormKind::layer;
  return s;
}

inline TrainingEstimate train(const ModelSpec& spec, const TrainingOptions& o) {
  auto e = estimate_training(spec, o);
  REQUIRE_MESSAGE(e.ok(), (e.ok() ? "" : e.error().field + ": " + e.error().message.text));
  return e.value();
}

// Model states of one GPU: what the ZeRO paper counts.
inline std::uint64_t states(const RankMemory& r) { return r.weights + r.gradients + r.optimizer; }

}  // namespace vramfit::test
