// Training activations: Korthikanti et al. 2022 Table 2 on GPT-3 175B, and its generalisation.
#include "../training_fixtures.hpp"
#include "memory/activations.hpp"

using namespace vramfit;
using test::gpt3_175b;

namespace {
ActivationOptions gpt3_options() {
  ActivationOptions o;
  o.sequence = 2048;
  o.micro_batch = 1;
  o.flash_attention = false;  // the paper's unfused attention keeps the s×s scores
  o.dropout = true;           // GPT-3 trains with dropout: 1-byte masks
  return o;
}
constexpr std::uint64_t kSbh = 2048ULL * 1 * 12288;  // 25,165,824
// Two LayerNorms per layer also keep fp32 mean and rstd per token (8 B): Korthikanti leaves them out.
constexpr std::uint64_t kLayerNormStats = 2 * 8 * 2048;  // 32,768 B
}  // namespace

TEST_CASE("Korthikanti Table 2 per-layer formulas on GPT-3 175B") {
  // 5as/h = 5·96·2048/12288 = 80.
  const auto none = Checkpointing::none, sel = Checkpointing::selective, full = Checkpointing::full;
  CHECK(korthikanti_layer_bytes(2048, 1, 12288, 96, 1, false, none) == 114 * kSbh);  // sbh(34 + 80) = 2,868,903,936
  // t = 8: sbh(10 + 24/8 + 80/8) = 23·sbh = 578,813,952
  CHECK(korthikanti_layer_bytes(2048, 1, 12288, 96, 8, false, none) == 23 * kSbh);
  // + sequence parallel: sbh(34/8 + 80/8) = 14.25·sbh = 358,612,992
  CHECK(korthikanti_layer_bytes(2048, 1, 12288, 96, 8, true, none) == 358'612'992ULL);
  // selective recompute, t = 8: sbh(10 + 24/8) = 13·sbh = 327,155,712
  CHECK(korthikanti_layer_bytes(2048, 1, 12288, 96, 8, false, sel) == 13 * kSbh);
  // selective + sequence parallel: sbh·34/8 = 4.25·sbh = 106,954,752
  CHECK(korthikanti_layer_bytes(2048, 1, 12288, 96, 8, true, sel) == 106'954'752ULL);
  // full recompute: 2sbh = 50,331,648
  CHECK(korthikanti_layer_bytes(2048, 1, 12288, 96, 8, false, full) == 2 * kSbh);
  // The abstract's "reduces activation memory by 5x": 23 / 4.25 = 5.4 against the tensor-parallel baseline.
  const auto tp = korthikanti_layer_bytes(2048, 1, 12288, 96, 8, false, Checkpointing::none);
  const auto sel_sp = korthikanti_layer_bytes(2048, 1, 12288, 96, 8, true, sel);
  REQUIRE((tp && sel_sp));
  CHECK(static_cast<double>(*tp) / static_cast<double>(*sel_sp) > 5.0);
}

TEST_CASE("the generalised estimate reproduces Korthikanti on a GPT layer, plus LayerNorm statistics") {
  auto o = gpt3_options();
  auto e = estimate_activations(gpt3_175b(), o);
  REQUIRE(e.ok());
  CHECK(e.value().layer(0).full == 114 * kSbh + kLayerNormStats);
  CHECK(e.value().layer(0).scores == 80 * kSbh);  // 5as²b: softmax 2 + mask 1 + dropout output 2

  o.tensor_parallel = 8;
  e = estimate_activations(gpt3_175b(), o);
  REQUIRE(e.ok());
  CHECK(e.value().layer(0).full == 23 * kSbh + kLayerNormStats);  // statistics replicated like the norms

  o.sequence_parallel = true;
  e = estimate_activations(gpt3_175b(), o);
  REQUIRE(e.ok());
  CHECK(e.value().layer(0).full == 358'612'992ULL + kLayerNormStats / 8);

  o.checkpointing = Checkpointing::selective;
  e = estimate_activations(gpt3_175b(), o);
  REQUIRE(e.ok());
  CHECK(e.value().layer(0).kept == 106'954'752ULL + kLayerNormStats / 8);

  o.sequence_parallel = false;
  o.checkpointing = Checkpointing::full;
  e = estimate_activations(gpt3_175b(), o);
  REQUIRE(e.ok());
  CHECK(e.value().layer(0).kept == 2 * kSbh);  // the layer input, replicated without SP
}

TEST_CASE("FlashAttention keeps no s-squared scores, only a logsumexp per head") {
  auto o = gpt3_options();
  o.flash_attention = true;
  auto e = estimate_activations(gpt3_175b(), o);
  REQUIRE(e.ok());
  // q, k, v and the output (2sbh each = the eager 8sbh) stay; 5as²b goes; + fp32 lse 4·a·s·b = 786,432.
  CHECK(e.value().layer(0).scores == 0);
  CHECK(e.value().layer(0).full == 34 * kSbh + 4 * 96 * 2048 + kLayerNormStats);
}

TEST_CASE("without dropout there are no masks and no dropout copy of the scores") {
  auto o = gpt3_options();
  o.dropout = false;
  auto e = estimate_activations(gpt3_175b(), o);
  REQUIRE(e.ok());
  // 34 − 2 one-byte hidden masks = 32sbh; scores: softmax output only, 2as²b = 2·96·2048²·1 = 805,306,368.
  CHECK(e.value().layer(0).full == 32 * kSbh + 805'306'368ULL + kLayerNormStats);
}

TEST_CASE("a Llama layer with GQA, SwiGLU and RMSNorm keeps what autograd saves") {
  // Llama-3.1-8B: h 4096, 32 heads, 8 KV heads of 128, MLP 14336, vocab 128256; s = 4096, b = 1, bf16,
  // FlashAttention, no dropout. Bytes per token:
  //   2 RMSNorms: 2 × (2·4096 + 4 B rstd)                         = 16,392
  //   attention input 2·4096                                     =  8,192
  //   flash: q, k, v 2·(4096 + 1024 + 1024) + output 2·4096 + lse 4·32 = 20,608
  //   MLP input 2·4096                                           =  8,192
  //   SwiGLU: gate out, up out, act out, product: 4 × 2·14336    = 114,688
  //   = 168,072 B × 4096 tokens = 688,422,912 B per layer
  ActivationOptions o;
  o.sequence = 4096;
  auto e = estimate_activations(test::preset("llama-3.1-8b"), o);
  REQUIRE(e.ok());
  const auto& a = e.value();
  CHECK(a.layer(0).full == 688'422'912ULL);
  CHECK(a.layers == 32 * 688'422'912ULL);
  // fp32 logits 4·s·b·V = 4 × 4096 × 128,256 = 2,101,346,304 B: the largest single tensor, 3× a layer.
  CHECK(a.logits == 2'101'346'304ULL);
  CHECK(a.logits > a.layer(0).full);
  // Final RMSNorm (2·4096 + 4) + lm_head input 2·4096 = 16,388 B × 4096 = 67,125,248 B.
  CHECK(a.head == 67'125'248ULL);
  CHECK(a.total == a.layers + a.head + a.logits);
}

TEST_CASE("full checkpointing keeps each layer's input plus one layer being recomputed") {
  ActivationOptions o;
  o.sequence = 4096;
  o.checkpointing = Checkpointing::full;
  auto e = estimate_activations(test::preset("llama-3.1-8b"), o);
  REQUIRE(e.ok());
  CHECK(e.value().layer(0).kept == 2ULL * 4096 * 4096);  // 2sbh = 33,554,432
  CHECK(e.value().layers == 32ULL * 33'554'432);
  CHECK(e.value().recompute_peak == 688'422'912ULL);
}

TEST_CASE("LoRA on q and v keeps fewer activations: frozen linears drop their inputs") {
  // As above, but the MLP input (8,192) and the down projection's input (2·14,336) are not kept,
  // and q and v each keep their r-wide lora_A output (2 × 2·8): 168,072 − 8,192 − 28,672 + 32 = 131,240 B/token.
  ActivationOptions o;
  o.sequence = 4096;
  o.trainable = LinearSet{};
  o.trainable.q = o.trainable.v = true;
  o.lora_rank = 8;
  o.lm_head_trains = false;
  auto e = estimate_activations(test::preset("llama-3.1-8b"), o);
  REQUIRE(e.ok());
  CHECK(e.value().layer(0).full == 131'240ULL * 4096);
}

TEST_CASE("an MoE layer keeps every routed copy of a token: top-k experts") {
  // Mixtral 8x7B (h 4096, 32 heads, 8 KV heads, experts of 14336, top-2), s = 1024, flash, no dropout:
  //   norms 16,392 + attention input 8,192 + flash 20,608 + MLP input 8,192 + router fp32 softmax 4·8 = 32
  //   + per routed copy (× 2): input 8,192 + SwiGLU 114,688 + output kept by the weighting 8,192 = 131,072
  //   = 315,560 B/token × 1024 = 323,133,440 B.
  ActivationOptions o;
  o.sequence = 1024;
  auto e = estimate_activations(test::preset("mixtral-8x7b"), o);
  REQUIRE(e.ok());
  CHECK(e.value().layer(0).full == 323'133'440ULL);
  CHECK(e.value().runs.size() == 1);  // every layer is MoE
}

TEST_CASE("checkpointing names parse, and bad inputs name their field") {
  CHECK(parse_checkpointing("selective") == Checkpointing::selective);
  CHECK(parse_checkpointing("full") == Checkpointing::full);
  CHECK_FALSE(parse_checkpointing("partial").has_value());
  CHECK(checkpointing_names() == "none, selective, full");
  ActivationOptions o;
  o.sequence = 0;
  auto e = estimate_activations(test::preset("llama-3.1-8b"), o);
  REQUIRE_FALSE(e.ok());
  CHECK(e.error().field == "sequence");
  ModelSpec bare;
  bare.bare_params = 7'000'000'000;
  auto b = estimate_activations(bare, ActivationOptions{});
  REQUIRE_FALSE(b.ok());
  CHECK(b.error().field == "model");
}
