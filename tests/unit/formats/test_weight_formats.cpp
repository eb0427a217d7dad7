// Weight memory per format; the published checkpoint sizes it is held to are in tests/data/validation.json.
#include <algorithm>   // std::count
#include <filesystem>  // std::filesystem::path
#include <fstream>     // std::ifstream
#include <sstream>     // std::ostringstream

#include "../test_support.hpp"
#include "format_fixtures.hpp"
#include "model/hf_config.hpp"
#include "formats/weight_formats.hpp"
#include "util/text.hpp"  // lower_ascii

using namespace vramfit;
using test::bytes_of;
using test::llama2_7b;
using test::llama31_8b;

TEST_CASE("Q4_K_M bumps attn_v and ffn_down to Q6_K on the layers use_more_bits picks") {
  const auto s = llama2_7b();
  auto tensors = enumerate_tensors(s).value();
  auto type_of = [&](const std::string& name) {
    for (const auto& t : tensors)
      if (t.name == name) return detail::gguf_tensor_type(s, GgufMix::q4_k_m, t);
    FAIL("no tensor " << name);
    return GgmlType::f32;
  };
  // use_more_bits(i, 32): i < 4 || i >= 28 || (i - 4) % 3 == 2
  CHECK(type_of("blk.0.attn_v.weight") == GgmlType::q6_k);
  CHECK(type_of("blk.4.attn_v.weight") == GgmlType::q4_k);
  CHECK(type_of("blk.6.ffn_down.weight") == GgmlType::q6_k);
  CHECK(type_of("blk.7.ffn_down.weight") == GgmlType::q4_k);
  CHECK(type_of("blk.7.attn_q.weight") == GgmlType::q4_k);
  CHECK(type_of("output.weight") == GgmlType::q6_k);
  CHECK(type_of("token_embd.weight") == GgmlType::q4_k);
  CHECK(type_of("blk.0.attn_norm.weight") == GgmlType::f32);
}

TEST_CASE("GPTQ and AWQ keep more scales with smaller groups") {
  // Their published sizes (TheBloke's Llama-2-7B-GPTQ and -AWQ) are rows of tests/data/validation.json, as are the
  // GGUF files' (TheBloke's Llama-2-7B-GGUF, bartowski's Meta-Llama-3.1-8B-Instruct-GGUF).
  const auto s = llama2_7b();
  CHECK(bytes_of(s, "gptq-4bit-32g") > bytes_of(s, "gptq-4bit-128g"));
  CHECK(bytes_of(s, "gptq-4bit-nogroup") < bytes_of(s, "gptq-4bit-128g"));
}

TEST_CASE("NF4 costs 4.5 bits per linear weight, 4.127 with double quantization") {
  // QLoRA §3: absmax fp32 per 64 weights = 0.5 bit; double quant: 8/64 + 32/(64·256) = 0.127 bit.
  ModelSpec s = llama2_7b();
  auto w = weights_bytes(s, parse_weight_format("nf4").value()).value();
  auto nodq = weights_bytes(s, parse_weight_format("nf4-no-dq").value()).value();
  const double linear = 32.0 * (4 * 4096.0 * 4096 + 3 * 4096.0 * 11008);
  const double sixteen = 2.0 * 2 * 4096 * 32000 + 2.0 * (65 * 4096);  // embed, lm_head, norms
  CHECK((static_cast<double>(w.total) - sixteen) * 8 / linear == doctest::Approx(4.127).epsilon(0.001));
  CHECK((static_cast<double>(nodq.total) - sixteen) * 8 / linear == doctest::Approx(4.5).epsilon(0.001));
}

TEST_CASE("plain dtypes store every parameter at their width, with a per-role breakdown") {
  const auto s = llama2_7b();
  auto w = weights_bytes(s, parse_weight_format("bf16").value()).value();
  CHECK(w.total == 2 * 6'738'415'616ULL);
  CHECK(w.embedding + w.output + w.attention + w.mlp + w.norms + w.other == w.total);
  CHECK(w.embedding == 2ULL * 4096 * 32000);
  CHECK(w.norms == 2ULL * 65 * 4096);
}

TEST_CASE("format names parse and print back") {
  for (const char* name :
       {"bf16", "fp8", "int4", "nf4", "nf4-no-dq", "bnb-int8", "gptq-4bit-128g", "gptq-3bit-32g", "gptq-8bit-nogroup",
        "awq-4bit-64g", "autoround-4bit-128g", "autoround-2bit-32g", "mxfp4", "nvfp4", "fp8-channel", "fp8-block",
        "fp8-block-e8m0", "w4a16", "w4a16-32g", "w4a16-asym", "w4a16-nogroup", "w8a16", "w8a16-128g", "w8a8",
        "w8a8-asym", "mlx-4bit", "mlx-6bit", "mlx-8bit", "mlx-4bit-32g", "mlx-3bit-128g", "exl2-4.0bpw",
        "exl2-4.65bpw", "exl2-2.5bpw-h8", "exl3-4.0bpw", "exl3-3.25bpw", "q4_k_m", "q3_k_s", "q8_0",
        "gguf-q4_k"}) {
    CAPTURE(name);
    auto f = parse_weight_format(name);
    REQUIRE(f.ok());
    CHECK(weight_format_name(f.value()) == name);
  }
  auto bad = parse_weight_format("gptq-5bit");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().field == "weights");
}

TEST_CASE("format spellings ignore case, and gptq or awq alone mean 4-bit, group 128") {
  SUBCASE("the converters' defaults") {
    // AutoGPTQ's and AutoAWQ's BaseQuantizeConfig default to bits 4, group_size 128.
    CHECK(weight_format_name(parse_weight_format("GPTQ").value()) == "gptq-4bit-128g");
    CHECK(weight_format_name(parse_weight_format("awq").value()) == "awq-4bit-128g");
    CHECK(weight_format_name(parse_weight_format("gptq-4bit").value()) == "gptq-4bit-128g");
    CHECK(weight_format_name(parse_weight_format("autoround").value()) == "autoround-4bit-128g");
    CHECK(weight_format_name(parse_weight_format("mlx-4bit-64g").value()) == "mlx-4bit");
    CHECK(weight_format_name(parse_weight_format("exl2-4bpw").value()) == "exl2-4.0bpw");
    CHECK(weight_format_name(parse_weight_format("exl2-4.0bpw-h6").value()) == "exl2-4.0bpw");
    CHECK(weight_format_name(parse_weight_format("w4a16-128g").value()) == "w4a16");
  }
  SUBCASE("any case") {
    for (const char* name : {"NVFP4", "MXFP4", "FP8-Block", "FP8-BLOCK-E8M0", "W4A16", "MLX-4bit", "EXL2-4.0BPW",
                             "Q4_K_M", "GPTQ-4bit-128G"}) {
      CAPTURE(name);
      auto f = parse_weight_format(name);
      REQUIRE(f.ok());
      CHECK(weight_format_name(f.value()) == lower_ascii(name));
    }
  }
  SUBCASE("the error names the spellings") {
    auto bad = parse_weight_format("nvfp8");
    REQUIRE_FALSE(bad.ok());
    for (const char* spelling : {"nvfp4", "mxfp4", "fp8-block", "w4a16", "mlx-4bit", "exl2-4.0bpw", "gptq or awq"})
      CHECK_MESSAGE(bad.error().message.text.find(spelling) != std::string::npos, spelling);
  }
  SUBCASE("out of range") {
    for (const char* name : {"mlx-7bit", "mlx-4bit-16g", "exl2-0.5bpw", "exl2-4.0bpw-h9", "exl2-4.123bpw",
                             "w4a16-0g", "w2a16", "gptq-4bit-0g", "awq-", "fp8-blocks"}) {
      CAPTURE(name);
      CHECK_FALSE(parse_weight_format(name).ok());
    }
  }
}

TEST_CASE("every format offered parses back to its own name") {
  for (const auto& name : weight_format_examples()) {
    CAPTURE(name);
    auto f = parse_weight_format(name);
    REQUIRE(f.ok());
    CHECK(weight_format_name(f.value()) == name);
  }
}

TEST_CASE("a bare parameter count works for plain dtypes and is refused for per-tensor formats") {
  ModelSpec bare;
  bare.bare_params = 7'000'000'000ULL;
  CHECK(weights_bytes(bare, parse_weight_format("fp16").value()).value().total == 14'000'000'000ULL);
  CHECK_FALSE(weights_bytes(bare, parse_weight_format("q4_k_m").value()).ok());
}

TEST_CASE("the weight formats offered are listed once each") {
  // llama.cpp's bf16 mix and the plain bf16 format share their name: one spelling, one entry in the pickers.
  const auto names = weight_format_examples();
  for (std::size_t i = 0; i < names.size(); ++i)
    for (std::size_t k = i + 1; k < names.size(); ++k) CHECK_MESSAGE(names[i] != names[k], names[i]);
  CHECK(std::count(names.begin(), names.end(), std::string("bf16")) == 1);
}

namespace {

ModelSpec one_layer(std::uint64_t hidden, std::uint64_t inner) {  // seven matrices, a 32-token vocabulary, tied
  return model_from_hf_config(R"({"model_type":"llama","hidden_size":)" + std::to_string(hidden) +
                              R"(,"num_hidden_layers":1,"num_attention_heads":)" + std::to_string(hidden / 128) +
                              R"(,"num_key_value_heads":)" + std::to_string(hidden / 128) +
                              R"(,"intermediate_size":)" + std::to_string(inner) +
                              R"(,"vocab_size":32,"tie_word_embeddings":true})")
      .value();
}

// Bytes of the seven matrices: the total less the bf16 embedding (32 × hidden) and the three norms.
std::uint64_t matrix_bytes(const ModelSpec& s, const char* format, std::uint64_t hidden) {
  return bytes_of(s, format) - (32 * hidden + 3 * hidden) * 2;
}

ModelSpec mixtral() {  // mistralai/Mixtral-8x7B-v0.1 config.json
  return model_from_hf_config(R"({"model_type":"mixtral","hidden_size":4096,"num_hidden_layers":32,
    "num_attention_heads":32,"num_key_value_heads":8,"intermediate_size":14336,"vocab_size":32000,
    "num_local_experts":8,"num_experts_per_tok":2,"max_position_embeddings":32768})").value();
}

}  // namespace

TEST_CASE("MLX 4-bit matches mlx-community's Qwen3-14B-4bit: embeddings and lm_head quantized too") {
  // github.com/root-hypercube/qwen3-mlx, Qwen3-14B-MLX-4bit/model.safetensors.index.json (an mlx_lm conversion,
  // config "quantization": {"group_size": 64, "bits": 4}): "metadata": {"total_size": 8307783680}.
  // By hand: 40 layers × (q 5120² + k, v 5120 × 1024 + o 5120² + 3 × 5120 × 17408) = 13,212,057,600 weights, plus
  // embed_tokens and lm_head 2 × 151,936 × 5120 = 1,555,824,640, all at 4 + 32/64 bits = 8,306,933,760 B; norms
  // (2 × 5120 + q_norm, k_norm 2 × 128) × 40 + 5120 = 424,960 in bf16 = 849,920 B. Sum 8,307,783,680 B.
  const auto s = model_from_hf_config(R"({"model_type":"qwen3","hidden_size":5120,"num_hidden_layers":40,
    "num_attention_heads":40,"num_key_value_heads":8,"head_dim":128,"intermediate_size":17408,"vocab_size":151936,
    "tie_word_embeddings":false,"max_position_embeddings":40960})").value();
  CHECK(bytes_of(s, "mlx-4bit") == 8'307'783'680ULL);
  // 8-bit, group 64: 8.5 bits a quantized weight; 4-bit group 32: 5 bits.
  CHECK(bytes_of(s, "mlx-8bit") == 14'767'882'240ULL * 17 / 16 + 849'920);
  CHECK(bytes_of(s, "mlx-4bit-32g") == 14'767'882'240ULL * 5 / 8 + 849'920);
}

TEST_CASE("NVFP4 stores 4.5 bits a weight and 8 bytes a matrix") {
  // ModelOpt's NVFP4 export, one 4096 × 4096 matrix: weight U8 [4096, 2048] = 8,388,608 B, weight_scale F8_E4M3
  // [4096, 256] = 1,048,576 B, weight_scale_2 and input_scale F32 scalars 8 B: 9,437,192 B; seven such matrices.
  const auto s = one_layer(4096, 4096);
  CHECK(matrix_bytes(s, "nvfp4", 4096) == 7 * 9'437'192ULL);
}

TEST_CASE("FP8 with block scales adds one scale per 128 × 128 block, per channel one per output row") {
  // DeepSeek-V3 expert matrix 7168 × 2048: 14,680,064 B of E4M3; ceil(7168/128) × ceil(2048/128) = 56 × 16 = 896
  // blocks: 3,584 B of fp32 weight_scale_inv, 896 B as E8M0. Per channel (compressed-tensors FP8_DYNAMIC): one bf16
  // scale per output row.
  const auto s = one_layer(2048, 7168);
  // q, k, v, o 2048 × 2048: 4,194,304 B and 16 × 16 = 256 blocks each; gate, up 2048 → 7168 and down 7168 → 2048.
  const std::uint64_t e4m3 = 4 * 4'194'304ULL + 3 * 14'680'064ULL;
  CHECK(matrix_bytes(s, "fp8-block", 2048) == e4m3 + (4 * 256 + 3 * 896) * 4);
  CHECK(matrix_bytes(s, "fp8-block-e8m0", 2048) == e4m3 + (4 * 256 + 3 * 896));
  CHECK(matrix_bytes(s, "fp8-channel", 2048) == e4m3 + (4 * 2048 + 2 * 7168 + 2048) * 2);
  CHECK(matrix_bytes(s, "fp8", 2048) == e4m3 + 7 * 4);
}

TEST_CASE("DeepSeek-V3's FP8 with 128 × 128 block scales weighs what its published files hold") {
  // huggingface.co/deepseek-ai/DeepSeek-V3 at revision afb92e1: its 163 safetensors files hold 688,586,727,753 B,
  // the multi-token-prediction layer (model.layers.61) included, which the weights loaded leave out (the files'
  // count adds it apart: test_checkpoint_recipes.cpp). That layer by hand: MLA
  // q_a 7168 × 1536, q_b 1536 × 24,576, kv_a 7168 × 576, kv_b 512 × 32,768, o 16,384 × 7168 (187,105,280), 257
  // experts × 3 × 7168 × 2048 (11,318,329,344) and eh_proj 14,336 × 7168 (102,760,448) in E4M3 = 11,608,195,072 B;
  // their 708,536 fp32 block scales 2,834,144 B; its own embed_tokens and shared_head.head 2 × 129,280 × 7168 in
  // bf16 = 3,706,716,160 B; router 3,670,016 B, norms 75,776 B, correction bias 1,024 B: 15,321,492,192 B. The rest:
  // 673,265,235,561 B (safetensors headers, a few MB, included).
  const auto configs = std::filesystem::path(VRAMFIT_SOURCE_DIR) / "tests" / "data" / "configs";
  std::ifstream in(configs / "deepseek-ai--DeepSeek-V3_config.json");
  REQUIRE(in.good());
  std::ostringstream text;
  text << in.rdbuf();
  const auto s = model_from_hf_config(text.str());
  REQUIRE(s.ok());
  CHECK(static_cast<double>(bytes_of(s.value(), "fp8-block")) == doctest::Approx(673'265'235'561.0).epsilon(0.01));
}

TEST_CASE("compressed-tensors W4A16 packs eight weights an int32 with a bf16 scale per 128") {
  // pack-quantized, Llama-3.1-8B's down_proj (in 14336, out 4096): weight_packed int32 [4096, 1792] = 29,360,128 B,
  // weight_scale [4096, 112] bf16 = 917,504 B, weight_shape int64 [2] = 16 B. Asymmetric adds weight_zero_point
  // int32 [4096/8, 112] = 229,376 B.
  const auto s = one_layer(4096, 14336);
  // q, k, v, o (in 4096): packed 4096 × 512 × 4 = 8,388,608, scales 4096 × 32 × 2 = 262,144, shape 16.
  const std::uint64_t attention = 4 * (8'388'608ULL + 262'144 + 16);
  // gate, up (in 4096, out 14336): packed 14336 × 512 × 4 = 29,360,128, scales 14336 × 32 × 2 = 917,504.
  const std::uint64_t gate_up = 2 * (29'360'128ULL + 917'504 + 16);
  const std::uint64_t down = 29'360'128ULL + 917'504 + 16;
  CHECK(matrix_bytes(s, "w4a16", 4096) == attention + gate_up + down);
  // Zero points: q..o 512 × 32 × 4 = 65,536 each; gate, up 1792 × 32 × 4 = 229,376; down 512 × 112 × 4 = 229,376.
  CHECK(matrix_bytes(s, "w4a16-asym", 4096) == attention + gate_up + down + 4 * 65'536 + 3 * 229'376);
  // W8A8 (int-quantized): int8 weights and one bf16 scale per output row, no weight_shape.
  const std::uint64_t weights = 4 * 4096ULL * 4096 + 3 * 4096ULL * 14336;
  CHECK(matrix_bytes(s, "w8a8", 4096) == weights + (4 * 4096 + 2 * 14336 + 4096) * 2);
  // W8A16 (pack-quantized, four a word): the same bytes and a weight_shape each.
  CHECK(matrix_bytes(s, "w8a16", 4096) == weights + (4 * 4096 + 2 * 14336 + 4096) * 2 + 7 * 16);
}

TEST_CASE("AutoRound's export is GPTQ's layout without g_idx") {
  // g_idx: an int32 per input of each of the 7 matrices of the 32 layers: 32 × (6 × 4096 + 11008) × 4 B.
  const auto s = llama2_7b();
  CHECK(bytes_of(s, "gptq-4bit-128g") - bytes_of(s, "autoround-4bit-128g") == 32ULL * (6 * 4096 + 11008) * 4);
}

TEST_CASE("EXL2 and EXL3 store the linear layers at their bits per weight and the head at its own") {
  const auto s = llama31_8b();
  // Linear layers: 32 × (q 4096² + k, v 4096 × 1024 + o 4096² + 3 × 4096 × 14336) = 6,979,321,856 weights at 4.0
  // bits = 3,489,660,928 B. Embeddings 128,256 × 4096 fp16 = 1,050,673,152 B; norms 65 × 4096 fp16 = 532,480 B.
  // ExLlamaV2's head at 6 bits (qparams_headoptions[6]: 15 % of the 4096 input rows at 8 bits, the rest at 6, group
  // 32, 4-bit scales): 20 groups = 640 rows × 128,256 × 8 + 108 groups = 3,456 rows × 128,256 × 6 = 3,316,187,136
  // bits, + 128 groups × 48 + 128 × 128,256 × 4 + 4096 × 32 = 3,381,991,424 bits = 422,748,928 B (6.44 bits).
  CHECK(bytes_of(s, "exl2-4.0bpw") == 3'489'660'928ULL + 422'748'928 + 1'050'673'152 + 532'480);
  // ExLlamaV3: the head is a trellis at 6 bits, 525,336,576 × 6 / 8 = 394,002,432 B; every matrix adds fp16 suh
  // [in] and svh [out]: 32 × (q 8192 + k, v 5120 + o 8192 + gate, up, down 18,432) + head 132,352 = 2,753,792
  // elements = 5,507,584 B.
  CHECK(bytes_of(s, "exl3-4.0bpw") == 3'489'660'928ULL + 394'002'432 + 1'050'673'152 + 532'480 + 5'507'584);
}

TEST_CASE("the tensor groups name each kind of tensor in its format and add up to the total") {
  const auto s = mixtral();
  auto w = weights_bytes(s, parse_weight_format("mxfp4").value());
  REQUIRE(w.ok());
  std::uint64_t bytes = 0, params = 0;
  for (const auto& g : w.value().groups) {
    bytes += g.bytes;
    params += g.params;
  }
  CHECK(bytes == w.value().total);
  CHECK(params == w.value().params);
  const auto group = [&](const std::string& what) {
    for (const auto& g : w.value().groups)
      if (g.what == what) return g;
    FAIL("no group " << what);
    return WeightGroup{};
  };
  CHECK(group("routed experts").format == "mxfp4");
  CHECK(group("attention").format == "mxfp4");
  CHECK(group("router").format == "bf16");
  CHECK(group("embeddings").format == "bf16");
  CHECK(group("lm_head").format == "bf16");
  CHECK(group("norms").format == "bf16");
  // Experts: 32 layers × 8 × 3 × 4096 × 14336 = 45,097,156,608 weights at 4.25 bits.
  CHECK(group("routed experts").params == 45'097'156'608ULL);
  CHECK(group("routed experts").bytes == 45'097'156'608ULL / 32 * 17);
  CHECK(group("embeddings").bytes == 2ULL * 32000 * 4096);
}

TEST_CASE("a token reads the routed experts at the width they are stored in") {
  // The routed experts' bytes per weight, scales included, as the speed model reads them: MXFP4 4.25 bits, NVFP4
  // 4.5 bits and 8 B a matrix (768 expert matrices), W4A16 4 bits + a bf16 scale per 128 + 16 B a matrix.
  const auto s = mixtral();
  const auto expert_bits = [&](const char* format) {
    auto w = weights_bytes(s, parse_weight_format(format).value()).value();
    CHECK(w.routed_expert_params == 45'097'156'608ULL);
    return static_cast<double>(w.routed_expert_bytes) * 8 / static_cast<double>(w.routed_expert_params);
  };
  CHECK(expert_bits("mxfp4") == doctest::Approx(4.25));
  CHECK(expert_bits("nvfp4") == doctest::Approx(4.5 + 768 * 64 / 45'097'156'608.0));
  CHECK(expert_bits("w4a16") == doctest::Approx(4 + 16.0 / 128 + 768 * 128 / 45'097'156'608.0));
  CHECK(expert_bits("fp8-block") == doctest::Approx(8 + 32.0 / (128 * 128)));
}

TEST_CASE("FP8 formats need Ada or newer to compute natively, FP4 formats Blackwell") {
  const auto capability = [](const char* name) { return native_compute_capability(parse_weight_format(name).value()); };
  CHECK(capability("fp8") == 89);
  CHECK(capability("fp8-block") == 89);
  CHECK(capability("fp8-block-e8m0") == 89);
  CHECK(capability("fp8-channel") == 89);
  CHECK(capability("nvfp4") == 100);
  CHECK(capability("mxfp4") == 100);
  CHECK(capability("w8a8") == 75);
  for (const char* name : {"bf16", "int4", "w4a16", "gptq", "awq", "mlx-4bit", "exl2-4.0bpw", "q4_k_m", "nf4"}) {
    CAPTURE(name);
    CHECK(capability(name) == 0);
  }
}

TEST_CASE("\"4bit\" and \"8-bit\" as people say them are the catalog's integer formats of that width") {
  for (const char* name : {"4bit", "4-bit", "4BIT"}) CHECK(parse_weight_format(name).value().dtype == DType::int4);
  for (const char* name : {"8bit", "8-bit"}) CHECK(parse_weight_format(name).value().dtype == DType::int8);
  CHECK_FALSE(parse_weight_format("5bit").ok());
}
