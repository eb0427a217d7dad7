// safetensors headers (huggingface/safetensors README), shards with an index, packed GPTQ layers.
#include <doctest/doctest.h>

#include "../file_builders.hpp"
#include "formats/safetensors.hpp"

using namespace vramfit;
using test::Bytes;

namespace {
const char* kTinyConfig = R"({"model_type":"llama","hidden_size":64,"num_hidden_layers":1,"num_attention_heads":2,
  "num_key_value_heads":2,"intermediate_size":128,"vocab_size":16,"tie_word_embeddings":false})";

// Every tensor of kTinyConfig in BF16, split over two shards as transformers would.
std::vector<test::StTensor> shard1() {
  return {{"model.embed_tokens.weight", "BF16", {16, 64}, 16 * 64 * 2},
          {"model.layers.0.input_layernorm.weight", "BF16", {64}, 128},
          {"model.layers.0.self_attn.q_proj.weight", "BF16", {64, 64}, 8192},
          {"model.layers.0.self_attn.k_proj.weight", "BF16", {64, 64}, 8192},
          {"model.layers.0.self_attn.v_proj.weight", "BF16", {64, 64}, 8192},
          {"model.layers.0.self_attn.o_proj.weight", "BF16", {64, 64}, 8192}};
}
std::vector<test::StTensor> shard2() {
  return {{"model.layers.0.post_attention_layernorm.weight", "BF16", {64}, 128},
          {"model.layers.0.mlp.gate_proj.weight", "BF16", {128, 64}, 16384},
          {"model.layers.0.mlp.up_proj.weight", "BF16", {128, 64}, 16384},
          {"model.layers.0.mlp.down_proj.weight", "BF16", {64, 128}, 16384},
          {"model.norm.weight", "BF16", {64}, 128},
          {"lm_head.weight", "F32", {16, 64}, 16 * 64 * 4}};
}
std::string index_for(const std::vector<test::StTensor>& a, const std::vector<test::StTensor>& b) {
  nlohmann::json map;
  for (const auto& t : a) map[t.name] = "model-00001-of-00002.safetensors";
  for (const auto& t : b) map[t.name] = "model-00002-of-00002.safetensors";
  return nlohmann::json{{"metadata", {{"total_size", 123}}}, {"weight_map", map}}.dump();
}
}  // namespace

TEST_CASE("a safetensors header yields dtypes, shapes, offsets and __metadata__") {
  const Bytes file = test::build_safetensors(shard1(), {{"format", "pt"}});
  auto r = parse_safetensors(file, file.size());
  REQUIRE_MESSAGE(r.ok(), r.error().message);
  const auto& h = r.value();
  REQUIRE(h.tensors.size() == 6);
  REQUIRE(h.metadata.size() == 1);
  CHECK(h.metadata[0].first == "format");
  CHECK(h.metadata[0].second == "pt");
  std::uint64_t sum = 0;
  for (const auto& t : h.tensors) sum += t.end - t.begin;
  CHECK(8 + h.header_bytes + sum == file.size());  // length prefix + header + byte buffer, nothing else
  CHECK(safetensors_dtype_bits("F8_E4M3") == 8u);
  CHECK(safetensors_dtype_bits("F4") == 4u);
  CHECK_FALSE(safetensors_dtype_bits("F12").has_value());
}

TEST_CASE("a sharded checkpoint with its index and config.json imports as one model") {
  const Bytes a = test::build_safetensors(shard1()), b = test::build_safetensors(shard2());
  const SafetensorsFile files[] = {{"model-00001-of-00002.safetensors", a, a.size()},
                                   {"model-00002-of-00002.safetensors", b, b.size()}};
  auto r = import_safetensors(files, kTinyConfig, index_for(shard1(), shard2()));
  REQUIRE_MESSAGE(r.ok(), r.error().field << ": " << r.error().message.text);
  const auto& m = r.value();
  CHECK(m.spec.hidden_size == 64);
  // 16·64 embed + 64 + 4·64² + 64 + 3·128·64 + 64 + 16·64 lm_head = 43,200 parameters.
  CHECK(m.weights.params == 43'200);
  CHECK(m.weights.params == count_params(m.spec).value().total);
  CHECK(m.weights.output == 16 * 64 * 4);  // lm_head stored F32
  CHECK(m.weights.total == 2 * (43'200 - 1'024) + 4 * 1'024);
  CHECK(m.notes.empty());

  SUBCASE("a shard named by the index but not given is an error") {
    auto missing = import_safetensors(std::span(files).first(1), kTinyConfig, index_for(shard1(), shard2()));
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.error().message.text.find("model-00002-of-00002.safetensors") != std::string::npos);
  }
}

TEST_CASE("GPTQ int32-packed weights count as the parameters they hold") {
  // One 4-bit, group-128 layer 256 → 512: qweight int32 [256/8, 512] holds 256·512 = 131,072 weights;
  // qzeros int32 [2, 512/8], scales fp16 [2, 512], g_idx int32 [256] hold none.
  const Bytes file = test::build_safetensors({{"model.layers.0.mlp.up_proj.qweight", "I32", {32, 512}, 32 * 512 * 4},
                                              {"model.layers.0.mlp.up_proj.qzeros", "I32", {2, 64}, 2 * 64 * 4},
                                              {"model.layers.0.mlp.up_proj.scales", "F16", {2, 512}, 2 * 512 * 2},
                                              {"model.layers.0.mlp.up_proj.g_idx", "I32", {256}, 256 * 4}});
  const SafetensorsFile files[] = {{"model.safetensors", file, file.size()}};
  auto r = import_safetensors(files, R"({"model_type":"llama","hidden_size":256,"num_hidden_layers":1,
    "num_attention_heads":2,"intermediate_size":512,"vocab_size":8,
    "quantization_config":{"quant_method":"gptq","bits":4,"group_size":128}})", "");
  REQUIRE_MESSAGE(r.ok(), r.error().message);
  CHECK(r.value().weights.params == 131'072);
  CHECK(r.value().weights.total == 65'536 + 512 + 2'048 + 1'024);
  CHECK(r.value().weights.mlp == r.value().weights.total);

  SUBCASE("without config.json the spec is a bare count, read as 4-bit with a note") {
    auto bare = import_safetensors(files, "", "");
    REQUIRE(bare.ok());
    CHECK(bare.value().spec.is_bare());
    CHECK(bare.value().spec.bare_params == 131'072);
  }
}

TEST_CASE("a header longer than the prefix asks for exactly the header") {
  const Bytes file = test::build_safetensors(shard1());
  auto r = parse_safetensors(std::span(file).first(100), file.size());
  REQUIRE(r.ok());
  CHECK(r.value().need_prefix_bytes == 8 + (file.size() - 8 - (16 * 64 * 2 + 128 + 4 * 8192)));
}

TEST_CASE("hostile safetensors files give an error naming the field") {
  auto error_of = [](const Bytes& b) {
    auto r = parse_safetensors(b, b.size());
    REQUIRE_FALSE(r.ok());
    return r.error().field + ": " + r.error().message.text;
  };
  SUBCASE("a header length past the end") {
    Bytes b;
    test::put_le(b, 1ULL << 40, 8);
    CHECK(error_of(b).find("header_length: at offset 0") == 0);
  }
  SUBCASE("data_offsets past the buffer") {
    Bytes b = test::build_safetensors({{"x", "F32", {4}, 16}});
    b.resize(b.size() - 4);
    CHECK(error_of(b).find("header[\"x\"].data_offsets") == 0);
  }
  SUBCASE("a size that does not match the dtype and shape") {
    CHECK(error_of(test::build_safetensors({{"x", "F32", {4}, 12}})).find("header[\"x\"].data_offsets") == 0);
  }
  SUBCASE("an unknown dtype") {
    CHECK(error_of(test::build_safetensors({{"x", "Q4", {4}, 2}})).find("header[\"x\"].dtype") == 0);
  }
  SUBCASE("overlapping tensors") {
    Bytes b = test::build_safetensors({{"a", "U8", {4}, 4}, {"b", "U8", {4}, 4}});
    std::string text(reinterpret_cast<const char*>(b.data()) + 8, b.size() - 16);
    const auto at = text.find("[4,8]");
    REQUIRE(at != std::string::npos);
    b[8 + at + 1] = std::byte{'2'};
    b[8 + at + 3] = std::byte{'6'};
    CHECK(error_of(b).find("overlaps") != std::string::npos);
  }
  SUBCASE("not JSON") {
    Bytes b;
    test::put_le(b, 3, 8);
    for (char c : std::string("{x}")) b.push_back(static_cast<std::byte>(c));
    CHECK(error_of(b).find("header: at offset 8") == 0);
  }
}
