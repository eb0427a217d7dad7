// "What would help": each remedy re-estimated by the core. The savings are pinned by hand from the papers'
// bytes per parameter and the cache's shape, and the seed article's examples as scenarios.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <algorithm>  // std::any_of, std::none_of
#include <string>     // std::string

#include "../test_support.hpp"
#include "questions/evaluate.hpp"
#include "questions/remedies.hpp"
#include "json/request.hpp"
#include "vramfit/vramfit.hpp"

using namespace vramfit;

namespace {

RemediesReport inference_remedies(const char* json) {
  auto request = request_from_json(json);
  REQUIRE_MESSAGE(request.ok(), json);
  auto r = remedies_for(test::catalog(), request.value());
  REQUIRE_MESSAGE(r.ok(), json << ": " << (r.ok() ? "" : r.error().message.text));
  return std::move(r).value();
}

RemediesReport training_remedies(const char* json) {
  auto request = training_request_from_json(json);
  REQUIRE_MESSAGE(request.ok(), json);
  auto r = remedies_for(test::catalog(), request.value());
  REQUIRE_MESSAGE(r.ok(), json << ": " << (r.ok() ? "" : r.error().message.text));
  return std::move(r).value();
}

const Remedy* find(const RemediesReport& r, const char* id) {
  for (const Remedy& m : r.remedies)
    if (m.id == id) return &m;
  return nullptr;
}

const Remedy& get(const RemediesReport& r, const char* id) {
  const Remedy* m = find(r, id);
  REQUIRE_MESSAGE(m != nullptr, "no remedy " << id);
  return *m;
}

}  // namespace

TEST_CASE("training a bare 7B count: ZeRO-Offload and 8-bit Adam, by the bytes per parameter") {
  // Mixed-precision AdamW with fp32 gradients (HF Trainer): per parameter 2 B weights + 4 B gradients +
  // 4 B master + 8 B Adam m, v = 18 B; 18 × 7e9 = 126e9, plus the 512 MiB CUDA context (536,870,912 B).
  const RemediesReport r = training_remedies(R"({"mode":"train","params":7000000000})");
  CHECK(r.bytes == 126'536'870'912ULL);
  CHECK(r.mode == "train");
  CHECK_FALSE(r.gpu);
  // ZeRO-Offload (Ren et al. 2021) keeps only the 16-bit weights on the GPU: 16 B × 7e9 = 112e9 moves to
  // host RAM, the GPU keeps 14e9 + 536,870,912. DeepSpeed offloads a partitioned optimizer, so zero 2 too.
  const Remedy& offload = get(r, "offload-optimizer");
  CHECK(offload.saved_bytes == 112'000'000'000LL);
  CHECK(offload.bytes == 14'536'870'912ULL);
  CHECK(offload.host_ram_bytes == 112'000'000'000ULL);
  // Its explanation shows the same two totals and the change, as the page's dialog does for every number.
  CHECK(offload.explanation.key == "saved");
  CHECK(offload.explanation.values.text == "126,536,870,912 B − 14,536,870,912 B = 112,000,000,000 B");
  CHECK(offload.explanation.source.text.find("offload = optimizer, zero = 2") != std::string::npos);
  // The page words it in its language from the ids; the totals travel exact, the change as typed.
  CHECK(offload.explanation.values.id == "explain.saved.values");
  REQUIRE(offload.explanation.values.args.size() == 3);
  CHECK(offload.explanation.values.args[0].integer == 126'536'870'912LL);
  CHECK(offload.explanation.values.args[2].integer == 112'000'000'000LL);
  CHECK(offload.explanation.source.id == "explain.saved.source");
  CHECK(offload.explanation.source.args[0].text == "offload = optimizer, zero = 2");
  REQUIRE(offload.inputs.size() == 2);
  CHECK(std::string(offload.inputs[1].key) == "zero");
  CHECK(offload.inputs[1].text == "2");
  // 8-bit Adam (Dettmers et al. 2021): m and v in 1 byte each instead of 4: 6 B × 7e9 = 42e9.
  CHECK(get(r, "optimizer-8bit").saved_bytes == 42'000'000'000LL);
  // A bare count has no layers: no activations to checkpoint, no matrices for LoRA adapters.
  CHECK(find(r, "checkpointing") == nullptr);
  CHECK(find(r, "lora") == nullptr);
  REQUIRE(r.remedies.size() == 2);
  // No GPU to fit: the smaller change first, 8-bit states before states in system RAM, though it saves less.
  CHECK(r.remedies[0].id == "optimizer-8bit");
  CHECK(r.remedies[1].id == "offload-optimizer");
}

TEST_CASE("training on 4 GPUs: ZeRO-3 splits all 18 B per parameter four ways") {
  // Stage 0 keeps the whole 126e9 on every GPU; stage 3 keeps 18 × 7e9 / 4 = 31.5e9 (ZeRO, Rajbhandari et
  // al. 2020, with this convention's fp32 gradients): 94.5e9 saved per GPU.
  const RemediesReport r = training_remedies(R"({"mode":"train","params":7000000000,"gpus":4})");
  const Remedy& zero3 = get(r, "zero-3");
  CHECK(zero3.saved_bytes == 94'500'000'000LL);
  CHECK(zero3.bytes == 31'500'000'000ULL + 536'870'912ULL);
}

TEST_CASE("vLLM: an fp8 KV cache halves the cache, exactly") {
  // Llama-2-7B caches K and V for 32 layers × 32 heads × 128 dims: 2 × 32 × 4096 × 2 B per token at fp16,
  // × 4096 tokens = 2,147,483,648 B; fp8 stores 1 B per element, so 1,073,741,824 B less. vLLM sizes its
  // activations by max_num_batched_tokens, not the context, so halving the context saves the same.
  const RemediesReport r = inference_remedies(R"({"model":"llama-2-7b","engine":"vllm","context":4096})");
  const Remedy& kv = get(r, "kv-8bit");
  CHECK(kv.saved_bytes == 1'073'741'824LL);
  CHECK(kv.inputs[0].text == "fp8");
  CHECK(get(r, "context-half").saved_bytes == 1'073'741'824LL);
  CHECK(get(r, "context-half").inputs[0].number == 2048u);
  // vLLM's 8- and 4-bit formats are its own (FP8, AWQ), as --biggest tries them.
  CHECK(get(r, "weights-8bit").inputs[0].text == "fp8");
  CHECK(get(r, "weights-4bit").inputs[0].text == "awq-4bit-128g");
  CHECK(find(r, "batch-1") == nullptr);  // batch 1 already
}

TEST_CASE("vLLM on Blackwell: the 4-bit way is NVFP4, which its FP4 tensor cores multiply") {
  // Llama-2-7B's linear weights: 32 layers × (4 × 4096² + 3 × 4096 × 11008) = 6,476,005,376. NVFP4 stores each in
  // 4 bits plus one FP8 scale per 16 (0.5625 B, NVIDIA's NVFP4 layout) instead of 2 B: 1.4375 B saved each,
  // 9,309,257,728 B, less the two fp32 per-tensor scales (weight_scale_2, input_scale) of 7 × 32 tensors, 1,792 B:
  // 9,309,255,936 B of weights. The total saves less by the caching allocator's rounding: bf16's tensors are whole
  // 2 MiB multiples, NVFP4's are not, and each of the 224 large ones may round up by up to 2 MiB (469,762,048 B).
  const RemediesReport b200 = inference_remedies(R"({"model":"llama-2-7b","engine":"vllm","gpu":"b200"})");
  const Remedy& four = get(b200, "weights-4bit");
  CHECK(four.inputs[0].text == "nvfp4");
  const auto weights = [](const char* json) {
    auto report = evaluate(test::catalog(), request_from_json(json).value());
    REQUIRE(report.ok());
    return report.value().estimate.weights;
  };
  CHECK(weights(R"({"model":"llama-2-7b","engine":"vllm","gpu":"b200"})") -
            weights(R"({"model":"llama-2-7b","engine":"vllm","gpu":"b200","weights":"nvfp4"})") ==
        9'309'255'936ULL);
  CHECK(four.saved_bytes <= 9'309'255'936LL);
  CHECK(four.saved_bytes >= 9'309'255'936LL - 469'762'048LL);
  CHECK(four.cost.text.find("FP4 tensor cores") != std::string::npos);
  // The consumer Blackwell cards (sm_120, GeForce RTX 50) have them too (CUTLASS's block-scaled GEMMs for sm_120a).
  const RemediesReport rtx = inference_remedies(R"({"model":"llama-2-7b","engine":"vllm","gpu":"rtx-5090"})");
  CHECK(get(rtx, "weights-4bit").inputs[0].text == "nvfp4");
  // An H100 (sm_90) has no FP4 tensor cores: AWQ, as before Blackwell.
  const RemediesReport h100 = inference_remedies(R"({"model":"llama-2-7b","engine":"vllm","gpu":"h100-sxm"})");
  CHECK(get(h100, "weights-4bit").inputs[0].text == "awq-4bit-128g");
}

TEST_CASE("seed article: 13B in FP16 does not fit 24 GB; in INT8 it runs comfortably") {
  // "Ein 13B-Modell in FP16 belegt 26 GB. Das übersteigt die 24 GB knapp. In INT8 (13 GB) läuft die
  // Inferenz komfortabel mit Platz für den KV-Cache."
  const RemediesReport r = inference_remedies(R"({"model":"llama-2-13b","gpu":"rtx-4090","context":4096})");
  REQUIRE(r.fit.has_value());
  CHECK(*r.fit == Fit::does_not_fit);
  const Remedy& int8 = get(r, "weights-8bit");
  CHECK(int8.inputs[0].text == "bnb-int8");
  REQUIRE(int8.fit.has_value());
  CHECK(*int8.fit == Fit::fits);
  // bnb-int8 stores each linear weight in 1 byte instead of 2: 40 layers × (4 × 5120² + 3 × 5120 × 13824)
  // = 12,687,769,600 B saved on the weights, less fp32 row scales and the allocator's rounding: at least
  // 12 GB, at most that.
  CHECK(int8.saved_bytes > 12'000'000'000LL);
  CHECK(int8.saved_bytes <= 12'687'769'600LL);
  CHECK(*get(r, "weights-4bit").fit == Fit::fits);
  // Two RTX 4090s hold it, transformers placing the layers with device_map="auto" (the input gpus, estimated in
  // full): 26 GB of weights, about 13 each.
  const Remedy& more = get(r, "more-gpus");
  CHECK(more.applicable);
  CHECK(more.inputs[0].number == 2u);
  CHECK(*more.fit == Fit::fits);
}

TEST_CASE("seed article: checkpointing and LoRA for a training run that does not fit") {
  // Llama-2-7B full fine-tuning at 2048 tokens, micro-batch 4 on one A100 80 GB: far above 80 GB.
  const RemediesReport r = training_remedies(R"({"mode":"train","model":"llama-2-7b","gpu":"a100-80gb-sxm","batch":4})");
  REQUIRE(r.fit.has_value());
  CHECK(*r.fit == Fit::does_not_fit);
  for (const char* id : {"checkpointing", "lora", "qlora", "offload-optimizer", "optimizer-8bit", "micro-batch-1"})
    CHECK_MESSAGE(find(r, id) != nullptr, id);
  // Full checkpointing keeps one layer input per layer instead of all of a layer's activations (Korthikanti
  // et al.: 2sbh of sbh(34 + 5as/h) bytes): it saves most of the activations and never more than all.
  auto base = evaluate_training(test::catalog(), training_request_from_json(
                                                     R"({"mode":"train","model":"llama-2-7b","batch":4})").value());
  REQUIRE(base.ok());
  const auto activations = static_cast<std::int64_t>(base.value().estimate.breakdown.activations);
  CHECK(get(r, "checkpointing").saved_bytes > activations / 2);
  CHECK(get(r, "checkpointing").saved_bytes < activations);
  // Micro-batch 1 keeps the effective batch of 4 through gradient accumulation.
  const Remedy& micro = get(r, "micro-batch-1");
  REQUIRE(micro.inputs.size() == 2);
  CHECK(micro.inputs[1].number == 4u);
  // The fewest A100s (2, 4 or 8) that hold it with ZeRO-3: 18 B × 6,738,415,616 = 121.3 GB of states split n
  // ways, but not the activations of 4 sequences: 32 layers × 219,272 B/token (transformers with sdpa, bf16)
  // × 2048 + final norm, lm_head input and fp32 loss ≈ 14.7 GB each, 58.9 GB, plus 2.1 GB of logits gradients:
  // n = 4 needs ~92 GB, n = 8 ~77.2 GB, under 80 GiB × 0.9 = 77.3 GB.
  const Remedy& more = get(r, "more-gpus");
  CHECK(more.applicable);
  CHECK(more.inputs[0].number == 8u);
  // The A100's line is 80 GiB × 0.9 = 77.3 GB. QLoRA (12.4 GB), LoRA (22.0 GB) and ZeRO-Offload (75.0 GB) fit: they
  // come first, the smaller change first (LoRA and QLoRA change the training alike, the larger saving first; states
  // in system RAM are a larger change). Checkpointing (129 GB), micro-batch 1 (137 GB) and 8-bit Adam (142 GB) do
  // not: the closest first. More GPUs come last although 8 fit.
  std::vector<std::string> ids;
  for (const Remedy& m : r.remedies) ids.push_back(m.id);
  CHECK(ids == std::vector<std::string>{"qlora", "lora", "offload-optimizer", "checkpointing", "micro-batch-1",
                                        "optimizer-8bit", "more-gpus"});
  CHECK(r.summary.id == "remedy.summary.fits");
  // Every remedy saves at least 0.5 % of the memory before.
  for (const Remedy& m : r.remedies) CHECK(static_cast<std::uint64_t>(m.saved_bytes) * 200 >= r.bytes);
}

TEST_CASE("the remedies question: a bad input is the scenario's own error; training goes by mode") {
  const nlohmann::json bad =
      nlohmann::json::parse(answer(test::catalog(), R"({"question":"remedies","model":"llama-2-7b","context":0})"));
  CHECK(bad["ok"] == false);
  CHECK(bad["error"]["field"] == "context");
  const nlohmann::json t =
      nlohmann::json::parse(answer(test::catalog(), R"({"question":"remedies","mode":"qlora","model":"llama-2-7b"})"));
  REQUIRE(t["ok"] == true);
  CHECK(t["mode"] == "qlora");
  CHECK(t["gpu"].is_null());
  // Already QLoRA; ZeRO-Offload is offered for full fine-tuning only (a LoRA run's optimizer states are MBs).
  for (const auto& m : t["remedies"]) {
    CHECK(m["id"] != "qlora");
    CHECK(m["id"] != "offload-optimizer");
  }
  CHECK(t["notes"].is_array());
  CHECK(t["notes"].empty());  // the reservation note is vLLM's alone
}

TEST_CASE("a bare parameter count: the seed article's 14 GB, 7 GB, 3.5 GB") {
  // "Ein Modell mit 7 Milliarden Parametern belegt in FP16 rund 14 GB. In INT8 halbiert sich das auf 7 GB";
  // INT4 3.5 GB. A bare count has no cache or activations, so the savings are the weights' alone.
  const RemediesReport r = inference_remedies(R"({"params":7000000000})");
  CHECK(get(r, "weights-8bit").inputs[0].text == "int8");
  CHECK(get(r, "weights-8bit").saved_bytes == 7'000'000'000LL);
  CHECK(get(r, "weights-4bit").saved_bytes == 10'500'000'000LL);
}

TEST_CASE("the hardware decides: no bitsandbytes or DeepSpeed on Apple, no FP8 in vLLM before Ampere") {
  // bitsandbytes and DeepSpeed build for CUDA (and ROCm): an Apple GPU gets neither 8-bit Adam, QLoRA nor
  // ZeRO-Offload; LoRA and checkpointing are plain PyTorch.
  const RemediesReport mac = training_remedies(R"({"mode":"train","model":"llama-2-13b","gpu":"apple-m2-ultra-128gb"})");
  for (const char* id : {"optimizer-8bit", "qlora", "offload-optimizer"}) CHECK_MESSAGE(find(mac, id) == nullptr, id);
  CHECK(find(mac, "lora") != nullptr);
  CHECK(find(mac, "checkpointing") != nullptr);
  // llama.cpp runs on Metal: its GGUF formats stay; eager attention gets -fa with the 8-bit cache (llama.cpp
  // quantizes the V cache only with flash attention).
  const RemediesReport metal =
      inference_remedies(R"({"model":"llama-2-7b","engine":"llamacpp","weights":"f16","gpu":"apple-m3-24gb","attention":"eager","context":8192})");
  CHECK(get(metal, "weights-8bit").inputs[0].text == "q8_0");
  const Remedy& kv = get(metal, "kv-8bit");
  REQUIRE(kv.inputs.size() == 2);
  CHECK(std::string(kv.inputs[1].key) == "attention");
  CHECK(kv.inputs[1].text == "sdpa");
  // vLLM's FP8 needs compute capability 8.0 (weight-only FP8 Marlin) or 8.9; a V100 (Volta) gets AWQ only.
  const RemediesReport volta = inference_remedies(R"({"model":"llama-3.1-8b","engine":"vllm","gpu":"v100-16gb-sxm2","context":4096})");
  CHECK(find(volta, "weights-8bit") == nullptr);
  CHECK(find(volta, "weights-4bit") != nullptr);
  REQUIRE(volta.notes.size() == 1);  // vLLM reserves its share whatever the model needs
}

TEST_CASE("vLLM's FP8 remedy says where it runs natively and where weight-only, by the GPU's compute capability") {
  // FP8 tensor cores from sm_89 (Ada; Hopper sm_90): an A100 (sm_80) runs FP8 through FP8 Marlin, weight-only.
  const RemediesReport a100 = inference_remedies(R"({"model":"llama-2-7b","engine":"vllm","gpu":"a100-80gb-sxm"})");
  CHECK(get(a100, "weights-8bit").cost.text.find("(sm_80) has no FP8 tensor cores (sm_89+), so vLLM runs FP8 weight-only") !=
        std::string::npos);
  const RemediesReport h100 = inference_remedies(R"({"model":"llama-2-7b","engine":"vllm","gpu":"h100-sxm"})");
  CHECK(get(h100, "weights-8bit").cost.text.find("runs natively on the NVIDIA H100 SXM") != std::string::npos);
}

TEST_CASE("vLLM splits by tensor parallelism: the GPU count divides the heads") {
  // Llama 3.1 70B at 32k on RTX 4090s: 64 attention heads and 8 KV heads, so 2, 4 or 8 GPUs; bf16 weights
  // alone are 141 GB, more than 4 × 24 GiB × 0.9 = 92.8 GB: 8, as --tensor-parallel-size, an input to apply.
  const RemediesReport r = inference_remedies(R"({"model":"llama-3.1-70b","engine":"vllm","gpu":"rtx-4090","context":32768})");
  CHECK(find(r, "more-gpus") == nullptr);
  const Remedy& tp = get(r, "tensor-parallel");
  REQUIRE(tp.inputs.size() == 1);
  CHECK(std::string(tp.inputs[0].key) == "tp");
  CHECK(tp.inputs[0].number == 8u);
  CHECK(tp.cost.text.find("--tensor-parallel-size 8") != std::string::npos);
  CHECK(tp.applicable);
  CHECK(*tp.fit == Fit::fits);
}

TEST_CASE("vLLM on one H100 too small for Llama-3.3-70B FP8 at 16k: tensor parallel 2, as llm-d-benchmark ran it") {
  // llm-d-benchmark (vLLM 0.11.0, H100, util 0.9, max_model_len 16000): at TP1 "Model loading took: 67.72 GiB",
  // "Available KV cache memory: -1.44 GiB"; at TP2 "Model loading took: 33.88 GiB", "Available KV cache memory:
  // 32.0 GiB" per GPU.
  // https://github.com/llm-d/llm-d-benchmark/blob/4f4d44943c39b76b28e30dfa1fb0dfaf1ee894b5/config_explorer/empirical-vllm-memory-results.md
  const RemediesReport r = inference_remedies(R"({"model":"llama-3.3-70b","weights":"fp8","engine":"vllm","gpu":"h100-sxm","context":16000})");
  CHECK(*r.fit == Fit::does_not_fit);
  const Remedy& tp = get(r, "tensor-parallel");
  CHECK(tp.inputs[0].number == 2u);
  CHECK(*tp.fit == Fit::fits);
}

TEST_CASE("llama.cpp on a card too small: the most layers that fit, the rest on the CPU") {
  // Llama-2-13B in q8_0 (8.5 bits per weight) at 4096 tokens needs ~17.7 GB; an RTX 4060 has 8 GiB. Each
  // repeating layer holds 317,194,240 weights × 34/32 B = 337,018,880 B plus its f16 KV cache, 2 × 5120 ×
  // 2 B × 4096 = 83,886,080 B: 0.42 GB a layer, so at most 8 GiB × 0.9 / 0.42 GB ≈ 18 layers can go on it.
  // With -ngl 41 given (every layer and the output) it does not fit; the remedy is the -ngl that does.
  const RemediesReport r = inference_remedies(
      R"({"model":"llama-2-13b","engine":"llamacpp","weights":"q8_0","gpu":"rtx-4060","context":4096,"gpu_layers":41})");
  const Remedy& ngl = get(r, "gpu-layers");
  CHECK_FALSE(ngl.applicable);
  REQUIRE(ngl.inputs[0].number.has_value());
  const std::uint64_t n = *ngl.inputs[0].number;
  CHECK(n >= 10);
  CHECK(n <= 18);
  CHECK(*ngl.fit == Fit::tight);  // the colour of running with part of the model in system RAM
  CHECK(ngl.host_ram_bytes > 0);
  CHECK(*ngl.verdict == VerdictKind::runs_split);
  CHECK(r.remedies.front().id == "gpu-layers");  // the only single change that runs
  // The bisection's answer is the largest: one more layer no longer fits with the headroom.
  auto one_more = request_from_json(R"({"model":"llama-2-13b","engine":"llamacpp","weights":"q8_0","gpu":"rtx-4060","context":4096})");
  REQUIRE(one_more.ok());
  one_more.value().gpu_layers = n + 1;
  auto report = evaluate(test::catalog(), one_more.value());
  REQUIRE(report.ok());
  CHECK(report.value().gpus.front().fit != Fit::fits);
  // llama.cpp splits by layers, not tensors: the split's cost says so.
  CHECK(get(r, "more-gpus").cost.text.find("--split-mode layer") != std::string::npos);
  // Without -ngl, llama.cpp's --fit places the layers itself (the headline says so): no -ngl remedy repeats it.
  const RemediesReport fitted = inference_remedies(R"({"model":"llama-2-13b","engine":"llamacpp","weights":"q8_0","gpu":"rtx-4060","context":4096})");
  CHECK(*fitted.verdict == VerdictKind::runs_split);
  CHECK(fitted.host_ram_bytes > 0);
  CHECK(find(fitted, "gpu-layers") == nullptr);
  CHECK(find(fitted, "offload") == nullptr);
}

TEST_CASE("FlashAttention drops the s² scores and keeps one fp32 statistic per row") {
  // Llama-2-7B, 2048 tokens, micro-batch 1, no dropout. transformers' eager attention keeps the fp32 softmax
  // and its bf16 cast, (4 + 2)·a·s = 6 × 32 × 2048 = 393,216 B per token and layer; SDPA keeps instead the
  // fp32 log-sum-exp, 4·a = 128 B (Dao et al. 2022): 32 layers × 2048 × 393,088 = 25,761,415,168 B. The
  // backward's largest temporary drops from one layer's score gradients, (2·2 + 4)·32·2048 × 2048 tokens =
  // 1,073,741,824 B, to the loss's two fp32 logits gradients, 8 × 32000 × 2048 = 524,288,000 B: 549,453,824 B.
  // Saved: 26,310,868,992 B.
  const RemediesReport r = training_remedies(R"({"mode":"train","model":"llama-2-7b","attn_implementation":"eager"})");
  const Remedy& flash = get(r, "flash-attention");
  CHECK(flash.saved_bytes == 26'310'868'992LL);
  CHECK(std::string(flash.inputs[0].key) == "attn_implementation");
  CHECK(flash.inputs[0].text == "sdpa");
  // Megatron's unfused attention keeps the scores too: the same switch applies.
  const RemediesReport m = training_remedies(R"({"mode":"train","model":"llama-2-7b","attn_implementation":"megatron"})");
  CHECK(get(m, "flash-attention").saved_bytes > 0);
  // Already SDPA: nothing to switch.
  const RemediesReport sdpa = training_remedies(R"({"mode":"train","model":"llama-2-7b"})");
  CHECK(std::none_of(sdpa.remedies.begin(), sdpa.remedies.end(), [](const Remedy& x) { return x.id == "flash-attention"; }));
}

TEST_CASE("mixed precision from fp32: bf16 where the GPU has it, fp16 on a V100") {
  // A LoRA run in fp32 keeps its frozen weights and activations in 4 bytes; mixed precision halves both. The
  // V100 (Volta) has no bf16 tensor cores, so its mix is fp16 with loss scaling; an A100 gets bf16.
  const RemediesReport volta = training_remedies(R"({"mode":"lora","model":"llama-2-7b","precision":"fp32","gpu":"v100-32gb-sxm2"})");
  CHECK(get(volta, "mixed-precision").inputs[0].text == "mixed-fp16");
  // The frozen weights alone go from 4 to 2 bytes: at least 2 × 6,738,415,616 = 13,476,831,232 B saved.
  CHECK(get(volta, "mixed-precision").saved_bytes >= 13'476'831'232LL);
  const RemediesReport ampere = training_remedies(R"({"mode":"lora","model":"llama-2-7b","precision":"fp32","gpu":"a100-80gb-sxm"})");
  CHECK(get(ampere, "mixed-precision").inputs[0].text == "mixed-bf16");
}

TEST_CASE("two GPUs too small: more of them, and for llama.cpp the most layers the two hold (-ngl)") {
  // Llama 3.3 70B in Q8_0 at 8192 tokens on 2 × RTX 4090: the weights alone, 70.6 B × 8.5 bits ≈ 75 GB, pass
  // 2 × 24 GiB × 0.9 = 46.4 GB but not 4 × 24 GiB × 0.9 = 92.8 GB (with 80 layers' 1.3 GB of f16 KV): 4 GPUs.
  const char* two = R"({"model":"llama-3.3-70b","engine":"llamacpp","weights":"q8_0","gpu":"rtx-4090","gpus":2,"context":8192})";
  const RemediesReport r = inference_remedies(two);
  CHECK(*r.fit == Fit::does_not_fit);
  const Remedy& more = get(r, "more-gpus");
  CHECK(std::string(more.inputs[0].key) == "gpus");
  CHECK(more.inputs[0].number == 4u);
  CHECK(more.cost.text.find("4 × GeForce RTX 4090 with --split-mode layer") != std::string::npos);
  CHECK(*more.fit == Fit::fits);
  // -ngl over both: each layer is 0.85 GB of weights and 16 MiB of KV, so about 2 × 21.6 GiB / 0.87 GB ≈ 53 layers
  // at most, fewer for the compute buffers and CUDA contexts; the largest count that fits, one more does not.
  const Remedy& ngl = get(r, "gpu-layers");
  CHECK_FALSE(ngl.applicable);
  CHECK(ngl.cost.id.starts_with("remedy.gpu_layers_split"));
  const std::uint64_t n = *ngl.inputs[0].number;
  CHECK(n >= 40);
  CHECK(n <= 53);
  auto request = request_from_json(two);
  REQUIRE(request.ok());
  for (const std::uint64_t layers : {n, n + 1}) {
    Request v = request.value();
    v.gpu_layers = layers;
    auto after = evaluate(test::catalog(), v);
    REQUIRE(after.ok());
    CHECK((after.value().gpus.front().fit == Fit::fits) == (layers == n));
    const auto& notes = after.value().estimate.notes;
    CHECK(std::any_of(notes.begin(), notes.end(), [](const Message& m) { return m.id == "llamacpp.split_gpus_ngl"; }));
  }
  // vLLM on 2 × RTX 4090 given as gpus: more of them as gpus, served tensor parallel (64 heads, 8 KV heads divide 4).
  const RemediesReport v = inference_remedies(
      R"({"model":"llama-3.3-70b","engine":"vllm","weights":"fp8","gpu":"rtx-4090","gpus":2,"context":8192})");
  const Remedy& served = get(v, "more-gpus");
  CHECK(std::string(served.inputs[0].key) == "gpus");
  CHECK(served.inputs[0].number == 4u);
  CHECK(served.cost.text.find("--tensor-parallel-size 4") != std::string::npos);
  CHECK(find(v, "tensor-parallel") == nullptr);
}

TEST_CASE("different cards together: no saving is given, as the fullest card changes between variants; said so") {
  // A 70B at Q4_K_M over an RTX 3090 and an RTX 4060 Ti: the 3090's part is the fuller (26.75 GB of its 25.77 GB),
  // while half the context moves the split, so a "saving" would set one card's part against the other's.
  // As the remedies question reads it (parse_request: outside the ranking the names are the cards one has).
  auto parsed = parse_request(
      R"({"model":"llama-3.1-70b","weights":"q4_k_m","engine":"llamacpp","context":4096,"gpus":"rtx-3090,rtx-4060-ti-16gb"})");
  REQUIRE(parsed.ok());
  REQUIRE(parsed.value().inference.devices.size() == 2);
  auto answered = remedies_for(test::catalog(), parsed.value().inference);
  REQUIRE(answered.ok());
  const RemediesReport& r = answered.value();
  CHECK(r.remedies.empty());
  REQUIRE(r.notes.size() == 1);
  CHECK(r.notes.front().id == "remedy.unlike_cards");
}

namespace {

std::vector<std::string> ids_of(const RemediesReport& r) {
  std::vector<std::string> ids;
  for (const Remedy& m : r.remedies) ids.push_back(m.id);
  return ids;
}

}  // namespace

TEST_CASE("the order: what fits the GPU first, the smallest change first, more GPUs last") {
  // Llama 2 13B at 4096 tokens on one RTX 4090 (transformers): 24 GiB usable, the line at 0.9 × 25,769,803,776 B =
  // 23,192,823,398 B. bf16 weights alone are 13,015,864,320 × 2 B = 26.0 GB: it does not fit.
  // - 8-bit (bnb-int8) keeps 1 B per linear weight: ~17.9 GB, fits; 4-bit (nf4) ~11.7 GB, fits. Both fit, so the
  //   smaller change comes first, 8-bit before 4-bit, although 4-bit saves more.
  // - llama.cpp with the bf16 weights keeps ~32 of 40 layers on the GPU (each 317,194,240 × 2 B + its f16 KV cache
  //   2 × 5120 × 2 B × 4096 = 0.72 GB) and the rest in system RAM: it runs, with a cost, after what fits.
  // - Half the context saves 40 × 2 × 5120 × 2 B × 2048 = 1.68 GB of KV cache: still above 24 GiB, does not fit.
  // - 2 × RTX 4090 fit, but more GPUs come last.
  const RemediesReport r = inference_remedies(R"({"model":"llama-2-13b","gpu":"rtx-4090","context":4096})");
  CHECK(ids_of(r) == std::vector<std::string>{"weights-8bit", "weights-4bit", "offload", "context-half", "more-gpus"});
  CHECK(*get(r, "weights-8bit").fit == Fit::fits);
  CHECK(get(r, "weights-4bit").saved_bytes > get(r, "weights-8bit").saved_bytes);
  CHECK(*get(r, "offload").verdict == VerdictKind::runs_split);
  CHECK(*get(r, "context-half").fit == Fit::does_not_fit);
  CHECK(*get(r, "more-gpus").fit == Fit::fits);
  CHECK(r.summary.id == "remedy.summary.fits");
  CHECK(r.summary.text == "What fits on your GeForce RTX 4090 comes first, the smallest change first.");
  // Two changes together only where no single one fits: here none.
  for (const Remedy& m : r.remedies) CHECK_MESSAGE(m.parts.size() == 1, m.id);
}

TEST_CASE("one RTX 4090 and Llama 3.1 70B: llama.cpp with the rest in system RAM first, more GPUs last") {
  // Llama 3.1 70B in bf16: 80 layers of 8192² × 2 (q, o) + 8192 × 1024 × 2 (k, v) + 3 × 8192 × 28672 (MLP) =
  // 855,638,016 weights, 1.71 GB a layer; 141 GB in all against 24 GiB. Nothing of transformers' fits: 8-bit
  // ~78 GB, 4-bit ~45 GB. llama.cpp's --fit measures the GPU's free memory less a 1 GiB margin, ~22 GiB, so about
  // 22 × 1.074 GB / 1.71 GB ≈ 13 bf16 layers go on it, the rest stay in system RAM. In Q4_K_M (~4.85 bits a weight,
  // 0.52 GB a layer) about 42 layers. No single change fits, so two together are tried: 4-bit with llama.cpp's
  // placement keeps about 42 layers on the GPU. More GPUs come last: 141 GB over 8 cards is ~18 GB each.
  const RemediesReport r = inference_remedies(R"({"model":"llama-3.1-70b","gpu":"rtx-4090"})");
  CHECK(*r.verdict == VerdictKind::does_not_fit);
  REQUIRE_FALSE(r.remedies.empty());
  const Remedy& first = r.remedies.front();
  CHECK((first.id == "offload" || first.id == "weights-4bit+offload"));
  CHECK(*first.verdict == VerdictKind::runs_split);
  CHECK(first.host_ram_bytes > 100'000'000'000ULL);  // bf16: ~67 of 80 layers × 1.71 GB
  CHECK(std::string(first.inputs[0].key) == "engine");
  CHECK(first.inputs[0].text == "llamacpp");
  CHECK(first.cost.text.find("llama.cpp from a GGUF file: 13 of 80 layers on the GPU as --fit places them") != std::string::npos);
  CHECK(first.cost.text.find("tokens/s") != std::string::npos);  // the speed of that placement
  CHECK(first.applicable);  // engine, context and weights are the page's inputs: --fit needs no -ngl
  const Remedy& q4 = get(r, "weights-4bit+offload");
  CHECK(q4.parts == std::vector<std::string>{"weights-4bit", "offload"});
  CHECK(q4.inputs.size() == 3);
  for (const RemedyInput& in : q4.inputs)
    if (std::string(in.key) == "weights") CHECK(in.text == "q4_k_m");
  CHECK(q4.cost.text.find("42 of 80 layers") != std::string::npos);
  CHECK(q4.host_ram_bytes < first.host_ram_bytes / 4);
  CHECK(*get(r, "weights-4bit").fit == Fit::does_not_fit);
  const Remedy& last = r.remedies.back();
  CHECK(last.id == "more-gpus");
  CHECK(last.inputs[0].number == 8u);
  CHECK(r.summary.id == "remedy.summary.runs");
}

TEST_CASE("a 24 GB card and a 32B model in bf16: 4-bit fits, and comes first") {
  // Qwen2.5 32B at 4096 tokens on one RTX 4090 (transformers): bf16 weights are 65.5 GB. In NF4 the 31.2 B linear
  // weights take 4.127 bits each (QLoRA §3), 16.1 GB, beside the untied 16-bit embedding and lm_head, 2 × 152,064 ×
  // 5120 × 2 B = 3.1 GB, and a KV cache of 64 layers × 2 × 1024 × 2 B × 4096 = 1.07 GB: about 22 GB, under the
  // 23.19 GB line. 8-bit (~34.5 GB) does not fit.
  const RemediesReport r = inference_remedies(R"({"model":"qwen2.5-32b","gpu":"rtx-4090","context":4096})");
  REQUIRE_FALSE(r.remedies.empty());
  CHECK(r.remedies.front().id == "weights-4bit");
  CHECK(*r.remedies.front().fit == Fit::fits);
  CHECK(r.remedies.front().bytes < 23'192'823'398ULL);
  CHECK(*get(r, "weights-8bit").fit == Fit::does_not_fit);
  CHECK(r.remedies.back().id == "more-gpus");
}

TEST_CASE("only two changes together fit: 4-bit weights and an 8-bit KV cache on 2 × RTX 4090") {
  // Llama 3.3 70B in Q8_0 at 8192 tokens over 2 × RTX 4090 (llama.cpp): in Q4_K_M it lands just above the 23.19 GB
  // line on each card (tight). An 8-bit KV cache stores 2 × 1024 × 34/32 B per token and layer instead of 2 × 1024 ×
  // 2 B: 1920 B × 80 layers × 8192 tokens = 1,258,291,200 B less, 629,145,600 B on each card: together they fit.
  const RemediesReport r = inference_remedies(
      R"({"model":"llama-3.3-70b","engine":"llamacpp","weights":"q8_0","gpu":"rtx-4090","gpus":2,"context":8192})");
  const Remedy& four = get(r, "weights-4bit");
  CHECK(*four.fit == Fit::tight);
  for (const Remedy& m : r.remedies)
    if (m.parts.size() == 1 && m.id != "more-gpus") CHECK_MESSAGE(*m.fit != Fit::fits, m.id);
  const Remedy& first = r.remedies.front();
  CHECK(first.id == "weights-4bit+kv-8bit");
  CHECK(*first.fit == Fit::fits);
  CHECK(four.bytes - first.bytes >= 629'145'600ULL);
  CHECK(first.cost.id == "remedy.both");
  // The pair's inputs are both changes': what the page applies at once.
  REQUIRE(first.inputs.size() == 2);
  CHECK(std::string(first.inputs[0].key) == "weights");
  CHECK(std::string(first.inputs[1].key) == "kv_dtype");
  CHECK(r.remedies.back().id == "more-gpus");
  CHECK(r.summary.id == "remedy.summary.fits");
}

TEST_CASE("nothing runs: the summary says so, with the closest change's shortfall") {
  // A bare 100 B count on one RTX 4090: bf16 200 GB, int8 100 GB, int4 50 GB, each with the 570,425,344 B of CUDA
  // context and cuBLAS workspace. The closest, int4: 50,570,425,344 − 25,769,803,776 = 24,800,621,568 B short, 24.8 GB.
  // A bare count has no layers for llama.cpp to place, nor to split over more GPUs.
  const RemediesReport r = inference_remedies(R"({"params":100000000000,"gpu":"rtx-4090"})");
  CHECK(ids_of(r) == std::vector<std::string>{"weights-4bit", "weights-8bit"});
  CHECK(r.remedies.front().free_bytes == -24'800'621'568LL);
  CHECK(r.summary.id == "remedy.summary.short");
  CHECK(r.summary.text ==
        "Nothing here runs on your GeForce RTX 4090: the closest change, listed first, is still 24.8 GB short.");
}

TEST_CASE("Ollama: the 8-bit cache's wording follows the version's flash attention") {
  // Up to 0.11.10 OLLAMA_KV_CACHE_TYPE applies only with OLLAMA_FLASH_ATTENTION=1 (Ollama FAQ); from 0.30
  // llm/llama_server.go passes it as --cache-type-k/v and leaves flash attention to llama-server (--flash-attn auto)
  // unless OLLAMA_FLASH_ATTENTION is set, and llama.cpp refuses a quantized V cache without it.
  const RemediesReport old = inference_remedies(R"({"model":"llama-3.1-8b","engine":"ollama","engine_version":"0.11.10",
      "context":32768})");
  CHECK(get(old, "kv-8bit").cost.id == "remedy.kv_q8_0_ollama");
  const RemediesReport now = inference_remedies(R"({"model":"llama-3.1-8b","engine":"ollama","context":32768})");
  CHECK(get(now, "kv-8bit").cost.id == "remedy.kv_q8_0_ollama_server");
  CHECK(get(now, "kv-8bit").inputs.size() == 1);  // flash attention is on already (auto)
  const RemediesReport off = inference_remedies(R"({"model":"llama-3.1-8b","engine":"ollama","context":32768,
      "attention":"eager"})");
  CHECK(get(off, "kv-8bit").cost.id == "remedy.kv_q8_0_ollama_server_fa");
}

TEST_CASE("llama.cpp with experts in system RAM: the remedy says how fast it then decodes") {
  // Qwen3-30B-A3B in f16 on an RTX 4080: llama.cpp's --fit keeps the experts of 38 layers in system RAM
  // (test_verdict.cpp); the speed model reads the experts each token picks there (test_speed.cpp), so the cost of
  // switching to llama.cpp names a speed instead of "not estimated yet".
  const RemediesReport r = inference_remedies(R"({"model":"qwen3-30b-a3b","gpu":"rtx-4080"})");
  bool named = false;
  for (const Remedy& remedy : r.remedies)
    named = named || remedy.cost.text.find("the experts of 38 layers in system RAM as --fit places them: decoding at") !=
                         std::string::npos;
  CHECK(named);
}
