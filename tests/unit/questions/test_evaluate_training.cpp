// The training request/report path shared by the CLI (--mode train|lora|qlora) and the page ({"mode": ...}).
#include <nlohmann/json.hpp>

#include "../test_support.hpp"
#include "questions/evaluate_training.hpp"
#include "json/report_writer.hpp"
#include "json/request.hpp"

using namespace vramfit;
using nlohmann::json;

namespace {

TrainingReport evaluate_json(const std::string& text) {
  auto request = training_request_from_json(text);
  REQUIRE_MESSAGE(request.ok(), (request.ok() ? "" : request.error().field + ": " + request.error().message.text));
  auto report = evaluate_training(test::catalog(), request.value());
  REQUIRE_MESSAGE(report.ok(), (report.ok() ? "" : report.error().field + ": " + report.error().message.text));
  return report.value();
}

json report_json(const TrainingReport& report) {
  json j = json::parse(training_report_to_json(report), nullptr, false);
  REQUIRE_FALSE(j.is_discarded());
  return j;
}

const GpuFit& fit_on(const TrainingReport& report, const char* id) {
  for (const auto& f : report.gpus)
    if (f.gpu->id == id) return f;
  FAIL("no verdict for " << id);
  return report.gpus.front();
}

bool has_note(const TrainingReport& report, const char* fragment) {
  for (const auto& n : report.estimate.notes)
    if (n.text.find(fragment) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("every training input survives the JSON request") {
  auto r = training_request_from_json(R"({
      "model": "llama-2-7b", "mode": "qlora", "precision": "mixed-fp16", "grad_dtype": "half",
      "optimizer": "paged-adamw-8bit", "lora_rank": 8, "lora_targets": "q_proj,v_proj", "sequence": 1024,
      "micro_batch": 4, "grad_accum": 16, "checkpointing": "full", "attn_implementation": "eager", "dropout": true,
      "zero": 2, "gpus": 4, "tp": 2, "pp": 1, "sp": "on", "offload": "optimizer", "gpu": "a100-80gb-sxm",
      "headroom": 0.2, "tokens": 5e8, "mfu": 0.3, "weights": "bf16"})");
  REQUIRE(r.ok());
  const auto& t = r.value();
  CHECK(t.model == "llama-2-7b");
  CHECK(t.mode == TrainingMode::qlora);
  CHECK(t.precision == Precision::mixed_fp16);
  CHECK(t.grad_dtype == GradDType::half);
  CHECK(t.optimizer == Optimizer::paged_adamw_8bit);
  CHECK(t.lora_rank == 8u);
  CHECK(t.lora_targets == "q_proj,v_proj");
  CHECK(t.sequence == 1024u);
  CHECK(t.micro_batch == 4);
  CHECK(t.grad_accum == 16);
  CHECK(t.checkpointing == Checkpointing::full);
  CHECK(t.attn_implementation == AttnImplementation::eager);
  CHECK(t.dropout);
  CHECK(t.zero == ZeroStage::gradients);
  CHECK(t.gpus == 4);
  CHECK(t.tp == 2);
  CHECK(t.pp == 1);
  CHECK(t.sp);
  CHECK(t.offload == Offload::optimizer);
  CHECK(t.gpu == "a100-80gb-sxm");
  CHECK(t.headroom == doctest::Approx(0.2));
  CHECK(t.tokens == doctest::Approx(5e8));
  CHECK(t.mfu == doctest::Approx(0.3));

  // …and comes back resolved in the report's "inputs".
  auto report = evaluate_training(test::catalog(), t);
  REQUIRE_MESSAGE(report.ok(), (report.ok() ? "" : report.error().field + ": " + report.error().message.text));
  const json in = report_json(report.value())["inputs"];
  CHECK(in["mode"] == "qlora");
  CHECK(in["precision"] == "mixed-fp16");
  CHECK(in["grad_dtype"] == "half");
  CHECK(in["optimizer"] == "paged-adamw-8bit");
  CHECK(in["lora_rank"] == 8);
  CHECK(in["lora_targets"] == "q,v");
  CHECK(in["sequence"] == 1024);
  CHECK(in["sequence_source"] == "request");
  CHECK(in["micro_batch"] == 4);
  CHECK(in["grad_accum"] == 16);
  CHECK(in["global_batch"] == 4 * 16 * 2);  // micro × accumulation × data parallel (4 GPUs / tp 2)
  CHECK(in["checkpointing"] == "full");
  CHECK(in["attn_implementation"] == "eager");
  CHECK(in["dropout"] == true);
  CHECK(in["zero"] == "2");
  CHECK(in["fsdp"] == "SHARD_GRAD_OP");
  CHECK(in["gpus"] == 4);
  CHECK(in["tp"] == 2);
  CHECK(in["dp"] == 2);
  CHECK(in["sp"] == true);
  CHECK(in["offload"] == "optimizer");
  CHECK(in["gpu"] == "a100-80gb-sxm");
  CHECK(in["headroom"] == doctest::Approx(0.2));
  CHECK(in["tokens"] == doctest::Approx(5e8));
  // Written as people write it (the page's field, the CLI's --tokens): 300B = 300 × 10⁹, 2T = 2 × 10¹².
  auto written = training_request_from_json(R"({"model":"llama-2-7b","mode":"train","tokens":"300B"})");
  REQUIRE(written.ok());
  CHECK(*written.value().tokens == 300'000'000'000.0);
  CHECK(*training_request_from_json(R"({"params":7e9,"mode":"train","tokens":"2T"})").value().tokens == 2e12);
  CHECK(in["mfu"] == doctest::Approx(0.3));
}

TEST_CASE("the page's shared inputs context and batch stand in for sequence and micro_batch") {
  auto r = training_request_from_json(R"({"model":"llama-2-7b","mode":"lora","context":512,"batch":2})");
  REQUIRE(r.ok());
  CHECK(r.value().sequence == 512u);
  CHECK(r.value().micro_batch == 2);
  // Sent with both names, one input has one value.
  r = training_request_from_json(R"({"mode":"train","params":1e9,"context":512,"sequence":512,"batch":2,"micro_batch":2})");
  REQUIRE(r.ok());
  CHECK(r.value().sequence == 512u);
  CHECK(r.value().micro_batch == 2);
  r = training_request_from_json(R"({"mode":"train","params":1e9,"batch":2,"micro_batch":3})");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().field == "batch");
}

TEST_CASE("no sequence given: 2048, or the model's context when it is shorter") {
  // llama-2-7b: context 4096 → 2048; bert-base has 512 learned positions → 512; a bare count → 2048.
  CHECK(evaluate_json(R"({"model":"llama-2-7b","mode":"train"})").options.sequence == 2048);
  const auto bert = evaluate_json(R"({"model":"bert-base","mode":"train"})");
  CHECK(bert.options.sequence == 512);
  CHECK(bert.sequence_source == "model_context");
  CHECK(has_note(bert, "512 tokens per sequence assumed (the model's context)"));
  const auto bare = evaluate_json(R"({"params":1e9,"mode":"train"})");
  CHECK(bare.options.sequence == 2048);
  CHECK(bare.sequence_source == "default");
}

TEST_CASE("training requests are told apart from inference ones") {
  CHECK(is_training_mode("train"));
  CHECK(is_training_mode("LoRA"));
  CHECK(is_training_mode("qlora"));
  CHECK(is_training_mode("pretrain"));  // unknown: evaluate_training reports it, naming "mode"
  CHECK_FALSE(is_training_mode(""));
  CHECK_FALSE(is_training_mode("inference"));
  CHECK(parse_request(R"({"model":"llama-2-7b","mode":"qlora"})").value().training.has_value());
  CHECK_FALSE(parse_request(R"({"model":"llama-2-7b","mode":"inference"})").value().training.has_value());
  CHECK_FALSE(parse_request(R"({"model":"llama-2-7b"})").value().training.has_value());
  CHECK(parse_request(R"({"mode":3})").error().field == "mode");  // read as inference, which names the bad type
  CHECK(parse_request("{not json").error().field == "request");
}

TEST_CASE("bad training requests name the field and what is allowed") {
  struct Case {
    const char* json;
    const char* field;
    const char* fragment;
  };
  const Case cases[] = {
      {R"({"model":"llama-2-7b"})", "mode", "not a training mode"},
      {R"({"model":"llama-2-7b","mode":"inference"})", "mode", "not a training mode"},
      {R"({"model":"llama-2-7b","mode":"pretrain"})", "mode", "expected one of inference, train, lora, qlora, grpo; got \"pretrain\""},
      {R"({"model":"llama-2-7b","mode":7})", "mode", "expected one of inference, train, lora, qlora, grpo; got 7"},
      {R"({"params":7e9,"mode":"lora"})", "mode", "need the architecture"},
      {R"({"params":7e9,"mode":"grpo"})", "mode", "GRPO needs the architecture"},
      {R"({"model":"llama-2-7b","mode":"lora","beta":0.04})", "beta", "use it with mode grpo"},
      {R"({"model":"llama-2-7b","mode":"train","completion_tokens":256})", "completion_tokens", "use it with mode grpo"},
      {R"({"model":"llama-2-7b","mode":"grpo","sequence":1024})", "sequence", "prompt_tokens and completion_tokens"},
      {R"({"model":"llama-2-7b","mode":"grpo","policy":"dpo"})", "policy", "expected one of train, lora, qlora"},
      {R"({"model":"llama-2-7b","mode":"grpo","sampler":"sglang"})", "sampler", "expected one of hf, vllm-colocate, vllm-server"},
      {R"({"model":"llama-2-7b","mode":"grpo","sampler":"vllm-colocate"})", "gpu", "name the GPU"},
      // TRL's vllm_gpu_memory_utilization sizes only the colocated engine; model.generate() and a vLLM server apart
      // from the training GPUs do not read it.
      {R"({"model":"llama-2-7b","mode":"grpo","gpu_util":0.5})", "gpu_util", "vllm-colocate sampler only; hf does not read it"},
      {R"({"model":"llama-2-7b","mode":"grpo","sampler":"vllm-server","gpu_util":0.5})", "gpu_util", "vllm-server does not read it"},
      {R"({"model":"llama-2-7b","mode":"grpo","num_generations":1})", "num_generations", "from 2 to 4,096; got 1"},
      {R"({"model":"llama-2-7b","mode":"grpo","num_generations":8,"generation_batch":12})", "generation_batch",
       "multiple of num_generations (8)"},
      {R"({"model":"llama-2-7b","mode":"grpo","tp":2,"gpus":2})", "tp", "data parallel only"},
      {R"({"mode":"train"})", "model", "give a preset id"},
      {R"({"model":"llama-9000","mode":"train"})", "model", "drop or paste its config.json"},
      {R"({"model":"gpt2","params":7e9,"mode":"train"})", "model", "only one of"},
      {R"({"model":"llama-2-7b","mode":"train","precision":"fp8"})", "precision", "expected one of fp32, mixed-fp16, mixed-bf16, bf16"},
      {R"({"model":"llama-2-7b","mode":"train","grad_dtype":"fp64"})", "grad_dtype", "expected one of fp32, half"},
      {R"({"model":"llama-2-7b","mode":"train","precision":"fp32","grad_dtype":"half"})", "grad_dtype", "need mixed"},
      {R"({"model":"llama-2-7b","mode":"train","optimizer":"adam9"})", "optimizer", "expected one of adamw, adamw-8bit"},
      {R"({"params":7e9,"mode":"train","optimizer":"adafactor"})", "optimizer", "matrix shapes"},
      {R"({"model":"llama-2-7b","mode":"lora","lora_targets":"qq"})", "lora_targets", "unknown module 'qq'"},
      {R"({"model":"llama-2-7b","mode":"lora","lora_rank":0})", "lora_rank", "from 1 to 65,536; got 0"},
      {R"({"model":"llama-2-7b","mode":"lora","lora_rank":-3})", "lora_rank", "from 1 to 65,536; got -3"},
      {R"({"model":"llama-2-7b","mode":"train","sequence":0})", "sequence", "tokens from 1 to 100,000,000"},
      {R"({"model":"llama-2-7b","mode":"train","context":"long"})", "context", "got \"long\""},
      {R"({"model":"llama-2-7b","mode":"train","micro_batch":0})", "micro_batch", "from 1 to 1,000,000; got 0"},
      {R"({"model":"llama-2-7b","mode":"train","grad_accum":0})", "grad_accum", "from 1 to 1,000,000; got 0"},
      {R"({"model":"llama-2-7b","mode":"train","checkpointing":"some"})", "checkpointing", "expected one of none, selective, full"},
      {R"({"model":"llama-2-7b","mode":"train","attn_implementation":"xformers"})", "attn_implementation", "expected one of eager, sdpa, flash_attention_2, megatron; got \"xformers\""},
      {R"({"model":"llama-2-7b","mode":"train","flash_attention":false})", "flash_attention", "is not a known input"},
      {R"({"model":"llama-2-7b","mode":"train","dropout":3})", "dropout", "got 3"},
      {R"({"model":"llama-2-7b","mode":"train","zero":"5"})", "zero", "expected one of 0, 1, 2, 3, NO_SHARD, SHARD_GRAD_OP, FULL_SHARD; got \"5\""},
      {R"({"model":"llama-2-7b","mode":"train","zero":-1})", "zero", "got -1"},
      {R"({"model":"llama-2-7b","mode":"train","gpus":0})", "gpus", "from 1 to 1,000,000; got 0"},
      {R"({"model":"llama-2-7b","mode":"train","gpus":3,"tp":3})", "tp", "their largest common divisor is 32"},
      {R"({"model":"llama-2-7b","mode":"train","pp":2})", "pp", "between 1 and the number of GPUs (1)"},
      {R"({"model":"llama-2-7b","mode":"train","sp":"x"})", "sp", "got \"x\""},
      {R"({"model":"llama-2-7b","mode":"train","offload":"disk"})", "offload", "expected one of none, optimizer, params, nvme"},
      {R"({"model":"llama-2-7b","mode":"train","offload":"optimizer"})", "offload", "needs ZeRO stage 1, 2 or 3"},
      {R"({"model":"llama-2-7b","mode":"train","gpu":"voodoo"})", "gpu", "unknown GPU"},
      {R"({"model":"llama-2-7b","mode":"train","headroom":2})", "headroom", "fraction from 0 to 0.9"},
      {R"({"model":"llama-2-7b","mode":"train","tokens":-5})", "tokens", "from 1 to 1e18, such as 7e9, 300B or 1.5T; got -5"},
      {R"({"model":"llama-2-7b","mode":"train","tokens":"many"})", "tokens", "got \"many\""},
      {R"({"model":"llama-2-7b","mode":"train","mfu":1.5})", "mfu", "above 0 and at most 1, such as 0.4 or 40%; got 1.5"},
      {R"({"model":"llama-2-7b","mode":"train","weights":5})", "weights", "expected a text; got 5"},
      {R"({"model":"llama-2-7b","mode":"train","engine":"vllm"})", "engine", "applies to inference only"},
      {R"([1,2])", "request", "JSON object"},
      {R"({"mode":)", "request", "not valid JSON"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.json);
    auto request = training_request_from_json(c.json);
    Error error;
    if (!request) {
      error = request.error();
    } else {
      auto report = evaluate_training(test::catalog(), request.value());
      REQUIRE_FALSE(report.ok());
      error = report.error();
    }
    CHECK(error.field == c.field);
    CHECK_MESSAGE(error.message.text.find(c.fragment) != std::string::npos, error.message);
  }
}

TEST_CASE("seed article: a 7B model's training states are 126 GB, not 'over 56 GB'") {
  // The article: "14 GB weights + 28 GB optimizer (FP32) + 14 GB gradients … over 56 GB". With the
  // defaults here (mixed-bf16, AdamW, fp32 gradients as the HF Trainer keeps them) every parameter costs
  // 2 (bf16 weights) + 4 (fp32 gradients) + 4 (fp32 master) + 8 (AdamW's two fp32 moments) = 18 B:
  //   weights 7e9 × 2 = 14 GB, gradients 7e9 × 4 = 28 GB, optimizer 7e9 × (8 + 4) = 84 GB → 126 GB.
  // The article's "28 GB optimizer" is one fp32 copy; AdamW's moments alone are 56 GB, plus the 28 GB master
  // copy. Bare count: no activations; the CUDA context adds 512 MiB = 536,870,912 B → 126,536,870,912 B.
  const auto report = evaluate_json(R"({"params":7e9,"mode":"train"})");
  const json j = report_json(report);
  CHECK(j["ok"] == true);
  CHECK(j["mode"] == "train");
  CHECK(j["breakdown"]["weights"] == 14'000'000'000ULL);
  CHECK(j["breakdown"]["gradients"] == 28'000'000'000ULL);
  CHECK(j["breakdown"]["optimizer"] == 84'000'000'000ULL);
  CHECK(j["breakdown"]["master_weights"] == 28'000'000'000ULL);
  CHECK(j["breakdown"]["activations"] == 0);
  CHECK(j["breakdown"]["total"] == 126'536'870'912ULL);
  CHECK(j["host_ram_bytes"] == 0);
  CHECK(j["trainable_params"] == 7'000'000'000ULL);
  CHECK(j["gradient_convention"]["text"].get<std::string>().find("18 B/param") != std::string::npos);
  CHECK(j["activations"].is_null());
  CHECK(j["time"].is_null());
  CHECK(j["inputs"]["tokens"].is_null());
  CHECK(j["inputs"]["mfu"] == doctest::Approx(kDefaultMfu));
  CHECK(j["model"]["params_total"] == 7'000'000'000ULL);
  // No GPU chosen: a verdict for every card in the catalog. 24 GiB does not hold 126.5 GB.
  CHECK(j["gpus"].size() == test::catalog().gpus.size());
  CHECK(fit_on(report, "rtx-4090").fit == Fit::does_not_fit);
  CHECK(fit_on(report, "rtx-4090").free_bytes == 25'769'803'776LL - 126'536'870'912LL);
}

TEST_CASE("Llama-2-7B: QLoRA fits an RTX 4090, a full fine-tune does not") {
  // QLoRA, defaults: mixed-bf16 (c = 2 B activations), AdamW, r = 16 on all linear layers, sequence 2048
  // (min(2048, 4096)), micro-batch 1, sdpa, the config's dropout (0), full checkpointing as TRL, PEFT and
  // Unsloth run LoRA.
  //   weights: NF4 + double quant ceil(6,476,005,376 × 4.126953125 / 8) = 3,340,771,328
  //            + 16-bit embeddings, lm_head, norms 262,410,240 × 2 = 524,820,480
  //            + adapters 39,976,960 × 2 = 79,953,920                              = 3,945,545,728
  //   gradients 39,976,960 × 4 (fp32) = 159,907,840; optimizer 39,976,960 × 12 = 479,723,520
  //   one layer's full set per token (h 4096, a 32, kv 32, d 128, i 11008), transformers with sdpa:
  //     2 LlamaRMSNorms with frozen weights 2 × (fp32 input 4h + its square 4h + rstd 4) = 65,544 (no bf16
  //       normalised copy: only the weight's gradient needs it); QKV input 2h = 8,192; MLP input 2h = 8,192
  //     sdpa q, k, v 2 × 3 × 4096 + output 2 × 4096 + logsumexp 4 × 32 = 32,896;
  //       LoRA A outputs 16 × 2 × (4 attention + 3 MLP) = 224; SwiGLU 2 × 4 × 11008 = 88,064
  //     = 203,112 B × 2048 tokens = 415,973,376 B, live while that layer is recomputed
  //   kept: each layer's input 2h × 2048 = 16,777,216 × 32 layers = 536,870,912
  //   final norm (4h + 4h + 4) × 2048 = 67,117,056 (the frozen lm_head keeps no input)
  //   loss: fp32 log-softmax and int64 labels (4 × 32000 + 8) × 2048 = 262,160,384
  //   activations 536,870,912 + 415,973,376 + 67,117,056 + 262,160,384 = 1,282,121,728
  //   temporary: nll_loss's and log_softmax's fp32 gradients 8 × 32000 × 2048 = 524,288,000; overhead 536,870,912
  //   total 3,945,545,728 + 159,907,840 + 479,723,520 + 1,282,121,728 + 524,288,000 + 536,870,912
  //       = 6,928,457,728 B ≤ 24 GiB × 0.9 = 23,192,823,398 B → fits.
  const auto qlora = evaluate_json(R"({"model":"llama-2-7b","mode":"qlora","gpu":"rtx-4090"})");
  const auto& b = qlora.estimate.breakdown;
  CHECK(qlora.options.checkpointing == Checkpointing::full);
  CHECK(has_note(qlora, "defaults follow the recipes people run"));
  CHECK(b.weights == 3'945'545'728ULL);
  CHECK(b.gradients == 159'907'840ULL);
  CHECK(b.optimizer == 479'723'520ULL);
  CHECK(b.activations == 1'282'121'728ULL);
  CHECK(b.temporary == 524'288'000ULL);
  CHECK(b.total == 6'928'457'728ULL);
  REQUIRE(qlora.gpus.size() == 1);
  CHECK(qlora.gpus.front().fit == Fit::fits);
  CHECK(qlora.gpus.front().free_bytes == 25'769'803'776LL - 6'928'457'728LL);
  CHECK(report_json(qlora)["gpus"][0]["fit"] == "fits");
  // Without checkpointing every layer keeps its full set: 32 × 415,973,376 = 13,311,147,008, + final norm and
  // loss = 13,640,425,472 B of activations, and no note about the recipe.
  const auto kept = evaluate_json(R"({"model":"llama-2-7b","mode":"qlora","gpu":"rtx-4090","checkpointing":"none"})");
  CHECK(kept.estimate.breakdown.activations == 13'640'425'472ULL);
  CHECK_FALSE(has_note(kept, "defaults follow the recipes people run"));
  // No tokens: no time, and a note says what is missing.
  CHECK_FALSE(qlora.time.has_value());
  CHECK(has_note(qlora, "need the number of training tokens"));

  // Full fine-tune: the model states alone are 6,738,415,616 × 18 B = 121,291,481,088 B, five times 24 GiB.
  const auto full = evaluate_json(R"({"model":"llama-2-7b","mode":"train","gpu":"rtx-4090"})");
  CHECK(full.estimate.breakdown.weights + full.estimate.breakdown.gradients + full.estimate.breakdown.optimizer ==
        121'291'481'088ULL);
  CHECK(full.gpus.front().fit == Fit::does_not_fit);
  CHECK(full.gpus.front().free_bytes < -95'000'000'000LL);
}

TEST_CASE("seed article: ZeRO-3 over 8 H100s does not fit a 70B full training without offload") {
  // Mixed-precision AdamW with half-precision gradients (the ZeRO paper's 16 B/param): ZeRO-3 shards all of
  // it, 70e9 × 16 / 8 = 140 GB per GPU (weights 17.5 + gradients 17.5 + optimizer 105 GB), above an
  // H100's 80 GiB = 85,899,345,920 B. Bare count: no gather buffer (no matrix shapes), no activations;
  // total 140e9 + 536,870,912 = 140,536,870,912 B. As test_parallelism.cpp's "70B full training on 8x H100
  // needs more than ZeRO-3 alone" notes, the article's claim needs optimizer offload or 8-bit states.
  const auto z3 = evaluate_json(
      R"({"params":70e9,"mode":"train","grad_dtype":"half","zero":3,"gpus":8,"gpu":"h100-sxm"})");
  const auto& b = z3.estimate.breakdown;
  CHECK(b.weights == 17'500'000'000ULL);
  CHECK(b.gradients == 17'500'000'000ULL);
  CHECK(b.optimizer == 105'000'000'000ULL);
  CHECK(b.total == 140'536'870'912ULL);
  CHECK(z3.gpus.front().fit == Fit::does_not_fit);
  CHECK(z3.gpus.front().free_bytes == 85'899'345'920LL - 140'536'870'912LL);
  CHECK(report_json(z3)["inputs"]["fsdp"] == "FULL_SHARD");

  // ZeRO-Offload: gradients and optimizer states (and the fp32 step) go to the CPU: 17.5 GB of bf16 weights
  // stay per GPU; host RAM (17.5 + 105) × 8 = 980 GB. Slower by 30–40 % (the article's 13B figure).
  const auto off = evaluate_json(
      R"({"params":70e9,"mode":"train","grad_dtype":"half","zero":3,"gpus":8,"gpu":"h100-sxm","offload":"optimizer"})");
  CHECK(off.estimate.breakdown.total == 17'500'000'000ULL + 536'870'912ULL);
  CHECK(off.estimate.host_ram_bytes == 980'000'000'000ULL);
  CHECK(off.gpus.front().fit == Fit::fits);
  const json j = report_json(off);
  CHECK(j["host_ram_bytes"] == 980'000'000'000ULL);
  CHECK(j["slowdown"]["min"] == doctest::Approx(1.3));
  CHECK(j["slowdown"]["max"] == doctest::Approx(1.4));
  CHECK(j["ranks"].size() == 1);
  CHECK(j["ranks"][0]["role"] == "every GPU");
}

TEST_CASE("training time on H100s is 6·N·tokens over GPUs × peak × MFU, cost at the catalog price") {
  // 7e9 parameters, 2e11 tokens: 6 × 7e9 × 2e11 = 8.4e21 FLOPs (a bare count uses 6N).
  // 8 × H100 SXM at 989.5 dense bf16 TFLOPS × MFU 0.4 = 3.1664e15 FLOP/s → 2,652,854.98 s (30.7 days);
  // GPU-hours 2,652,854.98 × 8 / 3600 = 5,895.23; at the catalog's price per GPU-hour (3.78 USD) 22,283.98 USD.
  const auto r = evaluate_json(
      R"({"params":7e9,"mode":"train","zero":3,"gpus":8,"gpu":"h100-sxm","tokens":2e11,"mfu":0.4})");
  REQUIRE(r.time.has_value());
  const auto& t = *r.time;
  const double price = test::gpu("h100-sxm").cloud_usd_per_hour.value().usd;
  CHECK(t.peak_tflops == doctest::Approx(989.5));
  CHECK(t.peak_dtype == "bf16");
  CHECK(t.fastest.model_flops == doctest::Approx(8.4e21));
  CHECK(t.fastest.seconds == doctest::Approx(2'652'854.98));
  CHECK(t.seconds_max == doctest::Approx(t.fastest.seconds));  // no offload: no range
  CHECK(t.fastest.gpu_hours == doctest::Approx(5'895.233));
  REQUIRE(t.fastest.cost_usd.has_value());
  CHECK(*t.fastest.cost_usd == doctest::Approx(5'895.233 * price));
  const json j = report_json(r);
  CHECK(j["time"]["seconds"] == doctest::Approx(2'652'854.98));
  CHECK(j["time"]["flops"] == doctest::Approx(8.4e21));
  CHECK(j["time"]["gpus"] == 8);
  CHECK(j["time"]["usd"] == doctest::Approx(5'895.233 * price));
  CHECK(j["time"]["mfu"] == doctest::Approx(0.4));
  bool seconds_explained = false;
  for (const auto& x : j["explanations"]) seconds_explained = seconds_explained || x["key"] == "seconds";
  CHECK(seconds_explained);
}

TEST_CASE("offloading turns the training time into a range") {
  // 70e9 × 6 × 1e9 = 4.2e20 FLOPs / 3.1664e15 = 132,642.75 s; × 1.3 = 172,435.57 s; × 1.4 = 185,699.85 s.
  const auto r = evaluate_json(R"({"params":70e9,"mode":"train","zero":3,"gpus":8,"offload":"optimizer",
                                   "gpu":"h100-sxm","tokens":1e9})");
  REQUIRE(r.time.has_value());
  CHECK(r.time->fastest.seconds == doctest::Approx(172'435.57));
  CHECK(r.time->seconds_max == doctest::Approx(185'699.85));
  CHECK(r.time->gpu_hours_max == doctest::Approx(185'699.85 * 8 / 3600));
  const json j = report_json(r);
  CHECK(j["time"]["seconds_max"] == doctest::Approx(185'699.85));
  CHECK(j["time"]["usd_max"].is_number());
}

TEST_CASE("no catalog price means no cost, never zero; no 16-bit TFLOPS means no time") {
  // rtx-3060-12gb lists bf16 TFLOPS but no cloud price.
  REQUIRE_FALSE(test::gpu("rtx-3060-12gb").cloud_usd_per_hour.has_value());
  const auto r = evaluate_json(R"({"model":"llama-3.2-1b","mode":"lora","gpu":"rtx-3060-12gb","tokens":1e8})");
  REQUIRE(r.time.has_value());
  CHECK_FALSE(r.time->fastest.cost_usd.has_value());
  const json j = report_json(r);
  CHECK(j["time"]["usd"].is_null());
  CHECK(j["time"]["usd_per_gpu_hour"].is_null());
  CHECK(j["time"]["seconds"].get<double>() > 0);
  CHECK(has_note(r, "No cost"));

  // fp32 training: the catalog has no fp32 throughput, so no time rather than a 16-bit guess.
  const auto fp32 = evaluate_json(R"({"params":1e9,"mode":"train","precision":"fp32","gpu":"h100-sxm","tokens":1e9})");
  CHECK_FALSE(fp32.time.has_value());
  CHECK(report_json(fp32)["time"].is_null());
  CHECK(has_note(fp32, "fp32 training runs on the fp32 units"));

  // A T4 has fp16 tensor cores but no bf16: mixed-bf16 gets no time; mixed-fp16 uses the fp16 figure.
  REQUIRE_FALSE(test::gpu("t4").tflops_bf16.has_value());
  CHECK_FALSE(evaluate_json(R"({"params":1e8,"mode":"train","gpu":"t4","tokens":1e9})").time.has_value());
  const auto fp16 = evaluate_json(R"({"params":1e8,"mode":"train","precision":"mixed-fp16","gpu":"t4","tokens":1e9})");
  REQUIRE(fp16.time.has_value());
  CHECK(fp16.time->peak_dtype == "fp16");
  CHECK(fp16.time->peak_tflops == doctest::Approx(*test::gpu("t4").tflops_fp16));
}

TEST_CASE("the training JSON carries the keys other scripts read") {
  const auto r = evaluate_json(R"({"model":"llama-3.1-8b","mode":"train","gpus":8,"pp":2,"zero":1,"sequence":1024,
                                   "checkpointing":"full"})");
  const json j = report_json(r);
  for (const char* key : {"weights", "gradients", "optimizer", "master_weights", "activations", "temporary",
                          "overhead", "total"}) {
    CAPTURE(key);
    CHECK(j["breakdown"][key].is_number_unsigned());
  }
  CHECK(j["breakdown"]["gradients"].get<std::uint64_t>() > 0);
  CHECK(j["breakdown"]["optimizer"].get<std::uint64_t>() > 0);
  CHECK(j["breakdown"]["activations"].get<std::uint64_t>() > 0);
  CHECK(j["host_ram_bytes"].is_number_unsigned());
  CHECK(j["nvme_bytes"].is_number_unsigned());
  // Two pipeline stages: a first and a last rank, and the breakdown is the larger of the two.
  REQUIRE(j["ranks"].size() == 2);
  CHECK(j["ranks"][0]["role"] == "first pipeline stage");
  CHECK(j["ranks"][1]["role"] == "last pipeline stage");
  const auto largest = std::max(j["ranks"][0]["total"].get<std::uint64_t>(), j["ranks"][1]["total"].get<std::uint64_t>());
  CHECK(j["breakdown"]["total"] == largest);
  CHECK(j["model"]["id"] == "llama-3.1-8b");
  CHECK(j["model"]["layers"] == 32);
  CHECK(j["model"]["published_params"].is_number_unsigned());
  CHECK(j["activations"]["logits"] == (4ULL * 128'256 + 8) * 1024);  // fp32 log-softmax + int64 labels, last stage
  CHECK(j["explanations"].size() > 5);
  for (const auto& x : j["explanations"]) {
    CHECK(x["key"].is_string());
    for (const char* k : {"formula", "values", "source"}) CHECK(x[k]["text"].is_string());
  }
  CHECK(j["notes"].is_array());
  CHECK(j["gpus"][0].contains("usable_bytes"));
  CHECK(j["gpus"][0].contains("free_bytes"));
}

TEST_CASE("a sequence beyond the model's context is noted, not refused") {
  const auto r = evaluate_json(R"({"model":"llama-2-7b","mode":"qlora","sequence":8192,"checkpointing":"full"})");
  CHECK(r.options.sequence == 8192);
  CHECK(has_note(r, "longer than the model's context (4096)"));
}

TEST_CASE("a training job on several GPUs cannot run on Apple chips: one GPU per machine") {
  auto on_mac = training_request_from_json(R"({"mode":"lora","model":"llama-2-7b","gpu":"apple-m4-max-128gb","gpus":4})");
  REQUIRE(on_mac.ok());
  auto refused = evaluate_training(test::catalog(), on_mac.value());
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().field == "gpus");
  CHECK(refused.error().message.text.find("one GPU per machine") != std::string::npos);
  // One Mac is a job like any other; without a GPU named, a 4-GPU job lists only discrete cards.
  CHECK(evaluate_json(R"({"mode":"lora","model":"llama-2-7b","gpu":"apple-m4-max-128gb"})").gpus.size() == 1);
  const TrainingReport four = evaluate_json(R"({"mode":"lora","model":"llama-2-7b","gpus":4})");
  const TrainingReport one = evaluate_json(R"({"mode":"lora","model":"llama-2-7b"})");
  std::size_t apple = 0;
  std::size_t shared = 0;
  for (const auto& g : test::catalog().gpus) {
    apple += g.one_per_machine() && g.shared == SharedMemory::macos;
    shared += g.one_per_machine();
  }
  CHECK(apple == 28);  // the Apple entries of data/gpus.json (M1 … M5 Max, the base M5 in three sizes)
  // and the DGX Spark, two Ryzen AI Max+ 395 and three Jetsons, whose GPU shares the RAM too; not the MI300A, four of
  // which share a node, each with its own memory
  CHECK(shared == 34);
  CHECK(one.gpus.size() == test::catalog().gpus.size());
  CHECK(four.gpus.size() == test::catalog().gpus.size() - shared);
  for (const auto& f : four.gpus) CHECK_FALSE(f.gpu->one_per_machine());
}

TEST_CASE("GRPO with vLLM colocated is judged on each card with that card's share") {
  auto request = training_request_from_json(
      R"({"model":"llama-3.1-8b","mode":"grpo","policy":"lora","sampler":"vllm-colocate","gpu":"h100-sxm"})");
  REQUIRE(request.ok());
  auto scenario = resolve_training(test::catalog(), request.value());
  REQUIRE(scenario.ok());
  const auto every = judge_training(test::catalog(), request.value(), scenario.value(), nullptr);
  REQUIRE(every.ok());
  const std::uint64_t total_h100 = every.value().estimate.breakdown.total;
  // data/gpus.json: the H100 SXM's driver shows 79.18 GiB, the A100 40GB SXM's 39.49 GiB, the RTX 4090's 23.49 GiB.
  // TRL's vllm_gpu_memory_utilization 0.3 takes 0.3 × 79.18 GiB = 23.754 GiB of the H100; of the A100 0.3 × 39.49
  // = 11.847 GiB, 11.907 GiB less; of the 4090 0.3 × 23.49 = 7.047 GiB, 16.707 GiB less.
  const double gib = 1024.0 * 1024 * 1024;
  const auto need_on = [&](const char* id) {
    const auto& f = fit_on(every.value(), id);
    return static_cast<double>(static_cast<std::int64_t>(f.gpu->usable_bytes()) - f.free_bytes);
  };
  CHECK(need_on("h100-sxm") == doctest::Approx(static_cast<double>(total_h100)));
  CHECK((static_cast<double>(total_h100) - need_on("a100-40gb-sxm")) / gib == doctest::Approx(11.907).epsilon(0.001));
  CHECK((static_cast<double>(total_h100) - need_on("rtx-4090")) / gib == doctest::Approx(16.707).epsilon(0.001));
}
