// RL fine-tuning with GRPO as TRL's GRPOTrainer runs it: each line by hand, and against Unsloth's published
// GRPO memory breakdown.
#include "../training_fixtures.hpp"
#include "model/hf_config.hpp"

#include <algorithm>  // std::max, std::min

using namespace vramfit;
using test::train;

namespace {

// meta-llama/Llama-3.1-8B's config.json (the fields the estimate reads).
ModelSpec llama31_8b() {
  auto spec = model_from_hf_config(R"({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
    "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 128256,
    "max_position_embeddings": 131072, "rms_norm_eps": 1e-5, "tie_word_embeddings": false,
    "hidden_act": "silu", "attention_dropout": 0.0})");
  REQUIRE(spec.ok());
  return spec.value();
}

constexpr std::uint64_t kParams = 8'030'261'248;   // Llama 3.1 8B, as published
constexpr std::uint64_t kVocab = 128'256;
constexpr std::uint64_t kKvPerToken = 131'072;     // 32 layers × (K, V) × 8 heads × 128 × 2 B (bf16)

TrainingOptions grpo(TrainingMode policy, GrpoOptions g = {}) {
  TrainingOptions o;
  o.mode = policy;
  o.checkpointing = Checkpointing::full;  // GRPOConfig: gradient_checkpointing=True
  o.grpo = g;
  return o;
}

}  // namespace

TEST_CASE("GRPO trains on prompt + completion and keeps the fp32 logits of the completion tokens only") {
  GrpoOptions g;
  g.prompt_tokens = 512;
  g.completion_tokens = 1536;
  auto o = grpo(TrainingMode::lora, g);
  o.parallel.micro_batch = 2;
  const auto e = train(llama31_8b(), o);
  REQUIRE(e.activations);
  // TRL passes logits_to_keep = completion + 1 and drops the last position: 2 sequences × 1536 completion tokens
  // × (4 B fp32 logits × 128,256 + 8 B int64 index) = 3072 × 513,032 = 1,576,034,304 B.
  CHECK(e.activations->logits == 3072ULL * (4 * kVocab + 8));
  // Their gradient in backward: two fp32 [tokens, vocab] buffers, 3072 × 8 × 128,256 = 3,152,019,456 B.
  CHECK(e.activations->logits_gradient == 3072ULL * 8 * kVocab);
  // The layers see every token: full checkpointing keeps each layer's bf16 input, 32 × 2 × 2048 × 4096 × 2 B.
  CHECK(e.activations->layers == 32ULL * 2 * 2048 * 4096 * 2);
}

TEST_CASE("GRPO loads a reference model only when beta is above 0 and the whole model trains") {
  const auto spec = llama31_8b();
  GrpoOptions g;
  CHECK(train(spec, grpo(TrainingMode::full, g)).breakdown.reference_model == 0);  // TRL: beta 0.0 loads none
  g.beta = 0.04;
  // A second from_pretrained of the bf16 checkpoint: 8,030,261,248 × 2 B.
  CHECK(train(spec, grpo(TrainingMode::full, g)).breakdown.reference_model == 2 * kParams);
  // With PEFT the adapter is disabled for the reference log-probs: no copy.
  CHECK(train(spec, grpo(TrainingMode::lora, g)).breakdown.reference_model == 0);
  // ZeRO-3 shards the reference over the data-parallel ranks, as DeepSpeed prepares it.
  auto o = grpo(TrainingMode::full, g);
  o.parallel.gpus = 4;
  o.parallel.zero = ZeroStage::parameters;
  CHECK(train(spec, o).breakdown.reference_model == 2 * kParams / 4);
}

TEST_CASE("GRPO's HF sampler holds the generation batch's KV cache between training steps") {
  GrpoOptions g;  // 512 + 512 tokens, 8 generations
  auto o = grpo(TrainingMode::lora, g);
  o.parallel.micro_batch = 2;
  o.parallel.gradient_accumulation = 3;
  const auto e = train(llama31_8b(), o);
  REQUIRE(e.grpo);
  // 2 × 3 = 6 completions per step round up to one group of 8 (TRL needs whole groups).
  CHECK(e.grpo->generation_batch == 8);
  // 8 sequences × 1024 tokens × 131,072 B = 1,073,741,824 B, and generate()'s fp32 next-token logits 8 × 4 × 128,256.
  CHECK(e.grpo->kv_cache == 8ULL * 1024 * kKvPerToken);
  CHECK(e.grpo->sampler_logits == 8ULL * 4 * kVocab);
  CHECK(e.grpo->sampling == e.grpo->kv_cache + e.grpo->sampler_logits);
  // Sampling and the training step take turns: the line is what sampling needs beyond the step's activations and
  // temporaries, and the lines add up to the larger phase.
  const RankMemory& b = e.breakdown;
  const std::uint64_t step = b.activations + b.temporary;
  CHECK(b.sampling == e.grpo->sampling - std::min(e.grpo->sampling, step));
  CHECK(b.total == b.weights + b.gradients + b.optimizer + b.reference_model + b.overhead +
                       std::max(step, e.grpo->sampling));
  CHECK(b.total == b.weights + b.gradients + b.optimizer + b.activations + b.temporary + b.reference_model +
                       b.sampling + b.overhead);
}

TEST_CASE("GRPO with vLLM colocated holds gpu_memory_utilization of the card through the training step") {
  GrpoOptions g;
  g.sampler = GrpoSampler::vllm_colocate;
  g.gpu_driver_bytes = 80ULL << 30;  // an 80 GiB card
  const auto e = train(llama31_8b(), grpo(TrainingMode::lora, g));
  // TRL's default vllm_gpu_memory_utilization 0.3: 0.3 × 85,899,345,920 B = 25,769,803,776 B.
  CHECK(e.breakdown.sampling == 25'769'803'776ULL);
  const RankMemory& b = e.breakdown;
  CHECK(b.total == b.weights + b.gradients + b.optimizer + b.reference_model + b.overhead + b.activations +
                       b.temporary + b.sampling);
  g.sampler = GrpoSampler::vllm_server;
  CHECK(train(llama31_8b(), grpo(TrainingMode::lora, g)).breakdown.sampling == 0);
}

TEST_CASE("GRPO against Unsloth's published breakdown for Llama 3.1 8B at 20K context and 8 generations") {
  // Unsloth, "Long-context GRPO" (unsloth.ai/blog/grpo, Feb 2025), TRL + FA2 column: "GRPO Memory Cost 78.3GB",
  // "Inference KV Cache for 20K context 2.5GB". Both follow from shapes: 8 × 20,480 tokens × 4 B × 128,256 =
  // 84,053,852,160 B = 78.28 GiB of fp32 logits, and 20,480 tokens × 131,072 B = 2.5 GiB of KV for one sequence.
  GrpoOptions g;
  g.prompt_tokens = 512;
  g.completion_tokens = 20480 - 512;
  auto o = grpo(TrainingMode::lora, g);
  o.parallel.micro_batch = 8;  // the group of 8 trains together
  const auto e = train(llama31_8b(), o);
  REQUIRE(e.activations);
  REQUIRE(e.grpo);
  const double gib = 1024.0 * 1024 * 1024;
  // vramfit keeps the completion's logits only (19,968 of 20,480 positions): 2.5 % under Unsloth's 78.3, a row of
  // tests/data/validation.json.
  CHECK(e.activations->logits == 8ULL * 19968 * (4 * kVocab + 8));
  // The sampler caches all 8 sequences of the group; Unsloth's 2.5 GB is one sequence's share.
  CHECK(e.grpo->kv_cache == 8ULL * 20480 * kKvPerToken);
  CHECK(e.grpo->kv_cache / 8 == static_cast<std::uint64_t>(2.5 * gib));
}

TEST_CASE("GRPO under ZeRO-3 gathers the whole policy before HF generate") {
  // TRL: unwrap_model_for_generation(..., gather_deepspeed3_params=ds3_gather_for_generation), True by default. On
  // 4 GPUs each rank holds a quarter of the bf16 weights and gathers the other three quarters to generate:
  // 8,030,261,248 × 2 B × 3/4 = 12,045,391,872 B.
  auto o = grpo(TrainingMode::full, {});
  o.parallel.gpus = 4;
  o.parallel.zero = ZeroStage::parameters;
  const auto e = train(llama31_8b(), o);
  REQUIRE(e.grpo);
  CHECK(e.grpo->gathered_weights == 2 * kParams - 2 * kParams / 4);
  CHECK(e.grpo->sampling == e.grpo->kv_cache + e.grpo->sampler_logits + e.grpo->gathered_weights);
}
