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
  CHECK_FALSE(rule_for_module("model.rotary_emb", "bf16").has_value());
  CHECK_FALSE(rule_for_module("model.norm", "bf16").has_value());
}

TEST_CASE("vision towers and projectors are the one tensor the core counts for them") {
  CHECK(covers("vision_tower", "vision_tower", -1));
  CHECK(covers("model.embed_vision*", "vision_tower", -1));
  CHECK(covers("multi_modal_projector", "vision_tower", -1));
  CHECK_FALSE(covers("vision_tower", "token_embd.weight", -1));
}

TEST_CASE("latent attention, its indexer and linear attention map to their own tensors") {
  CHECK(covers("model.layers.3.self_attn.q_a_proj", "blk.3.attn_q_a.weight", 3));
  CHECK(covers("model.layers.3.self_attn.kv_a_proj_with_mqa", "blk.3.attn_kv_a_mqa.weight", 3));
  CHECK_FALSE(covers("model.layers.3.self_attn.kv_a_proj_with_mqa", "blk.3.attn_kv_b.weight", 3));
  CHECK(covers("model.layers.0.self_attn.indexer*", "blk.0.indexer_k.weight", 0));
  CHECK(covers("model.layers.0.self_attn.indexers_proj", "blk.0.indexer_proj.weight", 0));
  CHECK_FALSE(covers("model.layers.0.self_attn.indexers_proj", "blk.0.indexer_k.weight", 0));
  // Qwen3.5's Gated DeltaNet: in_proj_qkv and in_proj_z are the core's one ssm_in; in_proj_b / _a its ssm_ba.
  CHECK(covers("model.language_model.layers.0.linear_attn.in_proj_z", "blk.0.ssm_in.weight", 0));
  CHECK(covers("model.language_model.layers.0.linear_attn.in_proj_b", "blk.0.ssm_ba.weight", 0));
  CHECK(covers("model.language_model.layers.0.linear_attn*", "blk.0.ssm_out.weight", 0));
  // Nemotron-H's Mamba2 mixer.
  CHECK(covers("backbone.layers.4.mixer.in_proj", "blk.4.ssm_in.weight", 4));
  CHECK(covers("backbone.layers.5.mixer.q_proj", "blk.5.attn_q.weight", 5));
}

TEST_CASE("one projection of the experts or shared experts covers that projection only") {
  CHECK(covers("model.layers.*.mlp.shared_experts.down_proj", "blk.4.ffn_down_shexp.weight", 4));
  CHECK_FALSE(covers("model.layers.*.mlp.shared_experts.down_proj", "blk.4.ffn_up_shexp.weight", 4));
  CHECK(covers("backbone.layers.1.mixer.experts.0.up_proj", "blk.1.ffn_up_exps.weight", 1));
  CHECK_FALSE(covers("backbone.layers.1.mixer.experts.0.up_proj", "blk.1.ffn_down_exps.weight", 1));
  CHECK(covers("model.layers.2.block_sparse_moe.experts.0.w2", "blk.2.ffn_down_exps.weight", 2));
  CHECK(covers("layers.0.ffn.experts", "blk.0.ffn_gate_exps.weight", 0));
}

TEST_CASE("a bare module name matches in every block; DeepSeek-V4's head and embed are outside them") {
  CHECK(covers("gate", "blk.9.ffn_gate_inp.weight", 9));
  CHECK_FALSE(covers("gate", "blk.9.ffn_gate_exps.weight", 9));
  CHECK(covers("self_attn", "blk.2.attn_k.weight", 2));
  CHECK(covers("head", "output.weight", -1));
  CHECK(covers("embed", "token_embd.weight", -1));
}

TEST_CASE("Gemma 4's dense MLP beside its experts is the core's shared expert") {
  auto rule = rule_for_module("model.language_model.layers.0.mlp*", "bf16", "gemma4");
  REQUIRE(rule.has_value());
  CHECK(rule_covers(*rule, "blk.0.ffn_up_shexp.weight", 0));
  CHECK_FALSE(rule_covers(*rule, "blk.0.ffn_up_exps.weight", 0));
}
