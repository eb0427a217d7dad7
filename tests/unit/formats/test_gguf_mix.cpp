// llama.cpp's file types: the per-tensor choices of src/llama-quant.cpp llama_tensor_get_type, and whole files
// pinned to published GGUF sizes.
#include "../file_builders.hpp"
#include "../test_support.hpp"
#include "format_fixtures.hpp"
#include "formats/gguf.hpp"
#include "formats/gguf_mix.hpp"
#include "formats/weight_formats.hpp"
#include "memory/inference.hpp"
#include "model/hf_config.hpp"

using namespace vramfit;
using test::bytes_of;
using test::llama2_7b;
using test::llama31_8b;

namespace {

// The type `mix` gives the tensor named `name`.
GgmlType type_of(const ModelSpec& s, GgufMix mix, const std::string& name, bool imatrix) {
  const auto tensors = enumerate_tensors(s).value();
  for (const auto& t : tensors)
    if (t.name == name) return detail::gguf_tensor_type(s, mix, t, imatrix);
  FAIL("no tensor " << name);
  return GgmlType::f32;
}
GgmlType type_of(const ModelSpec& s, GgufMix mix, const std::string& name) {
  return type_of(s, mix, name, gguf_mix_uses_imatrix(mix));
}

}  // namespace

TEST_CASE("every llama-quantize file type by its name, in any case, with or without gguf-") {
  for (const GgufMix mix : gguf_mixes()) {
    const std::string name(gguf_mix_name(mix));
    CAPTURE(name);
    CHECK(gguf_mix_by_name(name) == mix);
    std::string upper = name;
    for (char& ch : upper) ch = static_cast<char>(ch >= 'a' && ch <= 'z' ? ch - 'a' + 'A' : ch);
    CHECK(gguf_mix_by_name(upper) == mix);
    CHECK(gguf_mix_by_name("gguf-" + name) == mix);
    CHECK(gguf_mix_by_name("GGUF-" + upper) == mix);
    const auto parsed = parse_weight_format(upper);
    REQUIRE(parsed.ok());
    CHECK(weight_format_name(parsed.value()) == name);
  }
  // llama-quantize's list today (tools/quantize/quantize.cpp QUANT_OPTIONS), its aliases Q3_K/Q4_K/Q5_K aside:
  // those spell ggml tensor types here (gguf-q4_k: every matrix Q4_K).
  for (const char* name : {"Q1_0", "Q2_0", "Q4_0", "Q4_1", "MXFP4_MOE", "Q5_0", "Q5_1", "IQ2_XXS", "IQ2_XS", "IQ2_S",
                           "IQ2_M", "IQ1_S", "IQ1_M", "TQ1_0", "TQ2_0", "Q2_K", "Q2_K_S", "IQ3_XXS", "IQ3_S", "IQ3_M",
                           "IQ3_XS", "Q3_K_S", "Q3_K_M", "Q3_K_L", "IQ4_NL", "IQ4_XS", "Q4_K_S", "Q4_K_M", "Q5_K_S",
                           "Q5_K_M", "Q6_K", "Q8_0", "F16", "BF16"}) {
    CAPTURE(name);
    CHECK(gguf_mix_by_name(name).has_value());
  }
  CHECK_FALSE(gguf_mix_by_name("pure").has_value());
  CHECK_FALSE(gguf_mix_by_name("q4_k").has_value());
  CHECK(parse_weight_format("gguf-q4_k").value().gguf_mix == GgufMix::pure);
}

TEST_CASE("the IQ mixes follow llama_tensor_get_type on a grouped-query model (Llama-3.1-8B: 32 heads / 8 KV)") {
  const auto s = llama31_8b();
  using G = GgmlType;
  // IQ4_XS: attn_v Q5_K since n_gqa = 4 ≥ 4; ffn_down stays IQ4_XS with an imatrix; output Q6_K.
  CHECK(type_of(s, GgufMix::iq4_xs, "blk.0.attn_v.weight") == G::q5_k);
  CHECK(type_of(s, GgufMix::iq4_xs, "blk.0.ffn_down.weight") == G::iq4_xs);
  CHECK(type_of(s, GgufMix::iq4_xs, "token_embd.weight") == G::iq4_xs);
  CHECK(type_of(s, GgufMix::iq4_xs, "output.weight") == G::q6_k);
  // Without an importance matrix the first n/8 = 4 ffn_down go to Q5_K.
  CHECK(type_of(s, GgufMix::iq4_xs, "blk.3.ffn_down.weight", false) == G::q5_k);
  CHECK(type_of(s, GgufMix::iq4_xs, "blk.4.ffn_down.weight", false) == G::iq4_xs);
  // The 1–2 bit branch: token_embd Q2_K, output Q5_K, attn_v Q4_K (n_gqa ≥ 4), ffn_down Q2_K while
  // i_ffn_down < n/8, attn_output IQ2_XXS for IQ1_S.
  CHECK(type_of(s, GgufMix::iq2_xxs, "token_embd.weight") == G::q2_k);
  CHECK(type_of(s, GgufMix::iq2_xxs, "output.weight") == G::q5_k);
  CHECK(type_of(s, GgufMix::iq2_xxs, "blk.9.attn_v.weight") == G::q4_k);
  CHECK(type_of(s, GgufMix::iq2_xxs, "blk.3.ffn_down.weight") == G::q2_k);
  CHECK(type_of(s, GgufMix::iq2_xxs, "blk.4.ffn_down.weight") == G::iq2_xxs);
  CHECK(type_of(s, GgufMix::iq1_s, "blk.4.attn_output.weight") == G::iq2_xxs);
  CHECK(type_of(s, GgufMix::iq2_m, "blk.4.attn_output.weight") == G::iq3_s);
  CHECK(type_of(s, GgufMix::iq2_m, "blk.4.attn_q.weight") == G::iq2_s);  // IQ2_M's default type is IQ2_S
  CHECK(type_of(s, GgufMix::iq2_s, "blk.4.attn_q.weight") == G::iq2_xs);
  // IQ3_XS: attn_q/attn_k IQ3_XXS, ffn_gate/up IQ3_XXS in the middle layers [n/8, 7n/8) = [4, 28).
  CHECK(type_of(s, GgufMix::iq3_xs, "blk.0.attn_q.weight") == G::iq3_xxs);
  CHECK(type_of(s, GgufMix::iq3_xs, "blk.0.attn_k.weight") == G::iq3_xxs);
  CHECK(type_of(s, GgufMix::iq3_xs, "blk.3.ffn_up.weight") == G::iq3_s);
  CHECK(type_of(s, GgufMix::iq3_xs, "blk.4.ffn_gate.weight") == G::iq3_xxs);
  CHECK(type_of(s, GgufMix::iq3_xs, "blk.28.ffn_gate.weight") == G::iq3_s);
  // IQ3_XXS: attn_q/attn_k IQ2_S, attn_output IQ3_S, token_embd IQ3_S; without an imatrix ffn_down Q4_K/Q3_K.
  CHECK(type_of(s, GgufMix::iq3_xxs, "blk.5.attn_q.weight") == G::iq2_s);
  CHECK(type_of(s, GgufMix::iq3_xxs, "blk.5.attn_output.weight") == G::iq3_s);
  CHECK(type_of(s, GgufMix::iq3_xxs, "token_embd.weight") == G::iq3_s);
  CHECK(type_of(s, GgufMix::iq3_xxs, "blk.5.ffn_down.weight") == G::iq3_xxs);
  CHECK(type_of(s, GgufMix::iq3_xxs, "blk.3.ffn_down.weight", false) == G::q4_k);
  CHECK(type_of(s, GgufMix::iq3_xxs, "blk.5.ffn_down.weight", false) == G::q3_k);
  // IQ3_M: attn_v and attn_output Q4_K, ffn_down Q4_K in the first n/8.
  CHECK(type_of(s, GgufMix::iq3_m, "blk.20.attn_v.weight") == G::q4_k);
  CHECK(type_of(s, GgufMix::iq3_m, "blk.20.attn_output.weight") == G::q4_k);
  CHECK(type_of(s, GgufMix::iq3_m, "blk.3.ffn_down.weight") == G::q4_k);
  CHECK(type_of(s, GgufMix::iq3_m, "blk.4.ffn_down.weight") == G::iq3_s);
  // Q2_K_S: attn_v Q4_K (n_gqa ≥ 4), ffn_down Q4_K in the first n/8; ternary and Q2_0 embeddings Q4_K.
  CHECK(type_of(s, GgufMix::q2_k_s, "blk.9.attn_v.weight") == G::q4_k);
  CHECK(type_of(s, GgufMix::q2_k_s, "blk.3.ffn_down.weight") == G::q4_k);
  CHECK(type_of(s, GgufMix::q2_k_s, "blk.4.ffn_down.weight") == G::q2_k);
  CHECK(type_of(s, GgufMix::tq1_0, "token_embd.weight") == G::q4_k);
  CHECK(type_of(s, GgufMix::tq2_0, "blk.4.ffn_down.weight") == G::tq2_0);
  CHECK(type_of(s, GgufMix::q2_0, "token_embd.weight") == G::q4_k);
  CHECK(type_of(s, GgufMix::q1_0, "blk.4.ffn_up.weight") == G::q1_0);
  CHECK(type_of(s, GgufMix::q1_0, "blk.0.attn_norm.weight") == G::f32);
}

TEST_CASE("without grouped-query attention the IQ mixes keep attn_v small (Llama-2-7B: 32 heads / 32 KV)") {
  const auto s = llama2_7b();
  using G = GgmlType;
  CHECK(type_of(s, GgufMix::iq2_xxs, "blk.0.attn_v.weight") == G::q2_k);
  CHECK(type_of(s, GgufMix::iq2_m, "blk.0.attn_v.weight") == G::iq3_s);
  CHECK(type_of(s, GgufMix::iq3_xxs, "blk.0.attn_v.weight") == G::iq3_xxs);
  CHECK(type_of(s, GgufMix::iq3_xxs, "blk.0.attn_v.weight", false) == G::iq3_s);
  CHECK(type_of(s, GgufMix::iq3_s, "blk.0.attn_v.weight") == G::iq3_s);
  CHECK(type_of(s, GgufMix::iq4_xs, "blk.0.attn_v.weight") == G::iq4_xs);
  CHECK(type_of(s, GgufMix::q2_k_s, "blk.0.attn_v.weight") == G::q2_k);
}

TEST_CASE("eight experts (Mixtral-8x7B) move attn_v and attn_k to Q8_0 and attn_output to Q5_K") {
  const auto& s = test::preset("mixtral-8x7b");
  using G = GgmlType;
  CHECK(type_of(s, GgufMix::iq3_m, "blk.10.attn_v.weight") == G::q8_0);
  CHECK(type_of(s, GgufMix::iq3_m, "blk.10.attn_k.weight") == G::q8_0);
  CHECK(type_of(s, GgufMix::iq4_xs, "blk.10.attn_output.weight") == G::q5_k);
  CHECK(type_of(s, GgufMix::iq2_xxs, "blk.10.attn_k.weight") == G::q4_k);
  CHECK(type_of(s, GgufMix::iq2_xxs, "blk.10.attn_output.weight") == G::q5_k);
  // IQ3_M with 8 experts: ffn_down Q4_K where use_more_bits(i, 32) (i < 4, i ≥ 28, (i − 4) % 3 == 2).
  CHECK(type_of(s, GgufMix::iq3_m, "blk.6.ffn_down_exps.weight") == G::q4_k);
  CHECK(type_of(s, GgufMix::iq3_m, "blk.7.ffn_down_exps.weight") == G::iq3_s);
}

// The rules below quote llama.cpp src/llama-quant.cpp at commit 007dbbf3fd17eefe9b47fee45f48f7ba5e62b714.
TEST_CASE("MLA's attn_kv_b takes attn_v's rules and counts among the attn_v-like tensors (DeepSeek-V3)") {
  // "static bool category_is_attn_v(tensor_category cat) { return cat == tensor_category::ATTENTION_V ||
  // cat == tensor_category::ATTENTION_QKV || cat == tensor_category::ATTENTION_KV_B; }"; Q4_K_M: "use_more_bits(
  // qs.i_attention_wv, qs.n_attention_wv)) new_type = GGML_TYPE_Q6_K". 61 layers, one attn_kv_b each:
  // use_more_bits(i, 61) holds for i < 7, i ≥ 53 and (i − 7) % 3 == 2.
  const auto& s = test::preset("deepseek-v3");
  using G = GgmlType;
  CHECK(type_of(s, GgufMix::q4_k_m, "blk.0.attn_kv_b.weight") == G::q6_k);
  CHECK(type_of(s, GgufMix::q4_k_m, "blk.9.attn_kv_b.weight") == G::q6_k);
  CHECK(type_of(s, GgufMix::q4_k_m, "blk.10.attn_kv_b.weight") == G::q4_k);
  CHECK(type_of(s, GgufMix::q4_k_m, "blk.53.attn_kv_b.weight") == G::q6_k);
  CHECK(type_of(s, GgufMix::q3_k_l, "blk.10.attn_kv_b.weight") == G::q5_k);  // "Q3_K_L) new_type = GGML_TYPE_Q5_K"
  // The 1–2 bit branch: "if (category_is_attn_v(category)) { if (... n_expert >= 4) new_type = GGML_TYPE_Q4_K".
  CHECK(type_of(s, GgufMix::iq2_xxs, "blk.10.attn_kv_b.weight") == G::q4_k);
}

TEST_CASE("a dense hybrid's FFN counters skip its Mamba and attention blocks (Nemotron-H-56B)") {
  // layer_info: with n_expert ≤ 1 the FFN's position is qs.i_ffn_down, the ffn_down tensors met so far, of
  // n_ffn_down = hparams.n_layer_all (118). hybrid_override_pattern "M-M-M-M*-M-…": the MLP blocks are layers 1, 3,
  // 5, 8, 10, 12, 14, …, so blk.14's ffn_down is the 7th (i = 6 < 118/8 = 14: Q6_K at Q4_K_M), where its layer index
  // would give 14 (not < 14, (14 − 14) % 3 = 0: Q4_K). blk.34's is the 16th (i = 15: (15 − 14) % 3 = 1, Q4_K).
  const auto& s = test::preset("nemotron-h-56b");
  using G = GgmlType;
  CHECK(type_of(s, GgufMix::q4_k_m, "blk.14.ffn_down.weight") == G::q6_k);
  CHECK(type_of(s, GgufMix::q4_k_m, "blk.34.ffn_down.weight") == G::q4_k);
  // The converter keeps Mamba's conv kernel in F32 (convert_hf_to_gguf.py prepare_tensors: "Some tensor types are
  // always in float32 … gguf.MODEL_TENSOR.SSM_CONV1D") and llama-quantize leaves it ("do not quantize Mamba/Kimi's
  // small conv1d weights"); its A, D and norms are 1-D ("quantize only 2D and 3D tensors").
  CHECK(type_of(s, GgufMix::q4_k_m, "blk.0.ssm_conv1d.weight") == G::f32);
  CHECK(type_of(s, GgufMix::q4_k_m, "blk.0.ssm_in.weight") == G::q4_k);
  CHECK(type_of(s, GgufMix::q4_k_m, "blk.0.ssm_out.weight") == G::q4_k);
}

TEST_CASE("K-quants that do not fit a row fall back as tensor_type_fallback says") {
  // "case GGML_TYPE_Q2_K: case GGML_TYPE_Q3_K: ... return_type = GGML_TYPE_Q4_0"; "case GGML_TYPE_IQ4_XS:
  // return_type = GGML_TYPE_IQ4_NL"; "case GGML_TYPE_Q4_K: return_type = GGML_TYPE_Q5_0". gpt-oss rows are 2,880.
  ModelSpec s = test::preset("gpt-oss-20b");
  s.quantization.clear();
  using G = GgmlType;
  CHECK(type_of(s, GgufMix::q2_k, "blk.0.attn_q.weight") == G::q4_0);
  CHECK(type_of(s, GgufMix::q3_k_s, "blk.0.attn_q.weight") == G::q4_0);
  CHECK(type_of(s, GgufMix::iq4_xs, "blk.0.attn_q.weight") == G::iq4_nl);
  CHECK(type_of(s, GgufMix::q4_k_s, "blk.0.attn_q.weight") == G::q5_0);
}

TEST_CASE("GGUF whole-file sizes match bartowski's Meta-Llama-3.1-8B-Instruct-GGUF byte for byte") {
  // huggingface.co/bartowski/Meta-Llama-3.1-8B-Instruct-GGUF at revision bf5b95e96dac0462e2a09145ec66cae9a3f12067,
  // file sizes in bytes as the Hub lists them (all made with an importance matrix). The files hold metadata too:
  // the same repository's Meta-Llama-3.1-8B-Instruct-f32.gguf is 32,128,885,888 B, 4 B × 8,030,261,248 parameters
  // = 32,121,044,992 B of tensors, so header, 128,256-token vocabulary, merges and padding are 7,840,896 B; the
  // quantized files add llama-quantize's four quantize.imatrix.* keys (288 B): 7,841,184 B in each file below.
  constexpr std::uint64_t kMetadata = 7'841'184;
  CHECK(bytes_of(llama31_8b(), "fp32") + 7'840'896 == 32'128'885'888ULL);
  struct File { const char* mix; std::uint64_t bytes; };
  const File files[] = {
      {"IQ2_M", 2'948'285'856},  {"IQ3_XS", 3'518'752'160}, {"IQ3_M", 3'784'828'320}, {"IQ4_XS", 4'447'667'616},
      {"IQ4_NL", 4'677'993'888}, {"Q2_K", 3'179'136'416},   {"Q3_K_S", 3'664'504'224}, {"Q3_K_M", 4'018'922'912},
      {"Q3_K_L", 4'321'961'376}, {"Q4_K_S", 4'692'673'952}, {"Q4_K_M", 4'920'739'232}, {"Q5_K_S", 5'599'298'976},
      {"Q5_K_M", 5'732'992'416}, {"Q6_K", 6'596'011'424},   {"Q8_0", 8'540'775'840}};
  const auto s = llama31_8b();
  for (const auto& f : files) {
    CAPTURE(f.mix);
    CHECK(bytes_of(s, f.mix) + kMetadata == f.bytes);
  }
  // The imatrix-free IQ4_XS: the first 4 ffn_down in Q5_K, 4 × 14,336 × 4,096 × (176 − 136) / 256 = 36,700,160 B
  // more than the published file's tensors.
  std::uint64_t with = 0, without = 0;
  const auto tensors = enumerate_tensors(s).value();
  for (const auto& t : tensors) {
    with += ggml_bytes(detail::gguf_tensor_type(s, GgufMix::iq4_xs, t, true), t.elements()).value();
    without += ggml_bytes(detail::gguf_tensor_type(s, GgufMix::iq4_xs, t, false), t.elements()).value();
  }
  CHECK(with + kMetadata == 4'447'667'616ULL);
  CHECK(without - with == 36'700'160ULL);
}

TEST_CASE("tied embeddings and 128 experts: Llama-3.2 and Qwen3-30B-A3B GGUF files byte for byte") {
  // With tied embeddings token_embd takes the output's rule (Q6_K). Metadata is one constant per repository, as
  // above: each file minus our tensor bytes.
  // huggingface.co/bartowski/Llama-3.2-1B-Instruct-GGUF at revision 067b946cf014b7c697f3654f621d577a3e3afd1c:
  // Llama-3.2-1B-Instruct-IQ3_M.gguf 657,289,344 B, -IQ4_XS.gguf 743,141,504 B.
  const auto& one = test::preset("llama-3.2-1b");
  CHECK(657'289'344ULL - bytes_of(one, "iq3_m") == 743'141'504ULL - bytes_of(one, "iq4_xs"));
  CHECK(743'141'504ULL - bytes_of(one, "iq4_xs") == doctest::Approx(7.84e6).epsilon(0.01));
  // huggingface.co/unsloth/Llama-3.2-3B-Instruct-GGUF at revision e7d0997e49c9cb00d88b4c1a6a16aa894b0bbc31:
  // -IQ4_XS.gguf 1,829,110,208 B, -IQ4_NL.gguf 1,917,190,592 B, -Q4_K_M.gguf 2,019,377,600 B.
  const auto& three = test::preset("llama-3.2-3b");
  const std::uint64_t meta3 = 2'019'377'600ULL - bytes_of(three, "q4_k_m");
  CHECK(meta3 == doctest::Approx(7.84e6).epsilon(0.01));
  CHECK(bytes_of(three, "iq4_xs") + meta3 == 1'829'110'208ULL);
  CHECK(bytes_of(three, "iq4_nl") + meta3 == 1'917'190'592ULL);
  // huggingface.co/unsloth/Qwen3-30B-A3B-Instruct-2507-GGUF: -Q5_K_M.gguf 21,725,581,728 B, -Q6_K.gguf
  // 25,092,532,640 B, -Q8_0.gguf 32,483,932,576 B, -IQ4_XS.gguf 16,378,073,504 B. 128 experts, n_gqa 32/4 = 8:
  // IQ4_XS attn_v Q5_K, ffn_down_exps IQ4_XS. Unsloth's IQ4_XS file stores token_embd in Q4_K rather than
  // llama-quantize's IQ4_XS: 151,936 × 2,048 × (144 − 136) / 256 = 9,723,904 B more.
  const auto& qwen = test::preset("qwen3-30b-a3b");
  const std::uint64_t meta_q = 32'483'932'576ULL - bytes_of(qwen, "q8_0");
  CHECK(meta_q == doctest::Approx(5.97e6).epsilon(0.01));
  CHECK(bytes_of(qwen, "q5_k_m") + meta_q == 21'725'581'728ULL);
  CHECK(bytes_of(qwen, "q6_k") + meta_q == 25'092'532'640ULL);
  CHECK(bytes_of(qwen, "iq4_xs") + meta_q + 9'723'904 == 16'378'073'504ULL);
  CHECK(type_of(qwen, GgufMix::iq4_xs, "blk.0.attn_v.weight") == GgmlType::q5_k);
  CHECK(type_of(qwen, GgufMix::iq4_xs, "blk.0.ffn_down_exps.weight") == GgmlType::iq4_xs);
}

TEST_CASE("the 1- and 2-bit mixes of Llama-3.1-8B by hand") {
  // Tensors: token_embd and output 128,256 × 4,096 = 525,336,576 each; per layer q, o 16,777,216, k, v 4,194,304,
  // gate, up, down 58,720,256; 8,029,995,008 matrix weights; norms 65 × 4,096 F32 = 1,064,960 B.
  // IQ2_XXS: token_embd Q2_K 525,336,576 × 84/256 = 172,376,064; output Q5_K × 176/256 = 361,168,896;
  // attn_v Q4_K 32 × 4,194,304 × 144/256 = 75,497,472; ffn_down of blocks 0–3 Q2_K 4 × 58,720,256 × 84/256 =
  // 77,070,336; the other 6,610,223,104 weights IQ2_XXS × 66/256 = 1,704,198,144.
  const auto s = llama31_8b();
  CHECK(bytes_of(s, "iq2_xxs") == 172'376'064ULL + 361'168'896 + 75'497'472 + 77'070'336 + 1'704'198'144 + 1'064'960);
  // IQ1_S: the same, attn_output IQ2_XXS 32 × 16,777,216 × 66/256 = 138,412,032 and the other 6,073,352,192
  // weights IQ1_S × 50/256 = 1,186,201,600. (Bartowski lists the IQ1_S file at 2.02 GB: 2,019.6 MB with the
  // 7.84 MB of metadata above.)
  CHECK(bytes_of(s, "iq1_s") ==
        172'376'064ULL + 361'168'896 + 75'497'472 + 77'070'336 + 138'412'032 + 1'186'201'600 + 1'064'960);
  // TQ1_0: token_embd Q4_K 295,501,824, output Q6_K 430,940,160, the other 6,979,321,856 × 54/256.
  CHECK(bytes_of(s, "tq1_0") == 295'501'824ULL + 430'940'160 + 6'979'321'856ULL * 54 / 256 + 1'064'960);
}

TEST_CASE("MXFP4_MOE matches ggml-org's gpt-oss-20b GGUF") {
  // huggingface.co/ggml-org/gpt-oss-20b-GGUF at revision ef9b12f2ff56c69cf32153a02784e7a3c88bf524:
  // gpt-oss-20b-MXFP4.gguf 12,109,566,624 B. Experts (3-D) MXFP4: 24 layers × 3 × 32 × 2,880 × 2,880 at 17 B per
  // 32 = 10,152,345,600 B; every other matrix, embeddings and output included, Q8_0; router, biases, sinks, norms
  // F32. The file's metadata, the o200k_harmony vocabulary (201,088 tokens and their merges), is the ≈ 13 MB
  // (0.1 %) left: ±0.2 %.
  const auto& s = test::preset("gpt-oss-20b");
  using G = GgmlType;
  CHECK(type_of(s, GgufMix::mxfp4_moe, "blk.0.ffn_up_exps.weight") == G::mxfp4);
  CHECK(type_of(s, GgufMix::mxfp4_moe, "blk.0.ffn_down_exps.weight") == G::mxfp4);
  CHECK(type_of(s, GgufMix::mxfp4_moe, "blk.0.attn_q.weight") == G::q8_0);
  CHECK(type_of(s, GgufMix::mxfp4_moe, "output.weight") == G::q8_0);
  CHECK(type_of(s, GgufMix::mxfp4_moe, "token_embd.weight") == G::q8_0);
  CHECK(type_of(s, GgufMix::mxfp4_moe, "blk.0.ffn_gate_inp.weight") == G::f32);
  CHECK(type_of(s, GgufMix::mxfp4_moe, "blk.0.ffn_up_exps.bias") == G::f32);
  const auto bytes = static_cast<double>(bytes_of(s, "MXFP4_MOE"));
  CHECK(bytes / 12'109'566'624.0 == doctest::Approx(1.0).epsilon(0.002));
}

TEST_CASE("gpt-oss keeps its MXFP4 experts in every GGUF file type, as the published files do") {
  // The converter writes the experts in MXFP4 (llama.cpp conversion/gpt_oss.py, GptOssModel.repack_mxfp4:
  // raw_dtype=MXFP4) and llama-quantize will not requantize them (src/llama-quant.cpp at 007dbbf3: "requantizing
  // from type %s is disabled"). Only the other tensors follow the file type; their rows of 2,880 are no multiple of
  // 256, so K-quants fall back (Q4_K → Q5_0, Q6_K → Q8_0) and output.weight is Q8_0 ("nx % qk_k != 0").
  const auto& s = test::preset("gpt-oss-20b");
  const auto tensors = enumerate_tensors(s).value();
  for (const auto& t : tensors)
    if (t.name == "blk.0.ffn_down_exps.weight" || t.name == "blk.0.attn_q.weight") {
      CAPTURE(t.name);
      const bool expert = t.name.find("_exps") != std::string::npos;
      CHECK(gguf_storage_type(s, GgufMix::q4_k_m, GgmlType::q4_k, t) == (expert ? GgmlType::mxfp4 : GgmlType::q5_0));
      CHECK(gguf_storage_type(s, GgufMix::f16, GgmlType::f16, t) == (expert ? GgmlType::mxfp4 : GgmlType::f16));
      CHECK(gguf_storage_type(s, GgufMix::pure, GgmlType::q2_k, t) == (expert ? GgmlType::mxfp4 : GgmlType::q4_0));
    }
  // huggingface.co/unsloth/gpt-oss-20b-GGUF, file sizes as the Hub lists them (GB to three significant digits, so
  // ±0.05 GB). Each file holds the metadata of ggml-org's gpt-oss-20b-MXFP4.gguf (12,109,566,624 B, pinned above)
  // less its tensors. Re-typing the experts (Q4_K_M: Q5_0 for rows of 2,880) made Q4_K_M 15.4 GB.
  const std::uint64_t meta = 12'109'566'624ULL - bytes_of(s, "mxfp4_moe");
  struct File { const char* mix; double gb; };
  for (const File f : {File{"Q2_K", 11.5}, {"Q3_K_S", 11.5}, {"Q3_K_M", 11.5}, {"Q4_0", 11.5}, {"Q4_1", 11.6},
                       {"Q4_K_S", 11.6}, {"Q4_K_M", 11.6}, {"Q5_K_M", 11.7}, {"F16", 13.8}}) {
    CAPTURE(f.mix);
    CHECK(static_cast<double>(bytes_of(s, f.mix) + meta) / 1e9 == doctest::Approx(f.gb).epsilon(0.05 / f.gb));
  }
  // gpt-oss-120b: llama-bench's size column (tensor bytes, llama_model_size; 0.01 GiB) for ggml-org's
  // gpt-oss-120b-mxfp4 (59.02 GiB) and unsloth's gpt-oss-120b-F16 (60.87 GiB), both quoted in
  // community.frame.work/t/will-the-ai-max-395-128gb-be-able-to-run-gpt-oss-120b/73280/26; unsloth's Q4_K_M folder
  // is 62.8 GB on the Hub (±0.05 GB, two shards of metadata included, 26 MB at most).
  const auto& big = test::preset("gpt-oss-120b");
  const double gib = 1024.0 * 1024 * 1024;
  CHECK(static_cast<double>(bytes_of(big, "mxfp4_moe")) / gib == doctest::Approx(59.02).epsilon(0.005 / 59.02));
  CHECK(static_cast<double>(bytes_of(big, "f16")) / gib == doctest::Approx(60.87).epsilon(0.005 / 60.87));
  CHECK(static_cast<double>(bytes_of(big, "q4_k_m")) / 1e9 == doctest::Approx(62.8).epsilon(0.08 / 62.8));
}

TEST_CASE("a gpt-oss checkpoint without MXFP4 (dequantized to BF16) has its experts quantized like any other") {
  ModelSpec s = test::preset("gpt-oss-20b");
  s.quantization.clear();
  s.quantization_rules.clear();
  const auto tensors = enumerate_tensors(s).value();
  for (const auto& t : tensors)
    if (t.name == "blk.4.ffn_down_exps.weight")  // Q4_K (use_more_bits(4, 24) is false), on rows of 2,880: Q5_0
      CHECK(gguf_storage_type(s, GgufMix::q4_k_m, GgmlType::q4_k, t) == GgmlType::q5_0);
}

TEST_CASE("llama.cpp without --weights runs gpt-oss as its published MXFP4_MOE GGUF, and says so") {
  Request r;
  r.model = "gpt-oss-20b";
  r.engine = Engine::llamacpp;
  auto resolved = resolve_request(test::catalog(), r);
  REQUIRE_MESSAGE(resolved.ok(), resolved.error().message);
  CHECK(weight_format_name(*resolved.value().options.weight_format) == "mxfp4_moe");
  bool noted = false;
  for (const auto& note : resolved.value().model.notes) noted = noted || note.text.find("mxfp4_moe") != std::string::npos;
  CHECK(noted);
  r.weights = "q4_k_m";  // an explicit format stays
  CHECK(weight_format_name(*resolve_request(test::catalog(), r).value().options.weight_format) == "q4_k_m");
}

TEST_CASE("GGUF headers with MXFP4 (type 39) and Q2_0 (type 42) tensors are read and sized") {
  // ggml-common.h: block_mxfp4 = E8M0 exponent + 16 B of E2M1 pairs per 32 (17 B); block_q2_0 = half d +
  // QK2_0/4 B per QK2_0 = 64 (18 B).
  test::GgufBuilder b;
  b.str("general.architecture", "llama");
  b.tensor("blk.0.ffn_up_exps.weight", {2880, 8, 4}, GgmlType::mxfp4);
  b.tensor("blk.0.ffn_down.weight", {128, 2}, GgmlType::q2_0);
  const auto file = b.build();
  auto parsed = parse_gguf(file, file.size());
  REQUIRE_MESSAGE(parsed.ok(), parsed.error().message);
  REQUIRE(parsed.value().tensors.size() == 2);
  CHECK(parsed.value().tensors[0].bytes == 2880ULL * 8 * 4 / 32 * 17);
  CHECK(parsed.value().tensors[1].bytes == 128ULL * 2 / 64 * 18);
  CHECK(ggml_type_info(42) != nullptr);
  CHECK(ggml_bits_per_weight(ggml_type_info(GgmlType::q2_0)) == doctest::Approx(2.25));
}

TEST_CASE("a vision model's GGUF file holds no vision tower: llama.cpp loads it from the mmproj file, Ollama with it") {
  // convert_hf_to_gguf.py writes the tower only with --mmproj, into its own file that llama-server loads with
  // --mmproj (bartowski's gemma-3-4b-it: mmproj-…-f16.gguf 851 MB beside the text model's files). Gemma 3 27B's
  // tower and projector are 423,060,336 parameters: 2 B each in F16 = 846,120,672 B that Ollama, which loads its
  // projector, counts and llama.cpp does not.
  const auto& s = test::preset("gemma-3-27b");
  REQUIRE(s.vision_params == 423'060'336ULL);
  InferenceOptions o;
  o.weight_format = parse_weight_format("q4_k_m").value();
  o.engine = Engine::llamacpp;
  const auto llama = estimate_inference(s, o).value();
  o.engine = Engine::ollama;
  const auto ollama = estimate_inference(s, o).value();
  CHECK(ollama.weight_detail.total - llama.weight_detail.total == 846'120'672ULL);
  bool noted = false;
  for (const auto& note : llama.notes) noted = noted || note.id == "llamacpp.mmproj_apart";
  CHECK(noted);
}
