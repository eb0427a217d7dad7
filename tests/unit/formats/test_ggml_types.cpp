// The ggml tensor type table: ids from ggml.h, block geometry from ggml-common.h.
#include <doctest/doctest.h>

#include "formats/ggml_types.hpp"

using namespace vramfit;

TEST_CASE("type ids are the numbers ggml.h gives them") {
  CHECK(ggml_type_by_name("F32")->type == GgmlType::f32);
  CHECK(static_cast<int>(GgmlType::q4_0) == 2);
  CHECK(static_cast<int>(GgmlType::q8_0) == 8);
  CHECK(static_cast<int>(GgmlType::q2_k) == 10);
  CHECK(static_cast<int>(GgmlType::q4_k) == 12);
  CHECK(static_cast<int>(GgmlType::q6_k) == 14);
  CHECK(static_cast<int>(GgmlType::iq2_xxs) == 16);
  CHECK(static_cast<int>(GgmlType::bf16) == 30);
  CHECK(static_cast<int>(GgmlType::tq1_0) == 34);
  CHECK(static_cast<int>(GgmlType::mxfp4) == 39);
  // Removed from GGUF files: Q4_2/Q4_3 and the Q4_0_x_x / IQ4_NL_x_x repacks.
  for (std::uint32_t gone : {4u, 5u, 31u, 32u, 33u, 36u, 37u, 38u, 99u}) CHECK(ggml_type_info(gone) == nullptr);
}

TEST_CASE("block sizes match the static_asserts in ggml-common.h") {
  struct Row { const char* name; std::uint32_t block, bytes; };
  // FORMULAS.md: Q4_0 18/32 = 4.5 bpw, Q4_K 144/256 = 4.5, Q6_K 210/256 = 6.5625, Q2_K 84/256 = 2.625 ...
  const Row rows[] = {{"Q4_0", 32, 18},     {"Q4_1", 32, 20},    {"Q5_0", 32, 22},     {"Q5_1", 32, 24},
                      {"Q8_0", 32, 34},     {"Q8_1", 32, 36},    {"Q2_K", 256, 84},    {"Q3_K", 256, 110},
                      {"Q4_K", 256, 144},   {"Q5_K", 256, 176},  {"Q6_K", 256, 210},   {"Q8_K", 256, 292},
                      {"IQ2_XXS", 256, 66}, {"IQ2_XS", 256, 74}, {"IQ3_XXS", 256, 98}, {"IQ1_S", 256, 50},
                      {"IQ4_NL", 32, 18},   {"IQ3_S", 256, 110}, {"IQ2_S", 256, 82},   {"IQ4_XS", 256, 136},
                      {"IQ1_M", 256, 56},   {"TQ1_0", 256, 54},  {"TQ2_0", 256, 66},   {"MXFP4", 32, 17},
                      {"F32", 1, 4},        {"F16", 1, 2},       {"BF16", 1, 2},       {"F64", 1, 8}};
  for (const auto& r : rows) {
    CAPTURE(r.name);
    const GgmlTypeInfo* info = ggml_type_by_name(r.name);
    REQUIRE(info != nullptr);
    CHECK(info->block_elements == r.block);
    CHECK(info->block_bytes == r.bytes);
  }
  CHECK(ggml_bits_per_weight(*ggml_type_by_name("Q6_K")) == doctest::Approx(6.5625));
  CHECK(ggml_bits_per_weight(*ggml_type_by_name("Q2_K")) == doctest::Approx(2.625));  // not the PR text's 2.5625
}

TEST_CASE("bytes are whole blocks times the block size, and a partial block is refused") {
  // 4096 × 4096 Q4_K: 16,777,216 / 256 = 65,536 blocks × 144 B = 9,437,184 B.
  CHECK(ggml_bytes(GgmlType::q4_k, 4096ULL * 4096) == 9'437'184ULL);
  CHECK(ggml_bytes(GgmlType::f32, 3) == 12ULL);
  CHECK_FALSE(ggml_bytes(GgmlType::q4_k, 100).has_value());
  CHECK_FALSE(ggml_bytes(GgmlType::f64, ~0ULL).has_value());  // overflow
}

TEST_CASE("type names are found whatever their case, and every enumerator has a row") {
  CHECK(ggml_type_by_name("q4_k")->type == GgmlType::q4_k);
  CHECK(ggml_type_by_name("iq2_xxs")->type == GgmlType::iq2_xxs);
  CHECK(ggml_type_by_name("Q4_K_M") == nullptr);  // a file type, not a tensor type
  for (const auto& info : all_ggml_types()) CHECK(&ggml_type_info(info.type) == &info);
}
