#pragma once
// A checkpoint's quantization recipe: which tensors it stores in which format. Checkpoints name modules the
// Hugging Face way ("model.layers.*.self_attn", "lm_head"); the core's tensors carry llama.cpp's names
// ("blk.3.attn_q.weight"), so each module becomes a selector over those names once, when the config is read.
#include <cstdint>      // std::int64_t
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

namespace vramfit {

// The tensors of one module, in llama.cpp's names, stored in `format` (parse_weight_format's spelling).
struct TensorFormatRule {
  std::string module;          // as the checkpoint names it, for the explanation
  std::int64_t layer = -1;     // one block, or -1 for every block and the tensors outside them
  std::string tensors;         // a name part: "attn_", "ffn_gate_inp"; one starting with '_' may sit anywhere
                               // ("_exps"); empty: the whole block
  std::string format;
};

// Whether `rule` covers the tensor `name` ("blk.3.attn_q.weight", "token_embd.weight") in block `layer` (-1 outside).
bool rule_covers(const TensorFormatRule& rule, std::string_view name, std::int64_t layer) noexcept;

// The selector for a Hugging Face module name or glob ("model.layers.*.self_attn", "model.layers.3.mlp.gate",
// "lm_head", "*.mlp.shared_expert.*", a bare "gate" in every block); nothing for a module the core has no tensor
// for. `architecture` (model_type) settles names whose tensors differ by model.
std::optional<TensorFormatRule> rule_for_module(std::string_view module, std::string format,
                                                std::string_view architecture = {});

}  // namespace vramfit
