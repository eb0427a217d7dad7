#pragma once
// Every weight tensor of a model, listed once: its llama.cpp name, role, ggml shape and the blocks it repeats in.
// The parameter count, the weight formats and LoRA's adapted matrices all read this one list.
#include <array>        // std::array
#include <cstddef>      // std::size_t
#include <cstdint>      // std::uint64_t, std::int64_t
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "model/model_spec.hpp"
#include "util/result.hpp"

namespace vramfit {

enum class TensorRole { embedding, output, attention, mlp, norm, other };

// The linear layer a matrix is, as LoRA targets name them; none for tables, norms and biases. MLA's
// projections count as q (q_a, q_b or q), k (kv_a_mqa), v (kv_b) and o.
enum class Projection { none, q, k, v, o, gate, up, down, router };

// input: before the blocks (a pipeline's first stage holds it); block: in each block of a range; output: after
// the blocks (the last stage).
enum class TensorSite { input, block, output };

// One tensor outside the blocks, or the same tensor in each block of a range.
struct ModelTensor {
  std::string_view name;    // llama.cpp's (src/llama-arch.cpp) without "blk.N.": "token_embd", "attn_q", "ffn_up_exps"
  std::string_view suffix;  // ".weight", ".bias"; empty for the vision-tower stand-in
  TensorRole role = TensorRole::other;
  Projection projection = Projection::none;
  TensorSite site = TensorSite::input;
  std::array<std::uint64_t, 3> shape{};  // ggml order: [0] row length (input features), [1] rows, [2] experts
  std::size_t dims = 1;                  // how many of `shape` are used
  std::uint64_t first_layer = 0;         // block: the blocks [first_layer, first_layer + layers)
  std::uint64_t layers = 1;
  std::uint64_t experts = 1;             // routed experts stacked along the last dimension
  std::uint64_t active_experts = 1;      // of those, the ones each token runs through (top-k)

  std::uint64_t copies() const noexcept { return site == TensorSite::block ? layers : 1; }
  // A weight matrix (2-D, or one per stacked expert): what LoRA adapts and Adafactor factors.
  bool is_matrix() const noexcept { return suffix == ".weight" && dims >= 2; }
  // Elements of one copy; nothing on 64-bit overflow.
  std::optional<std::uint64_t> elements() const noexcept;
};

// The spec's tensors in llama.cpp's file order (input side, block tensors, output side, the vision tower last),
// tensors with a zero-sized dimension left out. The spec must pass validate() and not be bare.
std::vector<ModelTensor> model_tensors(const ModelSpec& spec);

// One weight tensor as a GGUF file holds it: each block tensor once per layer, named "blk.N.<name>".
struct TensorShape {
  std::string name;                  // "token_embd.weight", "blk.0.attn_q.weight", "blk.0.ffn_gate_exps.weight"
  std::vector<std::uint64_t> shape;  // ggml order, as ModelTensor::shape
  TensorRole role = TensorRole::other;
  std::int64_t layer = -1;           // block index, -1 outside the blocks
  std::uint64_t elements() const noexcept;
};

// Every weight tensor of a (non-bare) spec, one per layer; their elements add up to count_params(spec).total.
Result<std::vector<TensorShape>> enumerate_tensors(const ModelSpec& spec);

// The checkpoint's multi-token-prediction layers (spec.mtp), in the blocks after the decoder's ("blk.61." for
// DeepSeek-V3): each the last decoder layer's tensors, llama.cpp's nextn.eh_proj [2 · hidden → hidden], its norms
// and, where the file keeps its own, nextn.embed_tokens and nextn.shared_head_head. Empty when spec.mtp has none.
// `decoder` is enumerate_tensors(spec).
std::vector<TensorShape> mtp_tensors(const ModelSpec& spec, const std::vector<TensorShape>& decoder);

}  // namespace vramfit
