// Training model states: precision conventions, optimizers, LoRA and QLoRA, with their sources.
#include "../training_fixtures.hpp"
#include "model/hf_config.hpp"

using namespace vramfit;
using test::bare, test::states, test::train;

TEST_CASE("HF model memory anatomy: mixed-precision AdamW with fp32 gradients is 18 bytes per parameter") {
  // 2 B bf16 weights + 4 B fp32 master + 4 B fp32 gradients + 8 B AdamW moments = 18 B.
  TrainingOptions o;  // defaults: mixed-bf16, AdamW, gradients fp32 (the HF Trainer convention)
  const auto e = train(bare(1'000'000'000), o);
  CHECK(e.grad_dtype == GradDType::fp32);
  CHECK(e.breakdown.weights == 2'000'000'000ULL);
  CHECK(e.breakdown.gradients == 4'000'000'000ULL);
  CHECK(e.breakdown.optimizer == 12'000'000'000ULL);  // 8 B moments + 4 B master
  CHECK(e.breakdown.master_weights == 4'000'000'000ULL);
  CHECK(states(e.breakdown) == 18'000'000'000ULL);
  CHECK(e.gradient_convention.text.find("18 B/param") != std::string::npos);
}

TEST_CASE("the ZeRO paper's convention, half-precision gradients, is 16 bytes per parameter") {
  TrainingOptions o;
  o.grad_dtype = GradDType::half;
  const auto e = train(bare(1'000'000'000), o);
  CHECK(states(e.breakdown) == 16'000'000'000ULL);  // 2 + 2 + K = 12
  CHECK(e.gradient_convention.text.find("ZeRO") != std::string::npos);
}

TEST_CASE("seed article: a 7B model's '28 GB optimizer' is an undercount") {
  // The article: "14 GB weights + 28 GB optimizer (FP32) + 14 GB gradients … over 56 GB". AdamW keeps two
  // fp32 moments, 7e9 × 8 B = 56 GB, and mixed precision an fp32 master copy, 7e9 × 4 B = 28 GB: the
  // optimizer states are 84 GB (the ZeRO paper's K = 12), not 28. Fixed states: 7e9 × 16 B = 112 GB with
  // fp16 gradients (ZeRO) or 7e9 × 18 B = 126 GB with fp32 gradients (HF Trainer), twice the article's 56.
  TrainingOptions o;
  o.precision = Precision::mixed_fp16;
  o.grad_dtype = GradDType::half;
  auto e = train(bare(7'000'000'000), o);
  CHECK(e.breakdown.weights == 14'000'000'000ULL);
  CHECK(e.breakdown.gradients == 14'000'000'000ULL);
  CHECK(e.breakdown.optimizer == 84'000'000'000ULL);
  CHECK(e.breakdown.optimizer - e.breakdown.master_weights == 56'000'000'000ULL);
  CHECK(states(e.breakdown) == 112'000'000'000ULL);
  o.grad_dtype = GradDType::fp32;
  e = train(bare(7'000'000'000), o);
  CHECK(states(e.breakdown) == 126'000'000'000ULL);
}

TEST_CASE("optimizer state bytes per parameter follow each optimizer") {
  // fp32 training: no master copy, so optimizer = params × state bytes (HF model memory anatomy).
  TrainingOptions o;
  o.precision = Precision::fp32;
  auto optimizer_bytes = [&](Optimizer which) {
    o.optimizer = which;
    return train(bare(1'000'000'000), o).breakdown.optimizer;
  };
  CHECK(optimizer_bytes(Optimizer::adamw) == 8'000'000'000ULL);
  CHECK(optimizer_bytes(Optimizer::paged_adamw) == 8'000'000'000ULL);  // paging moves it, not shrinks it
  CHECK(optimizer_bytes(Optimizer::adamw_8bit) == 2'000'000'000ULL);
  CHECK(optimizer_bytes(Optimizer::paged_adamw_8bit) == 2'000'000'000ULL);
  CHECK(optimizer_bytes(Optimizer::sgd) == 0);
  CHECK(optimizer_bytes(Optimizer::sgd_momentum) == 4'000'000'000ULL);
  CHECK(optimizer_bytes(Optimizer::lion) == 4'000'000'000ULL);
  CHECK(train(bare(1'000'000'000), o).breakdown.weights == 4'000'000'000ULL);
  CHECK(train(bare(1'000'000'000), o).breakdown.gradients == 4'000'000'000ULL);
}

TEST_CASE("pure bf16 keeps no master weights and bf16 optimizer states") {
  TrainingOptions o;
  o.precision = Precision::bf16;  // gradients default to half here
  const auto e = train(bare(1'000'000'000), o);
  CHECK(e.grad_dtype == GradDType::half);
  CHECK(e.breakdown.master_weights == 0);
  CHECK(states(e.breakdown) == 8'000'000'000ULL);  // 2 + 2 + 2 × 2 B moments
}

TEST_CASE("Adafactor keeps a row and a column per matrix, not m times n") {
  // Llama-2-7B (V 32000, h 4096, i 11008, 32 layers), fp32: rows + cols
  //   embedding and lm_head 2 × (32000 + 4096) = 72,192
  //   per layer q, k, v, o 4 × 8192 + gate, up 2 × 15104 + down 15104 = 78,080; × 32 = 2,498,560
  //   1-D norms (2 per layer + final) 65 × 4096 = 266,240
  //   = 2,836,992 fp32 values = 11,347,968 B (AdamW: 6,738,415,616 × 8 B ≈ 54 GB).
  TrainingOptions o;
  o.precision = Precision::fp32;
  o.optimizer = Optimizer::adafactor;
  o.sequence = 16;
  CHECK(train(test::preset("llama-2-7b"), o).breakdown.optimizer == 11'347'968ULL);
}

TEST_CASE("PEFT: LoRA r=8 on q and v of Llama-2-7B trains 4,194,304 parameters") {
  // r·(d_in + d_out) per matrix: 8 × (4096 + 4096) × 2 matrices × 32 layers = 4,194,304, the count
  // print_trainable_parameters() prints for this setting ("all params: 6,742,609,920" = 6,738,415,616 + it).
  LinearSet qv;
  qv.q = qv.v = true;
  auto n = lora_trainable_params(test::preset("llama-2-7b"), 8, qv);
  REQUIRE(n.ok());
  CHECK(n.value() == 4'194'304ULL);
  // all-linear r=16: 16 × 78,080 (rows + cols per layer, above) × 32 = 39,976,960.
  n = lora_trainable_params(test::preset("llama-2-7b"), 16, LinearSet::all());
  REQUIRE(n.ok());
  CHECK(n.value() == 39'976'960ULL);
}

TEST_CASE("LoRA adapts DeepSeek-V2-Lite's two shared experts as the one MLP they are") {
  // transformers DeepseekV2MoE: shared_experts is one DeepseekV2MLP of width 1408 × 2 = 2816. Per r, rows + cols:
  //   attention, 27 layers: q 2048+3072, kv_a 2048+576, kv_b 512+4096, o 2048+2048 = 16,448 → 444,096
  //   layer 0, dense MLP 10944: 3 × (2048+10944) = 38,976
  //   layers 1–26: 64 experts × 3 × (2048+1408) + shared 3 × (2048+2816) + router 2048+64 = 680,256 → 17,686,656
  // 18,169,728 × r 16 = 290,715,648.
  const auto spec = model_from_hf_config(R"({"model_type":"deepseek_v2","hidden_size":2048,"num_hidden_layers":27,
    "num_attention_heads":16,"num_key_value_heads":16,"intermediate_size":10944,"moe_intermediate_size":1408,
    "n_routed_experts":64,"n_shared_experts":2,"num_experts_per_tok":6,"first_k_dense_replace":1,
    "kv_lora_rank":512,"q_lora_rank":null,"qk_nope_head_dim":128,"qk_rope_head_dim":64,"v_head_dim":128,
    "vocab_size":102400,"max_position_embeddings":163840,"tie_word_embeddings":false})").value();
  auto n = lora_trainable_params(spec, 16, LinearSet::all());
  REQUIRE(n.ok());
  CHECK(n.value() == 290'715'648ULL);
}

TEST_CASE("LoRA freezes the base: gradients and optimizer states only for the adapters") {
  TrainingOptions o;
  o.mode = TrainingMode::lora;
  o.lora_rank = 8;
  o.lora_targets = parse_lora_targets("q_proj,v_proj").value();
  o.sequence = 512;
  const auto e = train(test::preset("llama-2-7b"), o);
  CHECK(e.trainable_params == 4'194'304ULL);
  // bf16 base 6,738,415,616 × 2 B + adapters 4,194,304 × 2 B (16-bit copy; master in the optimizer).
  CHECK(e.breakdown.weights == 13'476'831'232ULL + 8'388'608ULL);
  CHECK(e.breakdown.gradients == 4'194'304ULL * 4);   // fp32 gradients
  CHECK(e.breakdown.optimizer == 4'194'304ULL * 12);  // 4 B master + 8 B AdamW
}

TEST_CASE("QLoRA double quantization costs 0.127 bits per parameter of constants") {
  // QLoRA §3: an 8-bit absmax per 64 weights and an fp32 constant per 256 blocks:
  // 8/64 + 32/(64·256) = 0.126953125 bit/param (single quantization: 32/64 = 0.5).
  const std::uint64_t n = 64 * 256 * 1000;
  const auto bytes = nf4_double_quant_bytes(n);
  REQUIRE(bytes.has_value());
  const double constant_bits = static_cast<double>(*bytes * 8 - 4 * n) / static_cast<double>(n);
  CHECK(constant_bits == doctest::Approx(0.126953125));
  CHECK(constant_bits == doctest::Approx(0.127).epsilon(0.001));
}

TEST_CASE("QLoRA stores the blocks' linear weights in NF4 and the rest in 16 bits") {
  // Llama-2-7B linear weights: 32 × (4 × 4096² + 3 × 4096 × 11008) = 6,476,005,376 → NF4+DQ
  // ceil(6,476,005,376 × 4.126953125 / 8) = 3,340,771,328 B; embeddings, lm_head and norms
  // 262,410,240 × 2 B = 524,820,480 B; adapters r=16 all-linear 39,976,960 × 2 B = 79,953,920 B.
  TrainingOptions o;
  o.mode = TrainingMode::qlora;
  o.optimizer = Optimizer::paged_adamw;
  o.sequence = 512;
  const auto e = train(test::preset("llama-2-7b"), o);
  CHECK(e.quantized_params == 6'476'005'376ULL);
  CHECK(e.breakdown.weights == 3'340'771'328ULL + 524'820'480ULL + 79'953'920ULL);
  bool paged_note = false;
  for (const auto& n : e.notes) paged_note = paged_note || n.text.find("page out to host RAM") != std::string::npos;
  CHECK(paged_note);
}

TEST_CASE("each rank's total is the sum of its lines, and every line is explained") {
  TrainingOptions o;
  o.sequence = 1024;
  o.checkpointing = Checkpointing::full;
  o.parallel.gpus = 8;
  o.parallel.pipeline_parallel = 2;
  o.parallel.zero = ZeroStage::optimizer;
  const auto e = train(test::preset("llama-3.1-8b"), o);
  REQUIRE(e.ranks.size() == 2);
  for (const auto& r : e.ranks)
    CHECK(r.total == r.weights + r.gradients + r.optimizer + r.activations + r.temporary + r.overhead);
  for (const char* key : {"weights", "gradients", "optimizer", "activations", "temporary", "overhead", "total"}) {
    bool found = false;
    for (const auto& x : e.explanations) found = found || x.key == key;
    CHECK_MESSAGE(found, key);
  }
}

TEST_CASE("names parse for every option, and impossible combinations name their field") {
  CHECK(parse_training_mode("train") == TrainingMode::full);
  CHECK(parse_training_mode("qlora") == TrainingMode::qlora);
  CHECK(parse_optimizer("paged_adamw_8bit") == Optimizer::paged_adamw_8bit);
  CHECK(parse_optimizer("adamw_torch") == Optimizer::adamw);
  CHECK_FALSE(parse_optimizer("rmsprop").has_value());
  CHECK(optimizer_names() == "adamw, adamw-8bit, paged-adamw, paged-adamw-8bit, sgd, sgd-momentum, adafactor, lion");
  CHECK(parse_grad_dtype("bf16") == GradDType::half);
  CHECK(parse_precision("mixed-fp16") == Precision::mixed_fp16);
  CHECK_FALSE(parse_lora_targets("q,x").ok());

  TrainingOptions o;
  o.precision = Precision::fp32;
  o.grad_dtype = GradDType::half;
  auto e = estimate_training(bare(1'000'000'000), o);
  REQUIRE_FALSE(e.ok());
  CHECK(e.error().field == "grad-dtype");
  o = TrainingOptions{};
  o.mode = TrainingMode::lora;
  e = estimate_training(bare(1'000'000'000), o);
  REQUIRE_FALSE(e.ok());
  CHECK(e.error().field == "mode");
}

// The page renders each explanation from its id: a layout's split picks the wording written for it.
static const Explanation& explanation(const TrainingEstimate& e, std::string_view key) {
  for (const auto& x : e.explanations)
    if (x.key == key) return x;
  FAIL("no explanation " << key);
  return e.explanations.front();
}

TEST_CASE("a formula's wording follows the split: tensor parallel, the pipeline stage's share, ZeRO's ranks") {
  // 8 GPUs = tp 2 × pp 2 × 2 data-parallel ranks; ZeRO-1 shards the optimizer states (with their master copy),
  // not the weights.
  TrainingOptions o;
  o.sequence = 1024;
  o.parallel.gpus = 8;
  o.parallel.tensor_parallel = 2;
  o.parallel.pipeline_parallel = 2;
  o.parallel.zero = ZeroStage::optimizer;
  const auto e = train(test::preset("llama-3.1-8b"), o);
  const auto& weights = explanation(e, "weights").formula;
  // The line's own formula, inside the clause for the stage's share (and ZeRO's ranks).
  CHECK(weights.id == "explain.split.staged");
  CHECK(arg_named(weights, "formula").nested.front().id == "explain.weights.formula");
  CHECK(weights.text == "trainable × weight bytes ÷ tp 2, this stage's share");
  const auto& optimizer = explanation(e, "optimizer").formula;
  CHECK(optimizer.id == "explain.split.staged_zero");
  CHECK(arg_named(optimizer, "formula").nested.front().id == "explain.optimizer.formula_master");
  CHECK(arg_named(optimizer, "dp").integer == 2);
  CHECK(optimizer.text ==
        "trainable × state bytes + trainable × 4 B fp32 master weights ÷ tp 2, this stage's share ÷ 2 data-parallel ranks");
  const auto& total = explanation(e, "total").values;
  CHECK(total.text.ends_with(" B (" + e.breakdown.role + ")"));
  CHECK(total.id == "explain.sum.equals_role");
  CHECK(arg_named(total, "role").nested.front().id ==
        (e.breakdown.role == "first pipeline stage" ? "explain.role.first_stage" : "explain.role.last_stage"));

  const auto single = train(test::preset("llama-3.1-8b"), TrainingOptions{});
  CHECK(explanation(single, "weights").formula.id == "explain.weights.formula");
  CHECK(explanation(single, "weights").formula.text == "trainable × weight bytes");
  const auto& single_total = explanation(single, "total");
  CHECK(arg_named(single_total.values, "role").nested.front().id == "explain.role.every_gpu");
  CHECK(single_total.formula.text == "weights + gradients + optimizer + activations + temporary + overhead");
}

TEST_CASE("a LoRA target error names the module and the names allowed, in a message the page translates") {
  const auto bad = parse_lora_targets("q,x");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.id == "error.lora.unknown_module");
  CHECK(bad.error().message.text == "unknown module 'x'; allowed: q, k, v, o, gate, up, down, router (comma-separated) or all-linear");
  CHECK(lora_target_names() == "q, k, v, o, gate, up, down, router (comma-separated) or all-linear");
}
