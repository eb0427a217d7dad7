// Importing Hugging Face config.json files.
#include "test_support.hpp"
#include "vramfit/hf_config.hpp"

using namespace vramfit;

TEST_CASE("a Llama config implies head_dim from hidden_size / heads and defaults kv heads to heads") {
  auto spec = model_from_hf_config(R"({"model_type":"llama","hidden_size":4096,"num_hidden_layers":32,
    "num_attention_heads":32,"intermediate_size":11008,"vocab_size":32000})");
  REQUIRE(spec.ok());
  CHECK(spec.value().head_dim == 128);
  CHECK(spec.value().num_kv_heads == 32);
  CHECK_FALSE(spec.value().tied_embeddings);  // LlamaConfig's default
  // Llama-2-7B: 6,738,415,616 (keras-hub llama2_7b_en).
  CHECK(count_params(spec.value()).value().total == 6'738'415'616ULL);
}

TEST_CASE("an explicit head_dim wins over hidden_size / heads") {
  // Gemma-2-9B: 16 heads × 256 = 4096 ≠ hidden 3584.
  CHECK(test::preset("gemma-2-9b").head_dim == 256);
}

TEST_CASE("Gemma 2 alternates sliding-window and global layers") {
  const auto& s = test::preset("gemma-2-9b");
  REQUIRE(s.windowed_layers.size() == 42);
  CHECK(s.layer_is_windowed(0));
  CHECK_FALSE(s.layer_is_windowed(1));
}

TEST_CASE("state-space models are refused with a message saying why") {
  auto spec = model_from_hf_config(R"({"model_type":"mamba","hidden_size":768,"num_hidden_layers":24})");
  REQUIRE_FALSE(spec.ok());
  CHECK(spec.error().field == "config.model_type");
  CHECK(spec.error().message.find("state-space") != std::string::npos);
}

TEST_CASE("bad config input names the field") {
  SUBCASE("not JSON") {
    auto spec = model_from_hf_config("{nope");
    REQUIRE_FALSE(spec.ok());
    CHECK(spec.error().field == "config");
  }
  SUBCASE("wrong type") {
    auto spec = model_from_hf_config(R"({"model_type":"llama","hidden_size":"big"})");
    REQUIRE_FALSE(spec.ok());
    CHECK(spec.error().field == "config.hidden_size");
    CHECK(spec.error().message == "expected a non-negative integer, got a string");
  }
  SUBCASE("missing sizes") {
    auto spec = model_from_hf_config(R"({"model_type":"llama"})");
    REQUIRE_FALSE(spec.ok());
    CHECK(spec.error().field == "config.hidden_size");
  }
  SUBCASE("absurd sizes do not overflow") {
    auto spec = model_from_hf_config(R"({"model_type":"llama","hidden_size":18446744073709551615,
      "num_hidden_layers":1,"num_attention_heads":1,"intermediate_size":1,"vocab_size":1})");
    REQUIRE_FALSE(spec.ok());
    CHECK(spec.error().field == "config.hidden_size");
  }
}

TEST_CASE("an unknown Llama-shaped model type is imported with a note") {
  auto spec = model_from_hf_config(R"({"model_type":"my_llama","hidden_size":512,"num_hidden_layers":2,
    "num_attention_heads":8,"num_key_value_heads":2,"intermediate_size":1024,"vocab_size":1000})");
  REQUIRE(spec.ok());
  REQUIRE_FALSE(spec.value().notes.empty());
  CHECK(spec.value().notes.front().find("my_llama") != std::string::npos);
}
