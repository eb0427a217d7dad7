// Importing Hugging Face config.json files.
#include "../test_support.hpp"
#include "model/hf_config.hpp"

using namespace vramfit;

TEST_CASE("a Llama config implies head_dim from hidden_size / heads and defaults kv heads to heads") {
  auto spec = model_from_hf_config(R"({"model_type":"llama","hidden_size":4096,"num_hidden_layers":32,
    "num_attention_heads":32,"intermediate_size":11008,"vocab_size":32000})");
  REQUIRE(spec.ok());
  CHECK(spec.value().layer(0).attention.head_dim == 128);
  CHECK(spec.value().layer(0).attention.kv_heads == 32);
  CHECK_FALSE(spec.value().tied_embeddings);  // LlamaConfig's default
  // Llama-2-7B: 6,738,415,616 (keras-hub llama2_7b_en).
  CHECK(count_params(spec.value()).value().total == 6'738'415'616ULL);
}

TEST_CASE("an explicit head_dim wins over hidden_size / heads") {
  // Gemma-2-9B: 16 heads × 256 = 4096 ≠ hidden 3584.
  CHECK(test::preset("gemma-2-9b").layer(0).attention.head_dim == 256);
}

TEST_CASE("Gemma 2 alternates sliding-window and global layers") {
  const auto& s = test::preset("gemma-2-9b");
  REQUIRE(s.num_layers() == 42);
  REQUIRE(s.layers.size() == 42);  // no two neighbours alike
  CHECK(s.layer(0).attention.window == 4096);
  CHECK(s.layer(1).attention.window == 0);
}

TEST_CASE("state-space models are refused with a message saying why") {
  auto spec = model_from_hf_config(R"({"model_type":"mamba","hidden_size":768,"num_hidden_layers":24})");
  REQUIRE_FALSE(spec.ok());
  CHECK(spec.error().field == "config.model_type");
  CHECK(spec.error().message.text.find("state-space") != std::string::npos);
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
    CHECK(spec.error().message.text == "expected a whole number, 0 or more, got the text \"big\"");
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
  CHECK(spec.value().notes.front().text.find("my_llama") != std::string::npos);
}

TEST_CASE("quantization_config in its spellings names the checkpoint's weight format") {
  const std::string base = R"("model_type":"qwen2","hidden_size":3584,"num_hidden_layers":28,"num_attention_heads":28,
    "num_key_value_heads":4,"intermediate_size":18944,"vocab_size":152064,"max_position_embeddings":32768,)";
  struct Case {
    const char* quantization;
    const char* format;
  };
  const Case cases[] = {
      // Qwen/Qwen2.5-7B-Instruct-AWQ config.json
      {R"({"bits":4,"group_size":128,"modules_to_not_convert":null,"quant_method":"awq","version":"gemm","zero_point":true})",
       "awq-4bit-128g"},
      // TheBloke/*-GPTQ config.json (desc_act false, 128g); "group_size": -1 is AutoGPTQ's "no grouping"
      {R"({"bits":4,"group_size":128,"damp_percent":0.1,"desc_act":false,"sym":true,"true_sequential":true,"quant_method":"gptq"})",
       "gptq-4bit-128g"},
      {R"({"bits":8,"group_size":-1,"quant_method":"gptq"})", "gptq-8bit-nogroup"},
      // unsloth/*-bnb-4bit config.json
      {R"({"_load_in_4bit":true,"_load_in_8bit":false,"bnb_4bit_compute_dtype":"bfloat16","bnb_4bit_quant_type":"nf4",
          "bnb_4bit_use_double_quant":true,"load_in_4bit":true,"load_in_8bit":false,"quant_method":"bitsandbytes"})",
       "nf4"},
      {R"({"load_in_8bit":true,"quant_method":"bitsandbytes"})", "bnb-int8"},
      // deepseek-ai/DeepSeek-V3 config.json
      {R"({"activation_scheme":"dynamic","fmt":"e4m3","quant_method":"fp8","weight_block_size":[128,128]})", "fp8-block"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.quantization);
    auto spec = model_from_hf_config("{" + base + R"("quantization_config":)" + c.quantization + "}");
    REQUIRE(spec.ok());
    CHECK(spec.value().quantization == c.format);
    // Packed GPTQ/AWQ tensors never enter the count: Qwen2.5-7B's 7,615,616,512 parameters either way.
    CHECK(count_params(spec.value()).value().total == 7'615'616'512ULL);
  }
  auto bad = model_from_hf_config("{" + base + R"("quantization_config":{"bits":5,"quant_method":"gptq"}})");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().field == "config.quantization_config.bits");
}

TEST_CASE("Qwen2's use_sliding_window false turns the window off; configs leave default_context to the engine") {
  // Qwen/Qwen2.5-7B-Instruct config.json: "sliding_window": 131072, "use_sliding_window": false, "max_window_layers": 28.
  auto spec = model_from_hf_config(R"({"model_type":"qwen2","hidden_size":3584,"num_hidden_layers":28,
    "num_attention_heads":28,"num_key_value_heads":4,"intermediate_size":18944,"vocab_size":152064,
    "max_position_embeddings":32768,"sliding_window":131072,"use_sliding_window":false,"max_window_layers":28})");
  REQUIRE(spec.ok());
  CHECK(spec.value().layer(0).attention.window == 0);
  CHECK(spec.value().default_context == 0);
  CHECK(spec.value().max_context == 32768);
}

TEST_CASE("layer_types marks each layer's attention") {
  // Gemma-3 / gpt-oss style "layer_types": windowed layers follow the list, in order.
  auto spec = model_from_hf_config(R"({"model_type":"llama","hidden_size":512,"num_hidden_layers":4,
    "num_attention_heads":8,"num_key_value_heads":2,"intermediate_size":1024,"vocab_size":1000,
    "max_position_embeddings":8192,"sliding_window":128,
    "layer_types":["sliding_attention","full_attention","sliding_attention","full_attention"]})");
  REQUIRE(spec.ok());
  CHECK(spec.value().layer(0).attention.window == 128);
  CHECK(spec.value().layer(1).attention.window == 0);
  CHECK(spec.value().layer(2).attention.window == 128);
}
