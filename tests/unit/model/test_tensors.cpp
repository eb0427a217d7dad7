// The one list of a model's tensors: names, shapes and the parameter count, LoRA and weight formats built on it.
#include <algorithm>  // std::find_if, std::none_of, std::copy_if
#include <iterator>   // std::back_inserter

#include "../test_support.hpp"
#include "model/hf_config.hpp"
#include "model/tensors.hpp"

using namespace vramfit;

namespace {

std::uint64_t enumerated_elements(const ModelSpec& s) {
  auto tensors = enumerate_tensors(s);
  REQUIRE_MESSAGE(tensors.ok(), tensors.error().message);
  std::uint64_t sum = 0;
  for (const auto& t : tensors.value()) sum += t.elements();
  return sum;
}

const TensorShape& tensor_named(const std::vector<TensorShape>& tensors, const std::string& name) {
  const auto t = std::find_if(tensors.begin(), tensors.end(), [&](const TensorShape& x) { return x.name == name; });
  REQUIRE_MESSAGE(t != tensors.end(), "no tensor " << name);
  return *t;
}

// deepseek-ai/DeepSeek-V2-Lite config.json (shape fields).
ModelSpec deepseek_v2_lite() {
  return model_from_hf_config(R"({"model_type":"deepseek_v2","hidden_size":2048,"num_hidden_layers":27,
    "num_attention_heads":16,"num_key_value_heads":16,"intermediate_size":10944,"moe_intermediate_size":1408,
    "n_routed_experts":64,"n_shared_experts":2,"num_experts_per_tok":6,"first_k_dense_replace":1,
    "kv_lora_rank":512,"q_lora_rank":null,"qk_nope_head_dim":128,"qk_rope_head_dim":64,"v_head_dim":128,
    "vocab_size":102400,"max_position_embeddings":163840,"tie_word_embeddings":false})").value();
}

}  // namespace

TEST_CASE("the enumerated tensors add up to the parameter count of every preset") {
  for (const auto& p : test::catalog().models) {
    CAPTURE(p.id);
    REQUIRE(p.model.get().ok());
    const ModelSpec& spec = p.model.get().value();
    if (spec.is_bare()) continue;
    CHECK(enumerated_elements(spec) == count_params(spec).value().total);
  }
}

TEST_CASE("tensors carry llama.cpp's GGUF names and ggml shapes") {
  auto tensors = enumerate_tensors(test::preset("llama-3.1-8b")).value();
  CHECK(tensors.front().name == "token_embd.weight");
  CHECK(tensors.front().shape == std::vector<std::uint64_t>{4096, 128256});
  const auto& v = tensor_named(tensors, "blk.0.attn_v.weight");
  CHECK(v.shape == std::vector<std::uint64_t>{4096, 1024});  // 8 KV heads × 128
  CHECK(v.role == TensorRole::attention);
  CHECK(v.layer == 0);
  CHECK(tensors.back().name == "output.weight");
}

TEST_CASE("a model's tensors are listed once per run of identical layers, with the range of blocks it repeats in") {
  // DeepSeek-V2-Lite: layer 0 keeps a dense MLP (first_k_dense_replace 1), layers 1–26 route to 64 experts.
  const auto tensors = model_tensors(deepseek_v2_lite());
  const auto find = [&](std::string_view name) {
    const auto t = std::find_if(tensors.begin(), tensors.end(), [&](const ModelTensor& x) { return x.name == name; });
    REQUIRE_MESSAGE(t != tensors.end(), "no tensor " << name);
    return *t;
  };
  std::vector<ModelTensor> q;
  std::copy_if(tensors.begin(), tensors.end(), std::back_inserter(q), [](const ModelTensor& t) { return t.name == "attn_q"; });
  REQUIRE(q.size() == 2);  // the dense layer's run and the MoE layers' run
  CHECK(q[0].site == TensorSite::block);
  CHECK(q[0].first_layer == 0);
  CHECK(q[0].layers == 1);
  CHECK(q[1].first_layer == 1);
  CHECK(q[1].layers == 26);
  CHECK(q[0].projection == Projection::q);
  const auto dense_up = find("ffn_up");
  CHECK(dense_up.first_layer == 0);
  CHECK(dense_up.layers == 1);
  const auto experts_up = find("ffn_up_exps");
  CHECK(experts_up.first_layer == 1);
  CHECK(experts_up.layers == 26);
  CHECK(experts_up.experts == 64);
  CHECK(experts_up.is_matrix());
  CHECK(find("token_embd").site == TensorSite::input);
  CHECK(find("output").site == TensorSite::output);
}

TEST_CASE("shared experts are one FFN of their summed width, as Hugging Face and llama.cpp hold them") {
  // transformers DeepseekV2MoE: shared_experts = DeepseekV2MLP(intermediate_size = moe_intermediate_size ×
  // n_shared_experts) = 1408 × 2 = 2816; llama.cpp LLM_ARCH_DEEPSEEK2: n_ff_shexp = n_ff_exp × n_expert_shared.
  auto tensors = enumerate_tensors(deepseek_v2_lite()).value();
  CHECK(tensor_named(tensors, "blk.1.ffn_up_shexp.weight").shape == std::vector<std::uint64_t>{2048, 2816});
  CHECK(tensor_named(tensors, "blk.1.ffn_down_shexp.weight").shape == std::vector<std::uint64_t>{2816, 2048});
}

TEST_CASE("MLP biases of a MoE are counted as its tensors hold them") {
  SUBCASE("no shared experts: no shared-expert bias either") {
    // embeddings and lm_head 2 × 32,000 × 1,024 = 65,536,000; per layer: q, o 2 × 1,024² + k, v 2 × 1,024 × 256
    // = 2,621,440, norms 2,048, router 1,024 × 4 = 4,096, experts 4 × (3 × 1,024 × 2,048 + 2 × 2,048 + 1,024 bias)
    // = 25,186,304: 27,813,888 × 4 layers = 111,255,552; final norm 1,024. Total 176,792,576.
    const auto s = model_from_hf_config(R"({"model_type":"mixtral","hidden_size":1024,"num_hidden_layers":4,
      "num_attention_heads":8,"num_key_value_heads":2,"intermediate_size":2048,"num_local_experts":4,
      "num_experts_per_tok":2,"vocab_size":32000,"mlp_bias":true})").value();
    CHECK(count_params(s).value().total == 176'792'576ULL);
    CHECK(enumerated_elements(s) == count_params(s).value().total);
    auto tensors = enumerate_tensors(s).value();
    CHECK(std::none_of(tensors.begin(), tensors.end(), [](const TensorShape& t) {
      return t.name.find("shexp") != std::string::npos;
    }));
  }
  SUBCASE("three shared experts: one merged FFN, one output bias") {
    const auto s = model_from_hf_config(R"({"model_type":"deepseek_v2","hidden_size":1024,"num_hidden_layers":4,
      "num_attention_heads":8,"num_key_value_heads":8,"intermediate_size":2048,"moe_intermediate_size":512,
      "n_routed_experts":8,"n_shared_experts":3,"num_experts_per_tok":2,"kv_lora_rank":256,"q_lora_rank":384,
      "qk_nope_head_dim":64,"qk_rope_head_dim":32,"v_head_dim":64,"mlp_bias":true,"vocab_size":32000})").value();
    CHECK(enumerated_elements(s) == count_params(s).value().total);
    auto tensors = enumerate_tensors(s).value();
    CHECK(tensor_named(tensors, "blk.0.ffn_down_shexp.bias").shape == std::vector<std::uint64_t>{1024});
    CHECK(tensor_named(tensors, "blk.0.ffn_up_shexp.bias").shape == std::vector<std::uint64_t>{1536});  // 3 × 512
  }
}
