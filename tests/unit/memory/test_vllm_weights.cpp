// vLLM's weights as loaded: MXFP4 experts padded to the MoE kernel's alignment. Source: vllm-project/vllm at
// 007d50058a06dec0f82472d63c819244d460c40d, vllm/model_executor/layers/quantization/mxfp4.py (get_mxfp4_backend,
// Mxfp4MoEMethod.create_weights).
#include "engine_reports.hpp"
#include "memory/engines/vllm_weights.hpp"

using namespace vramfit;

namespace {

constexpr double kGiBytes = 1073741824.0;

}  // namespace

TEST_CASE("vLLM picks its MXFP4 MoE kernel by compute capability, each padding to its own multiples") {
  // get_mxfp4_backend: Hopper runs the Triton kernels ("else: round_up(intermediate, 64)", hidden as is); the SM100
  // family FlashInfer (SM100_FI_MXFP4_BF16: both to 256); Ampere, Ada and the RTX 50 cards (no Triton kernels
  // outside (9, 0) <= cc < (11, 0)) Marlin: "n % 256 == 0 and k % 128 == 0", intermediate to 128, hidden to 256.
  CHECK(vllm_mxfp4_kernel(80).name == "Marlin");
  CHECK(vllm_mxfp4_kernel(89).intermediate_align == 128);
  CHECK(vllm_mxfp4_kernel(120).hidden_align == 256);
  CHECK(vllm_mxfp4_kernel(90).name == "Triton");
  CHECK(vllm_mxfp4_kernel(90).intermediate_align == 64);
  CHECK(vllm_mxfp4_kernel(90).hidden_align == 1);
  CHECK(vllm_mxfp4_kernel(100).name == "FlashInfer");
  CHECK(vllm_mxfp4_kernel(100).hidden_align == 256);
  CHECK(vllm_mxfp4_kernel(0).name.empty());
}

TEST_CASE("gpt-oss-20b's experts grow by 917,962,752 B under Marlin, by none under Hopper's Triton kernels") {
  // By hand, H = I = 2880, 32 experts in 24 layers. One expert as stored: gate_up 5,760 × 1,440 B of E2M1 pairs
  // = 8,294,400, 5,760 × 90 scales = 518,400, 5,760 × 2 B bias = 11,520; down 2,880 × 1,440 = 4,147,200, 2,880 × 90
  // = 259,200, 2,880 × 2 = 5,760: 13,236,480 B. Marlin: I 2,944 (23 × 128), H 3,072 (12 × 256): 5,888 × 1,536 =
  // 9,043,968 + 5,888 × 96 = 565,248 + 11,776 + 3,072 × 1,472 = 4,521,984 + 3,072 × 92 = 282,624 + 6,144 =
  // 14,431,744 B. 1,195,264 B more per expert, × 768 experts = 917,962,752 B (0.855 GiB).
  const ModelSpec spec = test::preset("gpt-oss-20b");
  CHECK(vllm_mxfp4_padding_bytes(spec, 1, vllm_mxfp4_kernel(80)) == 917'962'752ULL);
  // Triton: 2,880 = 45 × 64 already.
  CHECK(vllm_mxfp4_padding_bytes(spec, 1, vllm_mxfp4_kernel(90)) == 0);
  // FlashInfer: I and H 3,072: 6,144 × 1,536 = 9,437,184 + 6,144 × 96 = 589,824 + 12,288 + 3,072 × 1,536 = 4,718,592
  // + 3,072 × 96 = 294,912 + 6,144 = 15,058,944 B, 1,822,464 B more per expert.
  CHECK(vllm_mxfp4_padding_bytes(spec, 1, vllm_mxfp4_kernel(100)) == 768ULL * 1'822'464);
}

TEST_CASE("Under tensor parallel each rank pads its own slice of the expert width") {
  // TP 2 under Marlin: each rank holds I = 1,440, padded to 1,536 (12 × 128), H to 3,072. One rank's expert:
  // 3,072 × 1,536 = 4,718,592 + 3,072 × 96 = 294,912 + 6,144 + 3,072 × 768 = 2,359,296 + 3,072 × 48 = 147,456
  // + 6,144 = 7,532,544 B against 2,880 × 1,440 = 4,147,200 + 2,880 × 90 = 259,200 + 5,760 + 2,880 × 720 = 2,073,600
  // + 2,880 × 45 = 129,600 + 5,760 = 6,621,120 B: 911,424 B more, on each of 2 ranks, for 768 experts.
  const ModelSpec spec = test::preset("gpt-oss-20b");
  CHECK(vllm_mxfp4_padding_bytes(spec, 2, vllm_mxfp4_kernel(80)) == 2ULL * 768 * 911'424);
}

TEST_CASE("gpt-oss-20b on an A100 loads 13.72 GiB as vLLM 0.19 printed, the files' bytes and Marlin's padding") {
  // myoceane.fr/index.php/ai-vllm-a100-gemma-4 (2026-04), vLLM 0.19.0 on an A100 80GB, `vllm serve openai/gpt-oss-20b
  // --max-model-len 131072 --gpu-memory-utilization 0.65`: "Model loading took 13.72 GiB memory", "Available KV cache
  // memory: 36.56 GiB" (A100 runs MXFP4 through Marlin: cc 8.0 has no Triton kernels). The files hold 12.82 GiB;
  // with the 0.855 GiB above, 13.67 GiB (the rest, 0.05 GiB, is not modelled).
  const Report report = test::evaluate_json(R"({"model":"gpt-oss-20b","engine":"vllm","gpu":"a100-80gb-sxm",
      "context":131072,"gpu_util":0.65,"engine_version":"0.19"})");
  REQUIRE(report.estimate.vllm.has_value());
  const VllmCapacity& v = *report.estimate.vllm;
  CHECK(v.mxfp4_kernel == "Marlin");
  CHECK(v.mxfp4_padding_bytes == 917'962'752ULL);
  CHECK(report.estimate.weights == report.estimate.weight_detail.total + 917'962'752ULL);
  CHECK(static_cast<double>(v.weights_bytes) / kGiBytes == doctest::Approx(13.72).epsilon(0.005));
  // The pool: 0.65 of the 79.14 GiB CUDA reports for an A100 80GB under Linux (data/gpus.json) less the weights and
  // the profile's peak. It comes out 0.75 GiB (2.1 %) below the log's: what the sampler's dummy run of 256 rows takes
  // in vLLM 0.19 on an A100 is not modelled apart from the sort path (kVllmSamplerBytesPerLogit), which is larger.
  CHECK(static_cast<double>(v.kv_capacity_bytes) / kGiBytes == doctest::Approx(36.56).epsilon(0.025));
  bool said = false;
  for (const auto& note : report.estimate.notes) said = said || note.id == "vllm.mxfp4_padding";
  CHECK(said);
}

TEST_CASE("Other engines and other formats load what the files hold") {
  const Report sglang = test::evaluate_json(R"({"model":"gpt-oss-20b","engine":"sglang","gpu":"a100-80gb-sxm"})");
  CHECK(sglang.estimate.weights == sglang.estimate.weight_detail.total);
  const Report bf16 = test::evaluate_json(R"({"model":"gpt-oss-20b","engine":"vllm","gpu":"a100-80gb-sxm",
      "weights":"bf16"})");
  REQUIRE(bf16.estimate.vllm.has_value());
  CHECK(bf16.estimate.vllm->mxfp4_padding_bytes == 0);
}
