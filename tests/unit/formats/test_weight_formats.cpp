// Weight memory per format, pinned to published checkpoint sizes.
#include <algorithm>  // std::count

#include "../test_support.hpp"
#include "model/hf_config.hpp"
#include "formats/weight_formats.hpp"

using namespace vramfit;

namespace {

ModelSpec llama2_7b() {  // meta-llama/Llama-2-7b-hf config.json
  return model_from_hf_config(R"({"model_type":"llama","hidden_size":4096,"num_hidden_layers":32,
    "num_attention_heads":32,"num_key_value_heads":32,"intermediate_size":11008,"vocab_size":32000,
    "max_position_embeddings":4096})").value();
}

ModelSpec llama31_8b() {  // meta-llama/Llama-3.1-8B config.json
  return model_from_hf_config(R"({"model_type":"llama","hidden_size":4096,"num_hidden_layers":32,
    "num_attention_heads":32,"num_key_value_heads":8,"intermediate_size":14336,"vocab_size":128256,
    "max_position_embeddings":131072})").value();
}

std::uint64_t bytes_of(const ModelSpec& s, const char* format) {
  auto f = parse_weight_format(format);
  REQUIRE_MESSAGE(f.ok(), format);
  auto w = weights_bytes(s, f.value());
  REQUIRE_MESSAGE(w.ok(), w.error().message);
  return w.value().total;
}

// Published sizes are the Hugging Face file listings: decimal GB (10^9 B) to 3 significant figures, so 0.01 GB
// (±5 MB) for these 2–9 GB files. The files also hold metadata, a 32k-token vocabulary (≈ 0.7 MB: 32,000 ×
// (8 B length + ~7 B text + 4 B score + 4 B type)) and ≤ 31 B of padding per tensor (291 tensors: 9 KB).
// ±0.35 % (14 MB at 4 GB) covers that and nothing like a wrong tensor type: one attn_v moved from Q4_K to Q6_K
// is only 4.4 MB, but a whole mix step (Q4_K_S → Q4_K_M) is 220 MB.
void check_published(std::uint64_t bytes, double published_gb) {
  CAPTURE(bytes);
  CHECK(static_cast<double>(bytes) / 1e9 == doctest::Approx(published_gb).epsilon(0.0035));
}

}  // namespace

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

TEST_CASE("GGUF whole-file sizes match TheBloke's Llama-2-7B-GGUF files") {
  // huggingface.co/TheBloke/Llama-2-7B-GGUF, files "made with llama.cpp commit bd33e5a". Quoted from the repo's
  // file pages (blob/<rev>/llama-2-7b.<Q>.gguf, "Size of remote file") and Files listing (tree/4407fb2):
  //   Q4_K_M "4.08 GB" (blob/b4e04e1), Q6_K "5.53 GB" (blob/b4e04e1), Q8_0 "7.16 GB" (blob/00fecde),
  //   Q4_0 "3.83 GB" (blob/984feed), Q5_K_M "4.78 GB" (blob/984feed), Q5_K_S "4.65 GB" (blob/0d67540),
  //   Q3_K_S "2.95 GB", Q3_K_M "3.3 GB", Q3_K_L "3.6 GB", Q4_K_S "3.86 GB" (tree/4407fb2), Q2_K "2.83 GB".
  const auto s = llama2_7b();
  // Q4_K_M by hand: tok_embd 131.07M·0.5625 + output 131.07M·0.8203 + 32·(q,k,o 3·16.78M·0.5625)
  //   + attn_v (16 layers Q6_K, 16 Q4_K) + gate/up 2·45.09M·0.5625·32 + ffn_down (16/16) = 4,080 MB.
  check_published(bytes_of(s, "q4_k_m"), 4.08);
  check_published(bytes_of(s, "q6_k"), 5.53);  // 6,738M · 210/256 = 5,527.6 MB
  check_published(bytes_of(s, "q8_0"), 7.16);  // 6,738M · 34/32 = 7,159.6 MB
  check_published(bytes_of(s, "q4_0"), 3.83);  // Q4_0 + output Q6_K
  check_published(bytes_of(s, "q5_k_m"), 4.78);
  check_published(bytes_of(s, "q3_k_s"), 2.95);
  check_published(bytes_of(s, "q3_k_m"), 3.30);
  check_published(bytes_of(s, "q3_k_l"), 3.60);
  check_published(bytes_of(s, "q4_k_s"), 3.86);
  check_published(bytes_of(s, "q5_k_s"), 4.65);
  // Q2_K is not pinned: llama.cpp changed its mix after TheBloke's files (2.83 GB then; 2.53 GB now, e.g.
  // huggingface.co/tensorblock/llama-2-7b-GGUF, llama.cpp b4242: "llama-2-7b-Q2_K.gguf Q2_K 2.533 GB").
}

TEST_CASE("GGUF whole-file sizes match bartowski's Meta-Llama-3.1-8B-Instruct-GGUF files") {
  // huggingface.co/bartowski/Meta-Llama-3.1-8B-Instruct-GGUF Files listing: tree/83ffb22 "Meta-Llama-3.1-8B-
  // Instruct-Q8_0.gguf 8.54 GB", "...-Q6_K.gguf 6.6 GB"; tree/4c506ee "...-Q5_K_M.gguf 5.73 GB", "...-Q4_K_M.gguf
  // 4.92 GB" (re-uploaded later; Q4_K_M still lists 4.92 GB at blob/7cbac98 and Q8_0 8.54 GB at tree/36f4a58).
  // GQA 32/8 = 4 ≥ 4. The 128k-token BPE vocabulary and its merges add ≈ 8 MB of metadata.
  const auto s = llama31_8b();
  check_published(bytes_of(s, "q8_0"), 8.54);
  check_published(bytes_of(s, "q6_k"), 6.60);
  check_published(bytes_of(s, "q5_k_m"), 5.73);
  check_published(bytes_of(s, "q4_k_m"), 4.92);
}

TEST_CASE("GPTQ and AWQ 4-bit 128g match TheBloke's Llama-2-7B checkpoints") {
  // Files listings, tree/main: huggingface.co/TheBloke/Llama-2-7B-GPTQ (4-bit, group 128, rev 60b5c75)
  // "model.safetensors 3.9 GB"; huggingface.co/TheBloke/Llama-2-7B-AWQ (rev 476ced4) "model.safetensors 3.89 GB".
  // 6,476M linear weights · 0.5 B = 3,238 MB; scales 6,476M/128 · 2 B = 101 MB; qzeros /128 · 0.5 B = 25 MB;
  // g_idx 35,584 inputs · 4 B · 32 layers = 4.6 MB (GPTQ only); embed + lm_head fp16 524 MB.
  const auto s = llama2_7b();
  check_published(bytes_of(s, "gptq-4bit-128g"), 3.90);
  check_published(bytes_of(s, "awq-4bit-128g"), 3.89);
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
  for (const char* name : {"bf16", "fp8", "int4", "nf4", "nf4-no-dq", "bnb-int8", "gptq-4bit-128g", "gptq-3bit-32g",
                           "gptq-8bit-nogroup", "awq-4bit-64g", "q4_k_m", "q3_k_s", "q8_0", "gguf-q4_k"}) {
    CAPTURE(name);
    auto f = parse_weight_format(name);
    REQUIRE(f.ok());
    CHECK(weight_format_name(f.value()) == name);
  }
  auto bad = parse_weight_format("gptq-5bit");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().field == "weights");
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
