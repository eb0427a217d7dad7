// The headline's verdict: one sentence, decided in the core, for the GPU the question speaks of. The figures in these
// sentences are the report's own (pinned in the engines' tests); what is pinned here is which sentence speaks, and
// that it says what the engine's plan and the GPU table say.
#include <algorithm>  // std::find_if

#include <nlohmann/json.hpp>

#include "../memory/engine_reports.hpp"
#include "json/report_writer.hpp"
#include "json/request.hpp"
#include "questions/evaluate_training.hpp"
#include "questions/verdict.hpp"

using namespace vramfit;
using nlohmann::json;

namespace {

using test::evaluate_json;

// The value of a message's argument by name (integers as the JSON carries them).
const MessageArg& arg_of(const Message& m, std::string_view name) {
  for (const MessageArg& a : m.args)
    if (a.name == name) return a;
  FAIL("no argument " << name << " in " << m.id);
  return m.args.front();
}

json verdict_json(const Report& report) {
  const json j = json::parse(report_to_json(report), nullptr, false);
  REQUIRE_FALSE(j.is_discarded());
  return j.at("verdict");
}

}  // namespace

TEST_CASE("Ollama with layers in system RAM: the verdict runs split, with #5913's 43 of 81 layers on the GPU") {
  // https://github.com/ollama/ollama/issues/5913 (dolphin-qwen2:72b-v2.9.2-q4_k_s, --ctx-size 2048, one 24 GiB GPU):
  //   msg="offload to rocm" layers.requested=-1 layers.model=81 layers.offload=43 memory.required.partial="23.7 GiB"
  // The GPU table's rule says it does not fit (not every layer is on the GPU); Ollama runs it, 38 layers on the CPU.
  const Report r = evaluate_json(
      R"({"model":"qwen2.5-72b","engine":"ollama","engine_version":"0.11.10","context":2048,"weights":"q4_k_s","gpu":"rx-7900-xtx"})");
  REQUIRE(r.gpus.size() == 1);
  CHECK(r.gpus.front().fit == Fit::does_not_fit);
  const Verdict& v = r.verdict;
  CHECK(v.kind == VerdictKind::runs_split);
  CHECK(verdict_fit_name(v.kind) == "tight");  // a yes with a cost
  CHECK(v.gpu == r.gpus.front().gpu);
  CHECK(v.message.id == "headline.ollama_split");
  CHECK(arg_of(v.message, "n").integer == 43);
  CHECK(arg_of(v.message, "total").integer == 81);
  CHECK(arg_of(v.message, "context").integer == 2048);
  CHECK(arg_of(v.message, "ram_bytes").integer == static_cast<std::int64_t>(r.estimate.ollama->system_ram_bytes));
  CHECK(v.text().starts_with("Runs on one " + r.gpus.front().gpu->name + " with Ollama: 43 of 81 layers on the GPU, "));
  CHECK(v.text().ends_with(" in system RAM, num_ctx 2,048"));
  // Its GPU's row in the table says the same, not "needs 2 GPUs".
  CHECK(v.label.id == "verdict.runs_layers");
  CHECK(v.label.text == "runs with 43 of 81 layers on the GPU");
  // Its free memory is what Ollama's placement leaves: the log's 23.7 GiB of the card's 24 GiB, so about 0.3 GiB
  // (less than one more layer, some 0.5 GiB at q4_k_s), never the card less the whole 72B model.
  CHECK(r.gpus.front().free_bytes > 0);
  CHECK(r.gpus.front().free_bytes < static_cast<std::int64_t>(kGiB));
  const json j = verdict_json(r);
  CHECK(j.at("kind") == "runs_split");
  CHECK(j.at("fit") == "tight");
  CHECK(j.at("gpu") == "rx-7900-xtx");
  CHECK(j.at("message").at("text") == v.text());  // no lead, no clause of a Mac's here
  CHECK(j.at("message").at("id") == "headline.ollama_split");
  CHECK(j.at("message").at("args").at("n") == 43);
  CHECK(j.at("label").at("text") == "runs with 43 of 81 layers on the GPU");
  CHECK(j.at("wired").is_null());
}

TEST_CASE("llama.cpp's --fit on a 16 GB card: the verdict is the plan's, the experts of 38 layers in system RAM") {
  // test_llamacpp_fit.cpp pins the plan by hand: Qwen3-30B-A3B F16 on 16 GiB keeps the experts of layers 0-9 and puts
  // those of 10-47 (38) in RAM at the 4096 floor. The whole model on the GPU (the table's row) does not fit.
  const Report r = evaluate_json(R"({"model":"qwen3-30b-a3b","engine":"llamacpp","weights":"f16","gpu":"rtx-4080"})");
  REQUIRE(r.llamacpp_fit);
  const LlamaCppFitPlan& p = *r.llamacpp_fit;
  REQUIRE(p.step == LlamaFitStep::experts);
  CHECK(r.gpus.front().fit == Fit::does_not_fit);
  const Verdict& v = r.verdict;
  CHECK(v.kind == VerdictKind::runs_split);
  CHECK(v.message.id == "headline.plan_experts");
  // An RTX 4080's 16 GiB less the 512 MiB CUDA context and 32 MiB cuBLAS workspace: the 15840 MiB of that case.
  REQUIRE(p.free_bytes == 15840 * kMiB);
  CHECK(arg_of(v.message, "n").integer == 38);
  CHECK(arg_of(v.message, "context").integer == 4096);
  CHECK(v.label.text == "runs with the experts of 38 layers in system RAM");
  // The card's row keeps free what the plan leaves on it, not the card less the whole model: fit stops within one
  // layer's experts (128 × 3 × 2048 × 768 × 2 B = 1,207,959,552 B) above its 1024 MiB margin.
  const auto margin = static_cast<std::int64_t>(1024 * kMiB);
  CHECK(r.gpus.front().free_bytes >= margin);
  CHECK(r.gpus.front().free_bytes < margin + 1'207'959'552);
  // System RAM holds the 38 layers' experts and, once anything moves, the output layer beside the token embeddings
  // (151,936 × 2048 × 2 B = 622,329,856 B each): 38 × 1,207,959,552 + 2 × 622,329,856 B.
  CHECK(p.host_ram_bytes == 47'147'122'688ULL);
  // Its speed reads the 38 layers' experts a token picks (8 of 128: 38 × 1,207,959,552 / 16 = 2,868,903,936 B) and the
  // output layer (622,329,856 B) from system RAM: 3,491,233,792 B at no more than 80 % of the default 60 GB/s is at
  // least 72.7 ms a token, so at most 13.75 tokens/s, never the whole model's speed on the GPU.
  REQUIRE(r.serving);
  REQUIRE(r.serving->speed);
  CHECK(r.serving->speed->decode.bytes_per_step_cpu == doctest::Approx(3'491'233'792.0).epsilon(1e-6));
  CHECK(r.serving->speed->decode.tokens_per_second.high <= 13.75);
  CHECK(r.serving->speed->note.empty());
}

TEST_CASE("--fit with whole layers in system RAM runs at the speed of -ngl at the plan's count") {
  // Llama 3.1 70B in BF16 (141.1 GB) on an H100: fit keeps 47 of 80 layers on the GPU. The other 33 are read from
  // system RAM every step: at the default 60 GB/s that is at least 33/80 × 141.1 GB / 60 GB/s ≈ 0.97 s per token,
  // so no more than about 1.03 tokens/s, whatever the GPU does.
  const Report fit = evaluate_json(R"({"model":"llama-3.1-70b","engine":"llamacpp","weights":"bf16","gpu":"h100-sxm","context":8192})");
  REQUIRE(fit.llamacpp_fit);
  REQUIRE(fit.llamacpp_fit->step == LlamaFitStep::layers);
  REQUIRE(fit.llamacpp_fit->gpu_layers == 47);
  REQUIRE(fit.verdict.kind == VerdictKind::runs_split);
  REQUIRE(fit.serving);
  REQUIRE(fit.serving->speed);
  const Range tps = fit.serving->speed->decode.tokens_per_second;
  CHECK(tps.high <= 1.03);
  CHECK(tps.low > 0.3);
  // The same as asking for -ngl 47 outright.
  const Report ngl = evaluate_json(
      R"({"model":"llama-3.1-70b","engine":"llamacpp","weights":"bf16","gpu":"h100-sxm","context":8192,"gpu_layers":47})");
  REQUIRE(ngl.serving);
  REQUIRE(ngl.serving->speed);
  CHECK(ngl.serving->speed->decode.tokens_per_second.low == doctest::Approx(tps.low));
  CHECK(ngl.serving->speed->decode.tokens_per_second.high == doctest::Approx(tps.high));
  REQUIRE(fit.serving->cost.usd_per_million_tokens);
}

TEST_CASE("llama.cpp without a context: the headline speaks of the context --fit runs, as its plan and command do") {
  // llama-server's -c 0 is the model's training context (40,960 for Qwen3-30B-A3B); fit keeps it where it fits.
  const Report r = evaluate_json(R"({"model":"qwen3-30b-a3b","engine":"llamacpp","weights":"q4_k_m","gpu":"h100-sxm"})");
  REQUIRE(r.llamacpp_fit);
  CHECK(r.llamacpp_fit->step == LlamaFitStep::none);
  CHECK(r.llamacpp_fit->context == 40960);
  CHECK(r.estimate.context_tokens == 40960);  // the breakdown is at the context llama-server runs
  const Verdict& v = r.verdict;
  CHECK(v.message.id == "headline.plan_all");
  CHECK(arg_of(v.message, "context").integer == 40960);
  CHECK(v.kind == VerdictKind::fits);
  CHECK(v.label.empty());
  // The note says where the context came from, instead of "4096 tokens assumed" beside a headline at 40,960.
  bool noted = false;
  for (const Message& n : r.estimate.notes)
    if (n.id == "context.llamacpp_fit") noted = arg_of(n, "context").integer == 40960;
  CHECK(noted);
  // A context asked for: fit keeps it, and the headline is the table's.
  const Report asked =
      evaluate_json(R"({"model":"qwen3-30b-a3b","engine":"llamacpp","weights":"q4_k_m","gpu":"h100-sxm","context":8192})");
  CHECK(asked.verdict.message.id == "headline.fits");
}

TEST_CASE("vLLM whose KV pool holds no sequence: the verdict says it would not start, as its note does") {
  // Llama 3.1 8B in bf16 is 16.06 GB of weights: with gpu_memory_utilization 0.9 a 16 GiB card has 15.46 GB for all
  // of vLLM, so no KV block is left (vllm kv_cache_utils.check_enough_kv_cache_memory raises).
  const Report r = evaluate_json(R"({"model":"llama-3.1-8b","engine":"vllm","weights":"bf16","gpu":"rtx-4080"})");
  REQUIRE(r.estimate.vllm);
  REQUIRE(r.estimate.vllm->max_concurrency == 0);
  const Verdict& v = r.verdict;
  CHECK(v.kind == VerdictKind::refuses);
  CHECK(verdict_fit_name(v.kind) == "does_not_fit");
  CHECK(v.message.id == "headline.refuses");
  CHECK(arg_of(v.message, "engine").text == "vLLM");
  CHECK(arg_of(v.message, "length").integer == static_cast<std::int64_t>(r.estimate.vllm->sequence_tokens));
  CHECK(v.text().starts_with("vLLM would not start on one "));
}

TEST_CASE("The GPU table's rule speaks where no engine plans: fits, tight, needs, short, and the GPUs one has") {
  const Report fits = evaluate_json(R"({"model":"llama-3.1-8b","weights":"bf16","gpu":"h100-sxm","context":8192})");
  CHECK(fits.verdict.kind == VerdictKind::fits);
  CHECK(fits.verdict.message.id == "headline.fits");
  CHECK(arg_of(fits.verdict.message, "free_bytes").integer == fits.gpus.front().free_bytes);
  // 70B in bf16 (141 GB) on one 24 GB card: split, it needs several.
  const Report needs = evaluate_json(R"({"model":"llama-3.3-70b","weights":"bf16","gpu":"rtx-4090","context":8192})");
  CHECK(needs.verdict.kind == VerdictKind::does_not_fit);
  CHECK(needs.verdict.message.id == "headline.needs");
  CHECK(arg_of(needs.verdict.message, "count").integer == static_cast<std::int64_t>(needs.gpus.front().gpus_needed));
  // Two of them for a 70B at 4 bits: the headline answers for the two (the fullest decides).
  const Report owned =
      evaluate_json(R"({"model":"llama-3.3-70b","engine":"llamacpp","weights":"q4_k_m","gpu":"rtx-3090","gpus":2,"context":8192})");
  CHECK(owned.verdict.message.id.starts_with("headline."));
  CHECK(owned.verdict.message.id.find("owned") != std::string::npos);
  CHECK(arg_of(owned.verdict.message, "count").integer == 2);
  // Each device's free memory is the core's, on that card: usable − its share.
  REQUIRE(owned.device_free_bytes.size() == owned.estimate.devices.size());
  for (std::size_t i = 0; i < owned.estimate.devices.size(); ++i)
    CHECK(owned.device_free_bytes[i] ==
          signed_difference(owned.gpus.front().gpu->usable_bytes(), owned.estimate.devices[i].total));
}

TEST_CASE("With no GPU chosen, the verdict speaks of the smallest class of cards people have that holds the model") {
  const Report r = evaluate_json(R"({"model":"llama-3.1-8b","weights":"bf16","context":8192})");
  const Verdict& v = r.verdict;
  REQUIRE(v.gpu);
  CHECK(v.kind == VerdictKind::fits);
  CHECK(v.message.id == "headline.fits_class");
  CHECK(v.gpu->segment == "consumer");
  // No smaller consumer card fits with headroom.
  for (const GpuFit& f : r.gpus)
    if (f.gpu->segment == "consumer" && f.fit == Fit::fits) CHECK(f.gpu->usable_bytes() >= v.gpu->usable_bytes());
  // The class's memory is the figure the GPU table shows for it, in both units in English: 20 GiB =
  // 21,474,836,480 B = 21.5 GB (by hand), for the Radeon RX 7900 XT this model lands on (16.06 GB of weights, 1.07 GB
  // of KV cache and 0.84 GB of activations leave it room; no consumer card between 16 and 20 GiB is in the catalog).
  CHECK(arg_of(v.message, "card_bytes").integer == static_cast<std::int64_t>(v.gpu->usable_bytes()));
  CHECK(v.gpu->memory_bytes == 20 * kGiB);
  CHECK(arg_of(v.message, "card_bytes").english == "21.5 GB (20 GiB)");
  CHECK(v.message.text.starts_with("Fits 21.5 GB (20 GiB) cards such as the AMD Radeon RX 7900 XT"));
  // A trillion parameters in bf16 (2 TB) fits no card alone: the verdict names the fewest cards of one kind.
  const Report big = evaluate_json(R"({"params":1e12,"weights":"bf16"})");
  CHECK(big.verdict.kind == VerdictKind::does_not_fit);
  CHECK(big.verdict.message.id == "headline.needs");
  for (const GpuFit& f : big.gpus)
    if (f.gpus_needed > 0) CHECK(f.gpus_needed >= static_cast<std::uint64_t>(arg_of(big.verdict.message, "count").integer));
}

TEST_CASE("A Mac's verdict adds how much of its RAM the GPU may use") {
  const Report r = evaluate_json(R"({"model":"llama-3.1-8b","weights":"q4_k_m","engine":"llamacpp","gpu":"apple-m1-16gb","context":2048})");
  CHECK(r.verdict.wired.id == "headline.wired_default");
  CHECK(arg_of(r.verdict.wired, "usable_bytes").integer == static_cast<std::int64_t>(r.gpus.front().gpu->usable_bytes()));
  CHECK(r.verdict.text() == r.verdict.message.text + r.verdict.wired.text);
  CHECK(verdict_json(r).at("wired").at("id") == "headline.wired_default");
}

TEST_CASE("A Strix Halo's and a DGX Spark's verdict say what of the RAM the GPU may use and how that changes") {
  const Report halo = evaluate_json(
      R"({"model":"llama-3.1-8b","weights":"q4_k_m","engine":"llamacpp","gpu":"ryzen-ai-max-395-128gb","context":2048})");
  CHECK(halo.verdict.wired.id == "headline.shared_amd_default");
  // Linux's default GTT limit: half of 128 GiB (test_gpu.cpp pins it to the kernel and the logs).
  CHECK(arg_of(halo.verdict.wired, "usable_bytes").integer == 64ll << 30);
  // The headline says the share; how to change it is the GPU's note (unified.amd_default) and, where more would hold
  // the model, the remedy with its ttm.pages_limit.
  CHECK(halo.verdict.wired.text == " (of its 128 GiB, the GPU may use 64.0 GiB by Linux's default)");
  CHECK(verdict_json(halo).at("wired").at("id") == "headline.shared_amd_default");
  // 96 GB set in the BIOS or with ttm.pages_limit: the share given.
  auto raised = with_wired_limit(test::catalog(), "ryzen-ai-max-395-128gb", 98304);
  REQUIRE(raised.ok());
  auto request = request_from_json(
      R"({"model":"llama-3.1-8b","weights":"q4_k_m","engine":"llamacpp","gpu":"ryzen-ai-max-395-128gb","context":2048,"wired_limit_mb":98304})");
  REQUIRE(request.ok());
  auto set = evaluate(raised.value(), request.value());
  REQUIRE(set.ok());
  CHECK(set.value().verdict.wired.text == " (of its 128 GiB, the GPU may use 96.0 GiB as set)");
  // No sysctl line in front of the command: that is a Mac's.
  CHECK(set.value().command.find("sysctl") == std::string::npos);
  const Report spark = evaluate_json(
      R"({"model":"llama-3.1-8b","weights":"q4_k_m","engine":"llamacpp","gpu":"dgx-spark","context":2048})");
  CHECK(spark.verdict.wired.id == "headline.shared_cuda");
  CHECK(spark.verdict.wired.text ==
        " (of its 128 GiB, the GPU may use the 121.7 GiB CUDA reports, less what the system holds; closing programs and "
        "dropping the page cache frees more)");
}

TEST_CASE("A model split between a Strix Halo's GPU and its RAM: the headline says the GPU's share, as when it fits") {
  // Llama 3.3 70B in Q8_0 (about 70 GiB of weights) is more than the 64 GiB Linux gives a 128 GB Strix Halo's GPU by
  // default (half of 128 GiB, test_gpu.cpp): llama.cpp's --fit keeps some layers in system RAM.
  const Report r = evaluate_json(
      R"({"model":"llama-3.3-70b","weights":"q8_0","engine":"llamacpp","gpu":"ryzen-ai-max-395-128gb","context":8192})");
  REQUIRE(r.verdict.kind == VerdictKind::runs_split);
  CHECK(r.verdict.wired.id == "headline.shared_amd_default");
  CHECK(r.verdict.wired.text == " (of its 128 GiB, the GPU may use 64.0 GiB by Linux's default)");
  CHECK(r.verdict.text().ends_with(r.verdict.wired.text));
  // A discrete card's split says no share: all of its memory is the GPU's.
  const Report h100 = evaluate_json(R"({"model":"llama-3.1-70b","engine":"llamacpp","weights":"bf16","gpu":"h100-sxm","context":8192})");
  REQUIRE(h100.verdict.kind == VerdictKind::runs_split);
  CHECK(h100.verdict.wired.empty());
}

TEST_CASE("An MI300A's and a Jetson AGX Orin's verdict say their documented and reported shares") {
  // ROCm/amdgpu-docs mi300a.rst: "it is only possible to allocate 96 GiB out of a possible 128 GiB of memory on the
  // MI300A" with HIP's device allocator by default.
  const Report mi300a = evaluate_json(R"({"model":"llama-3.1-8b","gpu":"mi300a","context":2048})");
  CHECK(mi300a.verdict.wired.id == "headline.shared_amd_documented");
  CHECK(mi300a.verdict.wired.text == " (of its 128 GiB, the GPU may use 96.0 GiB by ROCm's default)");
  // tegrastats on an AGX Orin 64GB: "RAM 5530/62841MB"; 62841 MiB = 61.37 GiB, what CUDA reports as its total.
  const Report orin = evaluate_json(
      R"({"model":"llama-3.1-8b","weights":"q4_k_m","engine":"llamacpp","gpu":"jetson-agx-orin-64gb","context":2048})");
  CHECK(orin.verdict.wired.id == "headline.shared_cuda");
  CHECK(orin.verdict.wired.text.starts_with(" (of its 64 GiB, the GPU may use the 61.4 GiB CUDA reports"));
}

TEST_CASE("The GPU ranking weighs a Strix Halo by what Linux lets its GPU use, not by its RAM") {
  // Llama 3.3 70B in Q8_0 (about 70 GiB of weights): more than the 64 GiB Linux gives a 128 GB Strix Halo's GPU by
  // default, less than its RAM.
  const Report r = evaluate_json(R"({"model":"llama-3.3-70b","weights":"q8_0","engine":"llamacpp","context":8192})");
  const auto halo = std::find_if(r.gpus.begin(), r.gpus.end(),
                                 [](const GpuFit& f) { return f.gpu->id == "ryzen-ai-max-395-128gb"; });
  REQUIRE(halo != r.gpus.end());
  CHECK(halo->fit == Fit::does_not_fit);
  REQUIRE(r.verdict.gpu);
  CHECK(r.verdict.gpu->id != "ryzen-ai-max-395-128gb");
}

TEST_CASE("A training job over several GPUs: the verdict is about each of them") {
  auto request = training_request_from_json(R"({"model":"llama-2-7b","mode":"train","gpus":8,"zero":3,"gpu":"a100-80gb-sxm"})");
  REQUIRE(request.ok());
  auto report = evaluate_training(test::catalog(), request.value());
  REQUIRE(report.ok());
  const Verdict& v = report.value().verdict;
  REQUIRE(report.value().gpus.size() == 1);
  CHECK(v.gpu == report.value().gpus.front().gpu);
  // A 7B trained with ZeRO-3 over 8 GPUs shards its 16 B/param of weights, gradients and Adam states: ~14 GB each
  // plus activations, well inside an 80 GB card.
  REQUIRE(report.value().gpus.front().fit == Fit::fits);
  CHECK(v.message.id == "headline.fits_each");
  CHECK(arg_of(v.message, "count").integer == 8);
  CHECK(arg_of(v.message, "free_bytes").integer == report.value().gpus.front().free_bytes);
}

TEST_CASE("Different cards together: the verdict is the fullest card's, and each device's free memory is its own card's") {
  auto request = request_from_json(R"({"model":"llama-3.1-8b","engine":"llamacpp","weights":"q4_k_m","context":8192})");
  REQUIRE(request.ok());
  request.value().devices = {"rtx-3090", "rtx-4060-ti-16gb"};  // "gpus" as names, as the CLI's --gpus a,b reads them
  auto evaluated = evaluate(test::catalog(), request.value());
  REQUIRE(evaluated.ok());
  const Report& r = evaluated.value();
  REQUIRE(r.gpus.size() == 2);
  const Verdict& v = r.verdict;
  const GpuFit& fullest = r.gpus[0].free_bytes < r.gpus[1].free_bytes ? r.gpus[0] : r.gpus[1];
  CHECK(v.gpu == fullest.gpu);
  CHECK(v.message.id == "headline.cards_fits");
  CHECK(arg_of(v.message, "gpus").text == r.gpus[0].gpu->name + " + " + r.gpus[1].gpu->name);
  CHECK(arg_of(v.message, "free_bytes").integer == fullest.free_bytes);
  REQUIRE(r.device_free_bytes.size() == 2);
  for (std::size_t i = 0; i < 2; ++i)
    CHECK(r.device_free_bytes[i] == signed_difference(r.gpus[i].gpu->usable_bytes(), r.estimate.devices[i].total));
  const json devices = json::parse(report_to_json(r)).at("per_gpu").at("devices");
  CHECK(devices.at(1).at("free_bytes") == r.device_free_bytes[1]);
}

TEST_CASE("-ngl below the layer count on one GPU: the headline says it runs with those layers, the rest in RAM") {
  // Llama 3.1 70B at Q4_K_M with -ngl 40 on an RTX 4090: 40 of its 80 layers on the GPU (about half of 39 GiB of
  // weights), the other 40 and the output layer in system RAM. The GPU holds its part, so it is a yes with a cost,
  // never a plain "fits" beside 40 layers on the CPU.
  const Report r = evaluate_json(
      R"({"model":"llama-3.1-70b","engine":"llamacpp","weights":"q4_k_m","context":8192,"gpu_layers":40,"gpu":"rtx-4090"})");
  REQUIRE(r.estimate.llamacpp);
  REQUIRE(r.gpus.front().fit != Fit::does_not_fit);
  const Verdict& v = r.verdict;
  CHECK(v.kind == VerdictKind::runs_split);
  CHECK(v.message.id == "headline.offload_layers");
  CHECK(arg_of(v.message, "n").integer == 40);
  CHECK(arg_of(v.message, "total").integer == 80);
  CHECK(arg_of(v.message, "ram_bytes").integer == static_cast<std::int64_t>(r.estimate.llamacpp->host_ram_bytes));
  CHECK(v.label.text == "runs with 40 of 80 layers on the GPU");
}

TEST_CASE("What --fit's placement puts on the card: the plan, the CUDA context, the draft and clip's buffer on top") {
  // llama-server loads the draft after --fit's plan (into the room fit keeps for it from b9305, PR #23485); clip's compute buffer lands in fit's margin only where the projector is in fit's target (llama-server
  // from PR #21489, Ollama from 0.31.2). By hand: 6,000,000,000 + 570,425,344 (512 MiB + 32 MiB) + 1,084,000,000 = 7,654,425,344 B; with
  // a 600,000,000 B projector in the plan and llama.cpp's own margin, clip's 262,722,560 B buffer comes on top:
  // 7,917,147,904 B.
  LlamaCppFitPlan plan;
  plan.gpu_bytes = 6'000'000'000ULL;
  InferenceEstimate e;
  e.overhead = 570'425'344ULL;
  e.draft = 1'084'000'000ULL;
  CHECK(placed_on_card(plan, e) == 7'654'425'344ULL);
  plan.projector_bytes = 600'000'000ULL;
  VisionEncoder v;
  v.compute_bytes = 262'722'560ULL;
  e.vision = v;
  CHECK(clip_beside_fit(plan, e) == 262'722'560ULL);
  CHECK(placed_on_card(plan, e) == 7'917'147'904ULL);
  plan.margin_holds_projector = true;
  CHECK(placed_on_card(plan, e) == 7'654'425'344ULL);
  e.vision->apart = true;
  plan.margin_holds_projector = false;
  CHECK(placed_on_card(plan, e) == 7'654'425'344ULL);
}

TEST_CASE("llama-server adds the projector and clip's buffer to --fit's target, so the layers leave room for them") {
  // PR #21489 (tools/server/server-context.cpp load_model): with --mmproj and --fit, mtmd_get_memory_usage (the
  // projector's weights and clip's compute buffer for the warm-up image) is added to fit_params_target on the
  // projector's device. Gemma 3 27B's tower and projector: 423,060,336 parameters, F16 in the mmproj file: 2 B each =
  // 846,120,672 B. The target: 1024 MiB + 846,120,672 + clip's buffer; the buffer then lands in that room.
  const Report r = evaluate_json(R"({"model":"gemma-3-27b","engine":"llamacpp","weights":"q4_k_m","mmproj":true,)"
                                 R"("gpu":"rtx-4090"})");
  REQUIRE(r.llamacpp_fit);
  REQUIRE(r.estimate.vision);
  CHECK(r.llamacpp_fit->projector_bytes == 846'120'672ULL);
  CHECK(r.llamacpp_fit->margin_bytes == (1024ULL << 20) + 846'120'672ULL + r.estimate.vision->compute_bytes);
  CHECK(r.llamacpp_fit->margin_holds_projector);
  CHECK(clip_beside_fit(*r.llamacpp_fit, r.estimate) == 0);
}

TEST_CASE("llama.cpp --fit with a draft: the GPU row and the verdict count the draft fit leaves out, and say so") {
  // b9297: before PR #23485 --fit plans without the draft (b9305 and later keep room for it, test_llamacpp_fit.cpp).
  const Report r = evaluate_json(R"({"model":"qwen2.5-7b","engine":"llamacpp","engine_version":"b9297",
      "draft":"qwen2.5-0.5b","memory_in_use":1,"gpu":"rtx-4060-ti-8gb"})");
  REQUIRE(r.llamacpp_fit);
  REQUIRE(r.estimate.draft > 0);
  const std::uint64_t on_card = r.llamacpp_fit->gpu_bytes + r.estimate.overhead + r.estimate.draft;
  CHECK(placed_on_card(*r.llamacpp_fit, r.estimate) == on_card);
  const bool noted = std::any_of(r.estimate.notes.begin(), r.estimate.notes.end(),
                                 [](const Message& n) { return n.id == "llamacpp.fit_without_draft"; });
  CHECK(noted);
  const std::uint64_t usable = usable_for(*r.gpus.front().gpu, r.estimate.in_use);
  if (on_card > usable) {
    // The draft leaves the placement short of the card: never "runs".
    CHECK(r.verdict.kind == VerdictKind::does_not_fit);
    CHECK(r.verdict.message.id == "headline.plan_short");
  } else if (r.verdict.kind == VerdictKind::runs_split) {
    CHECK(r.verdict.gpu_bytes == on_card);
    CHECK(r.gpus.front().free_bytes == static_cast<std::int64_t>(usable - on_card));
  }
}

TEST_CASE("llama.cpp --fit with a vision projector and a draft the card cannot hold beside it: not \"runs\"") {
  // b9297: the draft outside --fit's plan (before PR #23485).
  const Report r = evaluate_json(R"({"model":"qwen3-vl-8b","engine":"llamacpp","engine_version":"b9297","mmproj":true,
      "images":2,"draft":"qwen3-0.6b","memory_in_use":1.5,"gpu":"rtx-4060-ti-16gb","context":16384})");
  REQUIRE(r.llamacpp_fit);
  REQUIRE(r.estimate.vision);
  const std::uint64_t usable = usable_for(*r.gpus.front().gpu, r.estimate.in_use);
  const std::uint64_t on_card = placed_on_card(*r.llamacpp_fit, r.estimate);
  // The plan, the 544 MiB, the draft and clip's buffer outgrow what the card has beside the 1.5 GB in use.
  REQUIRE(on_card > usable);
  CHECK(r.verdict.kind == VerdictKind::does_not_fit);
  CHECK(r.verdict.message.id == "headline.plan_short");
}
