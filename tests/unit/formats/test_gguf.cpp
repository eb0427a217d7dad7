// GGUF v2/v3 headers (ggml docs/gguf.md), checked field by field on files written by file_builders.hpp.
#include <doctest/doctest.h>

#include "../file_builders.hpp"
#include "formats/gguf.hpp"

using namespace vramfit;
using test::Bytes;

namespace {
Result<GgufFile> parse(const Bytes& b) { return parse_gguf(b, b.size()); }
std::string error_of(const Bytes& b) {
  auto r = parse(b);
  REQUIRE_FALSE(r.ok());
  return r.error().field + ": " + r.error().message.text;
}
}  // namespace

TEST_CASE("a GGUF v3 header yields its version, metadata of every kind and tensor infos") {
  auto builder = test::tiny_llama_gguf();
  const Bytes file = builder.build();
  auto r = parse(file);
  REQUIRE_MESSAGE(r.ok(), r.error().message);
  const GgufFile& f = r.value();
  CHECK(f.need_prefix_bytes == 0);
  CHECK(f.version == 3);
  CHECK(f.alignment == 32);  // default when general.alignment is absent
  CHECK(f.data_offset % 32 == 0);
  CHECK(f.data_offset == (builder.header_end + 31) / 32 * 32);
  CHECK(f.find("general.architecture")->str == "llama");
  CHECK(f.find("llama.context_length")->type == GgufValueType::uint64);
  CHECK(f.find("llama.attention.layer_norm_rms_epsilon")->real == doctest::Approx(1e-5));
  const GgufValue* tokens = f.find("tokenizer.ggml.tokens");
  CHECK(tokens->array_type == GgufValueType::string);
  CHECK(tokens->array_count == 8);
  CHECK(tokens->items[3].str == "a");
  const GgufValue* nested = f.find("test.nested");
  REQUIRE(nested->items.size() == 2);
  CHECK(nested->items[0].array_type == GgufValueType::int32);
  CHECK(nested->items[0].items[1].sint == 2);
  CHECK(nested->items[1].items[0].sint == 3);

  REQUIRE(f.tensors.size() == 1 + 2 * 9 + 2);
  const auto& q = f.tensors[2];  // blk.0.attn_q.weight
  CHECK(q.name == "blk.0.attn_q.weight");
  CHECK(q.dims == std::vector<std::uint64_t>{256, 256});
  CHECK(q.type == 12);
  CHECK(q.bytes == 256 * 256 / 256 * 144);  // 256 Q4_K blocks × 144 B = 36,864 B
  CHECK(f.tensors[4].bytes == 128 * 210);   // attn_v 256×128 Q6_K: 128 blocks × 210 B
  CHECK(f.tensors[1].bytes == 256 * 4);     // attn_norm F32
}

TEST_CASE("import_gguf turns llama metadata into a ModelSpec with exact weight bytes and the quant mix") {
  const Bytes file = test::tiny_llama_gguf().build();
  auto r = import_gguf(file, file.size());
  REQUIRE_MESSAGE(r.ok(), r.error().message);
  const auto& m = r.value();
  CHECK(m.format == "GGUF v3");
  CHECK(m.file_type == 15);
  CHECK(m.spec.architecture == "llama");
  CHECK(m.spec.hidden_size == 256);
  CHECK(m.spec.num_layers() == 2);
  const AttentionMixer& a = m.spec.layer(0).attention;
  CHECK(a.heads == 4);
  CHECK(a.kv_heads == 2);
  CHECK(a.head_dim == 64);
  CHECK(m.spec.layer(0).mlp.intermediate == 512);
  CHECK(m.spec.vocab_size == 8);
  CHECK(m.spec.max_context == 4096);
  CHECK_FALSE(m.spec.tied_embeddings);
  // Parameters: embed 2,048 + per layer (256 + 65,536 + 2·32,768 + 65,536 + 256 + 3·131,072) + 256 + 2,048.
  const std::uint64_t per_layer = 256 + 65'536 + 2 * 32'768 + 65'536 + 256 + 3 * 131'072;
  CHECK(m.weights.params == 2'048 + 2 * per_layer + 256 + 2'048);
  CHECK(m.weights.params == count_params(m.spec).value().total);
  CHECK(m.notes.empty());
  // Bytes: Q4_K 144 B and Q6_K 210 B per 256 weights, F32 4 B.
  const std::uint64_t q4 = (2'048 + 2 * (65'536 + 32'768 + 65'536 + 2 * 131'072)) / 256 * 144;
  const std::uint64_t q6 = (2 * (32'768 + 131'072) + 2'048) / 256 * 210;
  const std::uint64_t f32 = (2 * 2 * 256 + 256) * 4;
  CHECK(m.weights.total == q4 + q6 + f32);
  REQUIRE(m.weights.storage.size() == 3);
  CHECK(m.weights.storage[0].type == "Q4_K");
  CHECK(m.weights.storage[0].bytes == q4);
  CHECK(m.weights.storage[1].type == "Q6_K");
  CHECK(m.weights.storage[2].type == "F32");
  CHECK(m.weights.storage[2].tensors == 5);
  CHECK(m.weights.output == 2'048 / 256 * 210);
}

TEST_CASE("a prefix that stops inside the header asks for more bytes, and the full file parses") {
  const Bytes file = test::tiny_llama_gguf().build();
  std::uint64_t have = 24;
  int rounds = 0;
  for (;;) {
    auto r = import_gguf(std::span(file).first(static_cast<std::size_t>(have)), file.size());
    REQUIRE_MESSAGE(r.ok(), r.error().message);
    if (r.value().need_prefix_bytes == 0) {
      CHECK(r.value().spec.hidden_size == 256);
      break;
    }
    CHECK(r.value().need_prefix_bytes > have);
    CHECK(r.value().need_prefix_bytes <= file.size());
    have = r.value().need_prefix_bytes;
    REQUIRE(++rounds < 10);
  }
  CHECK(have < file.size());  // only the header was needed, not the tensor data
}

TEST_CASE("hostile GGUF files give an error naming the field and the offset") {
  SUBCASE("not GGUF") { CHECK(error_of(Bytes(64, std::byte{0})).find("header.magic") == 0); }
  SUBCASE("truncated tensor data") {
    Bytes file = test::tiny_llama_gguf().build();
    file.resize(file.size() - 100);
    CHECK(error_of(file).find("truncated") != std::string::npos);
  }
  SUBCASE("an unknown ggml type") {
    test::GgufBuilder b;
    b.str("general.architecture", "llama");
    b.tensor("x.weight", {32}, GgmlType::f32);
    Bytes file = b.build();
    // The tensor info's type field sits 12 bytes before its end (type u32 + offset u64).
    const std::size_t type_at = b.header_end - 12;
    file[type_at] = std::byte{99};
    CHECK(error_of(file) == "tensor_infos[0].type: at offset " + std::to_string(type_at) + ": unknown ggml type 99 (x.weight)");
    CHECK(parse(file).error().message.id == "gguf.unknown_type");  // the page says it without the offset
  }
  SUBCASE("an absurd tensor count") {
    Bytes file = test::tiny_llama_gguf().build();
    for (int i = 8; i < 16; ++i) file[static_cast<std::size_t>(i)] = std::byte{0xFF};
    CHECK(error_of(file).find("header.tensor_count: at offset 8") == 0);
  }
  SUBCASE("an array longer than the file") {
    test::GgufBuilder b;
    Bytes value;
    test::put_le(value, 9, 4);       // array
    test::put_le(value, 4, 4);       // of uint32
    test::put_le(value, 1ULL << 60, 8);
    b.raw_kv("huge", value);
    CHECK(error_of(b.build()).find("metadata[0] (huge).value.count") == 0);
  }
  SUBCASE("invalid UTF-8 in a tensor name") {
    test::GgufBuilder b;
    b.tensor("bad\xC3(.weight", {32}, GgmlType::f32);
    CHECK(error_of(b.build()).find("tensor_infos[0].name") == 0);
  }
  SUBCASE("overlapping tensors") {
    test::GgufBuilder b;
    b.tensor("a.weight", {64}, GgmlType::f32).tensor("b.weight", {64}, GgmlType::f32);
    Bytes file = b.build();
    file[b.header_end - 8] = std::byte{0};  // b's offset 256 → 0: overlaps a
    file[b.header_end - 7] = std::byte{0};
    CHECK(error_of(file).find("overlaps") != std::string::npos);
  }
  SUBCASE("a row length that is not whole blocks") {
    test::GgufBuilder b;
    b.tensor("q.weight", {256, 2}, GgmlType::q4_k);
    Bytes file = b.build();
    file[b.header_end - 12 - 16] = std::byte{100};  // dims[0] 256 → 100
    file[b.header_end - 12 - 15] = std::byte{0};
    CHECK(error_of(file).find("not a multiple of the Q4_K block") != std::string::npos);
  }
  SUBCASE("GGUF v1 and big-endian files are refused by name") {
    Bytes file = test::tiny_llama_gguf().build(1);
    CHECK(error_of(file).find("v1") != std::string::npos);
  }
}

TEST_CASE("a head count the metadata gives that the model checks refuse is named with its key and architecture") {
  test::GgufBuilder b;
  b.str("general.architecture", "llama")
      .u32("llama.block_count", 2)
      .u32("llama.embedding_length", 256)
      .u32("llama.feed_forward_length", 512)
      .u32("llama.attention.head_count", 4)
      .u32("llama.attention.head_count_kv", 3);  // 4 query heads cannot be grouped over 3 key-value heads
  const Bytes file = b.build();
  auto r = import_gguf(file, file.size());
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().field == "gguf metadata");
  CHECK(r.error().message.text == "num_key_value_heads: must divide num_attention_heads (4), got 3 (architecture \"llama\")");
  // The page says the check's own message, in its language, from the check's id and values.
  CHECK(r.error().message.id == "model.must_divide");
  CHECK(arg_named(r.error().message, "value").integer == 3);
}

TEST_CASE("GGUF v2 files parse like v3") {
  const Bytes file = test::tiny_llama_gguf().build(2);
  auto r = parse(file);
  REQUIRE(r.ok());
  CHECK(r.value().version == 2);
}

TEST_CASE("recurrent architectures are refused with the reason") {
  test::GgufBuilder b;
  b.str("general.architecture", "mamba").u32("mamba.block_count", 2);
  const Bytes file = b.build();
  auto r = import_gguf(file, file.size());
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().field == "general.architecture");
}
