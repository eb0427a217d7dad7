// Distributed training memory: ZeRO stages, pipeline stages, offload; the ZeRO paper's and the seed
// article's examples.
#include "../training_fixtures.hpp"
#include "memory/parallelism.hpp"

using namespace vramfit;
using test::bare, test::states, test::train;

namespace {
// The ZeRO paper's setting: mixed-precision Adam, fp16 weights and gradients, K = 12.
TrainingOptions zero_paper(std::uint64_t gpus, ZeroStage stage) {
  TrainingOptions o;
  o.precision = Precision::mixed_fp16;
  o.grad_dtype = GradDType::half;
  o.parallel.gpus = gpus;
  o.parallel.zero = stage;
  return o;
}
}  // namespace

TEST_CASE("ZeRO paper Figure 1: 7.5B on 64 GPUs needs 120, 31.4, 16.6 and 1.9 GB per GPU") {
  // Ψ = 7.5e9, K = 12, N_d = 64:
  //   none    (2 + 2 + 12)Ψ        = 120 GB
  //   stage 1 4Ψ + 12Ψ/64          = 30 + 1.40625   = 31.40625 GB
  //   stage 2 2Ψ + 14Ψ/64          = 15 + 1.640625  = 16.640625 GB
  //   stage 3 16Ψ/64               = 1.875 GB
  const std::uint64_t psi = 7'500'000'000;
  CHECK(zero_paper_bytes(psi, 12, 64, ZeroStage::none) == 120'000'000'000ULL);
  CHECK(zero_paper_bytes(psi, 12, 64, ZeroStage::optimizer) == 31'406'250'000ULL);
  CHECK(zero_paper_bytes(psi, 12, 64, ZeroStage::gradients) == 16'640'625'000ULL);
  CHECK(zero_paper_bytes(psi, 12, 64, ZeroStage::parameters) == 1'875'000'000ULL);
  // The full estimate arrives at the same model states.
  CHECK(states(train(bare(psi), zero_paper(64, ZeroStage::none)).breakdown) == 120'000'000'000ULL);
  CHECK(states(train(bare(psi), zero_paper(64, ZeroStage::optimizer)).breakdown) == 31'406'250'000ULL);
  CHECK(states(train(bare(psi), zero_paper(64, ZeroStage::gradients)).breakdown) == 16'640'625'000ULL);
  CHECK(states(train(bare(psi), zero_paper(64, ZeroStage::parameters)).breakdown) == 1'875'000'000ULL);
}

TEST_CASE("FSDP sharding strategies are names for ZeRO stages") {
  CHECK(parse_zero("NO_SHARD") == ZeroStage::none);
  CHECK(parse_zero("shard-grad-op") == ZeroStage::gradients);
  CHECK(parse_zero("FULL_SHARD") == ZeroStage::parameters);
  CHECK(parse_zero("1") == ZeroStage::optimizer);
  CHECK(parse_zero("zero3") == ZeroStage::parameters);
  CHECK_FALSE(parse_zero("4").has_value());
  // The names the request's "zero" lists: DeepSpeed's stages, then PyTorch FSDP's ShardingStrategy names.
  CHECK(zero_names() == "0, 1, 2, 3, NO_SHARD, SHARD_GRAD_OP, FULL_SHARD");
  CHECK(fsdp_name(ZeroStage::parameters) == "FULL_SHARD");
  CHECK(parse_offload("params") == Offload::params);
  CHECK(parse_offload("cpu") == Offload::optimizer);
}

TEST_CASE("the layout multiplies micro-batch, accumulation and data parallel into the global batch") {
  ParallelOptions o;
  o.gpus = 16;
  o.tensor_parallel = 2;
  o.pipeline_parallel = 2;
  o.micro_batch = 2;
  o.gradient_accumulation = 8;
  auto l = plan_parallelism(o, 32, 32);
  REQUIRE(l.ok());
  CHECK(l.value().data_parallel == 4);  // 16 / (2 × 2)
  CHECK(l.value().global_batch == 64);  // 2 × 8 × 4
}

TEST_CASE("impossible layouts are refused with the field and what is allowed") {
  ParallelOptions o;
  o.gpus = 6;
  o.tensor_parallel = 4;
  auto l = plan_parallelism(o, 32, 32);
  REQUIRE_FALSE(l.ok());
  CHECK(l.error().field == "gpus");
  o.gpus = 8;
  o.tensor_parallel = 3;
  l = plan_parallelism(o, 32, 32);
  REQUIRE_FALSE(l.ok());
  CHECK(l.error().field == "tp");
  o.tensor_parallel = 1;
  o.offload = Offload::optimizer;
  l = plan_parallelism(o, 32, 32);
  REQUIRE_FALSE(l.ok());
  CHECK(l.error().field == "offload");
  o.zero = ZeroStage::gradients;
  o.offload = Offload::params;
  l = plan_parallelism(o, 32, 32);
  REQUIRE_FALSE(l.ok());
  CHECK(l.error().message.text.find("ZeRO stage 3") != std::string::npos);
}

TEST_CASE("1F1B: the first stage holds p micro-batches, the last one") {
  CHECK(in_flight_micro_batches(4, 8, 0) == 4);
  CHECK(in_flight_micro_batches(4, 8, 3) == 1);
  CHECK(in_flight_micro_batches(4, 2, 0) == 2);  // fewer micro-batches than stages
  CHECK(stage_layers(32, 3, 0).count == 11);
  CHECK(stage_layers(32, 3, 2).first == 22);
  CHECK(stage_layers(32, 3, 2).count == 10);
}

TEST_CASE("pipeline stages: the first holds the whole model's layer activations, the last the logits") {
  // Korthikanti eq. 5: p micro-batches × L/p layers = L layers' activations, independent of p.
  TrainingOptions o;
  o.sequence = 2048;
  o.parallel.gradient_accumulation = 8;
  const auto one = train(test::preset("llama-2-7b"), o);
  o.parallel.gpus = 4;
  o.parallel.pipeline_parallel = 4;
  const auto four = train(test::preset("llama-2-7b"), o);
  REQUIRE(four.ranks.size() == 3);
  const auto& first = four.ranks[0];
  const auto& last = four.ranks[2];
  CHECK(first.role == "first pipeline stage");
  CHECK(first.in_flight_micro_batches == 4);
  CHECK(first.activations == one.activations->layers);  // no dropout: no embedding mask
  CHECK(last.activations == one.activations->layers / 4 + one.activations->head + one.activations->logits);
  CHECK(last.temporary == one.activations->logits_gradient);
  // Embedding and lm_head are both 32000 × 4096; the last stage also holds the final RMSNorm.
  CHECK(last.params - first.params == 4096);
}

TEST_CASE("DeepSpeed's estimators, transcribed") {
  // ZeRO-2, 13B, 1 GPU, optimizer offload: GPU 2Ψ = 26 GB, CPU Ψ·max(4, 16)·1.5 = 312 GB.
  auto z2 = deepspeed_zero2_estimate(13'000'000'000, 1, 1, true);
  CHECK(z2.gpu_bytes == 26'000'000'000ULL);
  CHECK(z2.cpu_bytes == 312'000'000'000ULL);
  // No offload, 8 GPUs: 2Ψ + 18Ψ/8 = 26 + 29.25 = 55.25 GB.
  z2 = deepspeed_zero2_estimate(13'000'000'000, 8, 1, false);
  CHECK(z2.gpu_bytes == 55'250'000'000ULL);
  // ZeRO-3, 70B, largest layer 1e9, 8 GPUs, no offload: 4e9 + 18 × 70e9 / 8 = 161.5 GB.
  auto z3 = deepspeed_zero3_estimate(70'000'000'000, 1'000'000'000, 8, 1, false, false);
  CHECK(z3.gpu_bytes == 161'500'000'000ULL);
}

TEST_CASE("seed article: ZeRO-Offload of a 13B model, and what '52 GB to 20 GB' can mean") {
  // The article: ZeRO-Offload takes a 13B model "from 52 GB to about 20 GB" at 30-40 % longer training.
  // 52 GB = 4Ψ: fp16 weights + fp16 gradients; the full mixed-precision Adam states are 16Ψ = 208 GB.
  // Offloading optimizer states and gradients (ZeRO-Offload) leaves the fp16 weights, 2Ψ = 26 GB, on the
  // GPU: "~20 GB" is below even that, so it cannot be the model states of a 13B model in 16 bits.
  // The host holds 12Ψ (fp32 master, m, v) + 2Ψ (fp16 gradients) = 182 GB (ZeRO-Offload paper §4).
  auto o = zero_paper(1, ZeroStage::gradients);
  auto without = train(bare(13'000'000'000), o);
  CHECK(states(without.breakdown) == 208'000'000'000ULL);
  o.parallel.offload = Offload::optimizer;
  auto with = train(bare(13'000'000'000), o);
  CHECK(states(with.breakdown) == 26'000'000'000ULL);
  CHECK(with.host_ram_bytes == 182'000'000'000ULL);
  CHECK(with.slowdown.min == doctest::Approx(1.3));
  CHECK(with.slowdown.max == doctest::Approx(1.4));
}

TEST_CASE("seed article: 70B full training on 8x H100 needs more than ZeRO-3 alone") {
  // The article says 8× H100 (640 GB) can fully train a 70B model in FP16. Mixed-precision AdamW needs
  // 70e9 × 16 B = 1.12 TB of model states, more than the 640 GB: ZeRO-3 over 8 GPUs leaves 140 GB per
  // GPU, above an H100's 80 GiB. What works on those 8 GPUs:
  //  - ZeRO-3 + optimizer offload: 2Ψ/8 = 17.5 GB per GPU, 14Ψ = 980 GB of host RAM;
  //  - pure bf16 weights + 8-bit AdamW: (2 + 2 + 2)Ψ/8 = 52.5 GB per GPU, leaving ~30 GB for activations.
  const auto h100 = test::gpu("h100-sxm").memory_bytes;  // 80 GiB = 85,899,345,920 B
  auto o = zero_paper(8, ZeroStage::parameters);
  o.precision = Precision::mixed_bf16;
  auto e = train(bare(70'000'000'000), o);
  CHECK(states(e.breakdown) == 140'000'000'000ULL);
  CHECK(e.breakdown.total > h100);
  o.parallel.offload = Offload::optimizer;
  e = train(bare(70'000'000'000), o);
  CHECK(states(e.breakdown) == 17'500'000'000ULL);
  CHECK(e.host_ram_bytes == 980'000'000'000ULL);
  o = zero_paper(8, ZeroStage::parameters);
  o.precision = Precision::bf16;
  o.optimizer = Optimizer::adamw_8bit;
  e = train(bare(70'000'000'000), o);
  CHECK(states(e.breakdown) == 52'500'000'000ULL);
  CHECK(e.breakdown.total < h100);
  // Without offload or 8-bit states, ZeRO-3 needs ⌈1.12 TB / 80 GiB⌉ = 14 GPUs for the states alone.
  CHECK(zero_paper_bytes(70'000'000'000, 12, 14, ZeroStage::parameters) < h100);
  CHECK(zero_paper_bytes(70'000'000'000, 12, 13, ZeroStage::parameters) > h100);
}

TEST_CASE("ZeRO-Infinity: parameters to NVMe leave only gather buffers on the GPU") {
  TrainingOptions o = zero_paper(8, ZeroStage::parameters);
  o.parallel.offload = Offload::nvme;
  o.sequence = 1024;
  const auto e = train(test::preset("llama-2-7b"), o);
  CHECK(states(e.breakdown) == 0);
  // NVMe: fp16 weights 2Ψ + optimizer 12Ψ; host RAM: fp16 gradients 2Ψ (Ψ = 6,738,415,616), up to shard rounding.
  CHECK(e.nvme_bytes >= 14 * 6'738'415'616ULL);
  CHECK(e.nvme_bytes < 14 * 6'738'415'616ULL + 64);
  CHECK(e.host_ram_bytes >= 2 * 6'738'415'616ULL);
  // ZeRO-3 gathers one layer at a time: 4 × the largest matrix (the 32000 × 4096 embedding).
  CHECK(e.breakdown.temporary >= 4ULL * 32000 * 4096);
}
