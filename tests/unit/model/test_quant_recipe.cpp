// Hugging Face module names in quantization configs, matched to the core's llama.cpp tensor names.
#include "../test_support.hpp"
#include "model/quant_recipe.hpp"

using namespace vramfit;

namespace {

bool covers(const char* module, const char* tensor, std::int64_t layer) {
  auto rule = rule_for_module(module, "bf16");
  REQUIRE_MESSAGE(rule.has_value(), module);
  return rule_covers(*rule, tensor, layer);
}

}  // namespace

TEST_CASE("a module glob covers the same tensors in every block") {
  CHECK(covers("model.layers.*.self_attn", "blk.7.attn_q.weight", 7));
  CHECK(covers("model.layers.*.self_attn", "blk.0.attn_sinks.weight", 0));
  CHECK_FALSE(covers("model.layers.*.self_attn", "blk.7.ffn_up_exps.weight", 7));
  CHECK(covers("model.layers.*.mlp.router", "blk.3.ffn_gate_inp.weight", 3));
  CHECK_FALSE(covers("model.layers.*.mlp.router", "blk.3.ffn_gate_exps.weight", 3));
}

TEST_CASE("the embeddings and lm_head are the tensors outside the blocks") {
  CHECK(covers("model.embed_tokens", "token_embd.weight", -1));
  CHECK(covers("lm_head", "output.weight", -1));
  CHECK_FALSE(covers("lm_head", "blk.1.attn_output.weight", 1));
  CHECK_FALSE(covers("lm_head", "output_norm.weight", -1));
}

TEST_CASE("a numbered module covers its own block only") {
  CHECK(covers("model.layers.3.self_attn.q_proj", "blk.3.attn_q.weight", 3));
  CHECK_FALSE(covers("model.layers.3.self_attn.q_proj", "blk.3.attn_q_a.weight", 3));
  CHECK_FALSE(covers("model.layers.3.self_attn.q_proj", "blk.13.attn_q.weight", 13));
  CHECK(covers("model.layers.0*", "blk.0.ffn_down_exps.weight", 0));
  CHECK(covers("model.layers.10.mlp.shared_experts*", "blk.10.ffn_up_shexp.weight", 10));
  CHECK(covers("model.layers.1.mlp.gate", "blk.1.ffn_gate_inp.weight", 1));
  CHECK_FALSE(covers("model.layers.1.mlp.gate_proj", "blk.1.ffn_gate_inp.weight", 1));
}

TEST_CASE("a module the core has no tensor for gives no rule") {
  CHECK_FALSE(rule_for_module("vision_tower", "bf16").has_value());
  CHECK_FALSE(rule_for_module("model.embed_vision", "bf16").has_value());
}
