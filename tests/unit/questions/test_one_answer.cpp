// One answer: the verdict is decided once and every other part of the report says the same. Over a grid of
// engines × GPUs × GPU counts × contexts, each scenario's headline, row, speed block and notes are checked against
// each other: no "fits" beside a speed "if it did", no speed for an engine that would not start, no context in the
// headline other than the one the figures are for, no free memory that differs between the headline and its row.
// The figures themselves are pinned in the engines' tests; what is pinned here is that the parts agree.
#include <set>
#include <string>
#include <vector>

#include "../memory/engine_reports.hpp"
#include "json/request.hpp"
#include "questions/placed_breakdown.hpp"
#include "questions/remedies.hpp"
#include "questions/verdict.hpp"

using namespace vramfit;

namespace {

using test::evaluate_json;

// A note of the estimate's or of its model's (what the page and the CLI list under the breakdown).
bool has_note(const Report& r, std::string_view id) {
  for (const auto* notes : {&r.estimate.notes, &r.model.notes})
    for (const Message& m : *notes)
      if (m.id == id) return true;
  return false;
}

PlacedBreakdown placed(const Report& r) {
  return placed_breakdown(r.estimate, r.verdict, r.llamacpp_fit ? &*r.llamacpp_fit : nullptr);
}

const MessageArg* arg_in(const Message& m, std::string_view name) {
  for (const MessageArg& a : m.args)
    if (a.name == name) return &a;
  return nullptr;
}

// Every part of one report against its verdict.
void check_agrees(const Report& r, const std::string& scenario) {
  INFO(scenario << " → " << r.verdict.text());
  const VerdictKind kind = r.verdict.kind;
  const bool runs = kind == VerdictKind::fits || kind == VerdictKind::tight || kind == VerdictKind::runs_split;

  // The speed block: a "does not fit … if it did" note only beside a verdict that does not fit; no speed at all for
  // an engine that would not start.
  if (r.serving && r.serving->speed) {
    const std::string& note = r.serving->speed->note.id;
    if (runs) CHECK_MESSAGE(note.rfind("speed.unfit", 0) != 0, "speed note " << note);
    if (kind == VerdictKind::does_not_fit && !r.estimate.ollama && !(r.estimate.llamacpp && r.estimate.llamacpp->gpu_layers <
                                                                                                 r.estimate.llamacpp->total_layers))
      CHECK_MESSAGE(note.rfind("speed.unfit", 0) == 0, "a speed beside 'does not fit' must say it is hypothetical");
  }
  if (kind == VerdictKind::refuses) {
    REQUIRE(r.serving);
    CHECK_FALSE(r.serving->speed);
    CHECK_FALSE(r.serving->cost.usd_per_million_tokens);
  }

  // The engine's refusal note and the headline say the same.
  const bool refusal_note = has_note(r, "vllm.kv_short") || has_note(r, "sglang.no_pool");
  CHECK(refusal_note == (kind == VerdictKind::refuses));

  // The verdict's GPU row: a verdict that runs is never beside a row that says the card falls short, and the
  // headline's free memory is the row's (one rounding: the row's bytes).
  if (r.verdict.gpu && r.gpus.size() == 1) {
    const GpuFit& row = r.gpus.front();
    if (kind == VerdictKind::fits || kind == VerdictKind::tight) {
      CHECK(row.fit != Fit::does_not_fit);
      CHECK(row.free_bytes >= 0);
    }
    if (kind == VerdictKind::refuses || kind == VerdictKind::does_not_fit) CHECK(row.fit == Fit::does_not_fit);
    if (const MessageArg* free = arg_in(r.verdict.message, "free_bytes")) {
      const std::int64_t shown = free->integer;
      const std::int64_t expected = r.per_gpu_free_bytes ? *r.per_gpu_free_bytes : row.free_bytes;
      CHECK(shown == std::max<std::int64_t>(expected, 0));
    }
    if (r.per_gpu_free_bytes && r.estimate.vllm && r.estimate.vllm->driver_total_bytes)
      CHECK(*r.per_gpu_free_bytes == row.free_bytes);
  }

  // The context the headline names is the one the figures are for.
  for (const char* name : {"context", "length"})
    if (const MessageArg* c = arg_in(r.verdict.message, name))
      CHECK_MESSAGE(static_cast<std::uint64_t>(c->integer) == r.estimate.context_tokens, name);

  // Part of the model in system RAM: the headline says so, and the row beside it is labelled with the placement.
  if (kind == VerdictKind::runs_split) CHECK_FALSE(r.verdict.label.empty());

  // The breakdown's total is what the headline places: on the GPU and, where it runs split, in system RAM; its lines
  // add up to it.
  const PlacedBreakdown b = placed(r);
  CHECK(b.weights + b.vision_encoder + b.kv_cache + b.state_cache + b.activations + b.overhead + b.allocator_reserve +
            b.system_ram ==
        b.total);
  if (kind == VerdictKind::runs_split) {
    CHECK(b.system_ram == r.verdict.ram_bytes);
    CHECK(b.total == r.verdict.gpu_bytes + r.verdict.ram_bytes);
  } else {
    CHECK(b.system_ram == 0);
    CHECK(b.total == r.estimate.total);
  }
}

}  // namespace

TEST_CASE("one answer: headline, GPU row, speed block and notes agree over engines × GPUs × counts × contexts") {
  struct Model {
    const char* id;
    const char* weights;  // for llama.cpp and Ollama (GGUF)
    const char* vllm_weights;
  };
  const std::vector<Model> models = {{"llama-3.1-8b", "q4_k_m", "bf16"},
                                     {"llama-3.1-70b", "q4_k_m", "int4"},
                                     {"qwen3.6-35b-a3b", "q4_k_m", "bf16"},
                                     {"gpt-oss-20b", "", ""}};
  const std::vector<std::string> engines = {"transformers", "vllm", "llamacpp", "ollama", "sglang"};
  const std::vector<std::string> gpus = {"rtx-3090", "rtx-4060-ti-16gb", "h100-sxm", ""};
  const std::vector<std::string> contexts = {"", "8192", "131072"};
  std::set<VerdictKind> seen;
  int scenarios = 0;
  for (const Model& m : models)
    for (const std::string& engine : engines)
      for (const std::string& gpu : gpus)
        for (int count : {1, 2})
          for (const std::string& context : contexts) {
            if (count > 1 && (gpu.empty() || engine == "ollama")) continue;
            const bool ggml = engine == "llamacpp" || engine == "ollama";
            const std::string weights = ggml ? m.weights : engine == "transformers" ? "" : m.vllm_weights;
            std::string request = std::string(R"({"model":")") + m.id + R"(","engine":")" + engine + '"';
            if (!weights.empty()) request += R"(,"weights":")" + weights + '"';
            if (!gpu.empty()) request += R"(,"gpu":")" + gpu + '"';
            if (count > 1) request += R"(,"gpus":)" + std::to_string(count);
            if (!context.empty()) request += R"(,"context":)" + context;
            request += '}';
            const Report r = evaluate_json(request);
            check_agrees(r, request);
            seen.insert(r.verdict.kind);
            ++scenarios;
          }
  // The grid reaches every kind of verdict, so each rule above was exercised.
  CHECK(seen.count(VerdictKind::fits));
  CHECK(seen.count(VerdictKind::tight));
  CHECK(seen.count(VerdictKind::does_not_fit));
  CHECK(seen.count(VerdictKind::runs_split));
  CHECK(seen.count(VerdictKind::refuses));
  CHECK(scenarios > 300);
}

TEST_CASE("one answer: vLLM on 2 × RTX 3090 that fits has no speed 'if it did', and its free is after the pool") {
  // Llama 3.1 70B int4 at 8,192 tokens, TP 2 on two RTX 3090 (24 GiB each): vLLM takes 0.9 × the driver's total of
  // each card (its budget; the KV pool is what the weights leave of it) plus its CUDA graphs outside the budget
  // (before 0.21): the card keeps at most 10 % of 24 GiB = 2.4 GiB, less the graphs' share.
  const Report r = evaluate_json(
      R"({"model":"llama-3.1-70b","engine":"vllm","weights":"int4","gpu":"rtx-3090","gpus":2,"context":8192})");
  REQUIRE(r.verdict.kind == VerdictKind::fits);
  REQUIRE(r.serving);
  REQUIRE(r.serving->speed);
  CHECK(r.serving->speed->note.empty());
  REQUIRE(r.per_gpu_free_bytes);
  const std::int64_t tenth = static_cast<std::int64_t>(24.0 * 1073741824.0 * 0.1);
  CHECK(*r.per_gpu_free_bytes <= tenth);
  CHECK(*r.per_gpu_free_bytes > tenth - 1073741824);  // the graphs take well under 1 GiB (vLLM's logs: 0.3–0.5 GiB)
}

TEST_CASE("one answer: a vLLM setup that would not start shows no speed and no cost per token") {
  // Llama 3.1 70B bf16 (141 GB) on 2 × RTX 3090 (48 GiB): the weights alone exceed 0.9 × 48 GiB, no KV pool.
  const Report r = evaluate_json(
      R"({"model":"llama-3.1-70b","engine":"vllm","gpu":"rtx-3090","gpus":2,"context":8192})");
  CHECK(r.verdict.kind == VerdictKind::refuses);
  REQUIRE(r.serving);
  CHECK_FALSE(r.serving->speed);
  CHECK(r.serving->speed_unavailable.id == "speed.refuses");
}

TEST_CASE("one answer: llama.cpp without a context on a GPU is costed at the context its --fit plan runs") {
  // llama-server without -c starts from the model's n_ctx_train and --fit lowers it until the model fits the free
  // memory less 1024 MiB (common/fit.cpp, step 2): the breakdown, the headline and the command speak of that one
  // context, never 4,096 in the figures beside another in the headline.
  // Llama 3.1 8B Q8_0 (8.5 GB) with 131,072 tokens of f16 KV (32 layers × 8 KV heads × 128 × 2 × 2 B = 128 KiB a
  // token: 16 GiB) does not fit a 24 GiB RTX 3090, so the plan lowers the context.
  const Report r = evaluate_json(R"({"model":"llama-3.1-8b","engine":"llamacpp","weights":"q8_0","gpu":"rtx-3090"})");
  REQUIRE(r.llamacpp_fit);
  CHECK(r.llamacpp_fit->context < 131072);
  CHECK(r.llamacpp_fit->context > 4096);
  CHECK(r.estimate.context_tokens == r.llamacpp_fit->context);
  CHECK(r.context_source == "engine_fit");
  CHECK(r.command.find(" -c " + std::to_string(r.llamacpp_fit->context)) != std::string::npos);
}

namespace {

// The count the remedies' "more GPUs" / "tensor parallel" option gives for a request, 0 without one.
std::uint64_t remedies_gpu_count(const std::string& json) {
  auto request = request_from_json(json);
  REQUIRE(request.ok());
  auto remedies = remedies_for(test::catalog(), request.value());
  REQUIRE(remedies.ok());
  for (const Remedy& r : remedies.value().remedies)
    if (r.id == "more-gpus" || r.id == "tensor-parallel")
      for (const RemedyInput& in : r.inputs)
        if (in.number) return *in.number;
  return 0;
}

std::uint64_t headline_count(const Report& r) {
  const MessageArg* count = arg_in(r.verdict.message, "count");
  return r.verdict.message.id == "headline.needs" && count ? static_cast<std::uint64_t>(count->integer) : 0;
}

}  // namespace

TEST_CASE("one answer: 'Needs N × GPU' is the fewest whose own estimate fits, the count the remedies give") {
  // Llama 3.1 70B bf16 under transformers on RTX 4090s (24 GiB), by hand: a layer holds 8192² × 2 (q, o) +
  // 8192 × 1024 × 2 (k, v) + 3 × 8192 × 28672 (MLP) = 855.6 M parameters = 1.71 GB; the embedding and the output
  // layer 128256 × 8192 = 1.05 B = 2.10 GB each. Seven cards take ceil(80 / 7) = 12 layers on the busiest: 20.5 GB
  // + 2.10 GB + its KV, overhead and compute, within 1.5 GB of the card's 25.8 GB, inside the headroom: tight. Eight
  // take 10 layers (17.1 GB): fits. An even split of the 146 GB would have said 7.
  const char* llama = R"({"model":"llama-3.1-70b","engine":"transformers","gpu":"rtx-4090","context":8192})";
  const Report r = evaluate_json(llama);
  CHECK(headline_count(r) == 8);
  REQUIRE(r.gpus.size() == 1);
  CHECK(r.gpus.front().gpus_needed == 8);
  CHECK(remedies_gpu_count(llama) == 8);
  CHECK(evaluate_json(R"({"model":"llama-3.1-70b","engine":"transformers","gpu":"rtx-4090","context":8192,"gpus":7})")
            .verdict.kind == VerdictKind::tight);

  // DeepSeek-V3 under vLLM, no GPU chosen. On MI325X (256 GB each) its 671 GB of FP8 weights would divide over 3, but
  // its 128 attention heads do not divide by 3 (vLLM refuses such a tensor-parallel size), so 4; on one MI325X vLLM
  // would not start, and the remedies offer the same 4. The 288 GB parts (B300, MI355X) also need 4 by the same
  // heads, and the headline names a card of the fewest: 4, never 3.
  const Report d = evaluate_json(R"({"model":"deepseek-v3","engine":"vllm","context":8192})");
  REQUIRE(d.verdict.gpu);
  CHECK(headline_count(d) == 4);
  for (const GpuFit& f : d.gpus)
    if (f.gpu->id == "mi325x" || f.gpu->id == "b300" || f.gpu->id == "mi355x") CHECK(f.gpus_needed == 4);
  CHECK(remedies_gpu_count(R"({"model":"deepseek-v3","engine":"vllm","gpu":"mi325x","context":8192})") == 4);

  // Beyond the remedies' 8: Llama 3.1 405B bf16 (810 GB; 126 layers of 16384² × 2 + 16384 × 1024 × 2 +
  // 3 × 16384 × 53248 = 3.19 B parameters, 6.37 GB each) on RTX 4090s. An even split would take 810 / 24.5 ≈ 34 cards, but 34 cards hold ceil(126 / 34) = 4 layers (25.5 GB) on the busiest: whole layers need
  // more. The headline's count fits on its own, one fewer does not.
  const Report big = evaluate_json(R"({"model":"llama-3.1-405b","engine":"transformers","gpu":"rtx-4090","context":8192})");
  const std::uint64_t n = headline_count(big);
  CHECK(n > 34);
  const auto on = [](std::uint64_t count) {
    return evaluate_json(R"({"model":"llama-3.1-405b","engine":"transformers","gpu":"rtx-4090","context":8192,"gpus":)" +
                         std::to_string(count) + "}")
        .verdict.kind;
  };
  CHECK(on(n) == VerdictKind::fits);
  CHECK(on(n - 1) != VerdictKind::fits);

  // Over several models and cards the headline's count and the remedies' agree wherever both give one.
  int compared = 0;
  for (const char* model : {"llama-3.1-70b", "qwen3-32b", "gemma-3-27b", "mixtral-8x7b"})
    for (const char* engine : {"transformers", "vllm", "llamacpp"})
      for (const char* gpu : {"rtx-3090", "rtx-4060-ti-16gb", "a100-40gb-sxm"}) {
        // llama.cpp with every layer on the GPUs (-ngl 999): without it --fit keeps one card and puts the rest in RAM.
        const std::string request = std::string(R"({"model":")") + model + R"(","engine":")" + engine +
                                    R"(","gpu":")" + gpu + R"(","context":8192)" +
                                    (std::string(engine) == "llamacpp" ? R"(,"gpu_layers":999})" : "}");
        const Report e = evaluate_json(request);
        const std::uint64_t shown = headline_count(e);
        if (shown == 0 || shown > 8) continue;
        INFO(request);
        CHECK(remedies_gpu_count(request) == shown);
        ++compared;
      }
  CHECK(compared > 10);
}

TEST_CASE("one answer: -ngl below the layer count over several GPUs runs with the rest in system RAM, never 'fits'") {
  // Llama 3.1 70B Q4_K_M, -ngl 60 of its 80 layers on 2 × RTX 3090: llama.cpp splits the 60 layers over the two cards
  // (30 each) and keeps 20 layers and the output layer in system RAM (llama.cpp README, -ngl / --split-mode layer).
  // Each card's share (~17 GB) fits its 24 GiB, so the run is a yes with a cost, as on one GPU.
  const Report r = evaluate_json(R"({"model":"llama-3.1-70b","engine":"llamacpp","weights":"q4_k_m","gpu":"rtx-3090",)"
                                 R"("gpus":2,"gpu_layers":60,"context":8192})");
  CHECK(r.verdict.kind == VerdictKind::runs_split);
  CHECK(r.verdict.message.id == "headline.offload_layers_owned");
  CHECK(r.verdict.label.id == "verdict.runs_layers_gpus");
  CHECK(r.verdict.gpus == 2);
  CHECK(r.verdict.ram_bytes == r.estimate.llamacpp->host_ram_bytes);
  CHECK(r.verdict.ram_bytes > 0);
  check_agrees(r, "2 × RTX 3090, -ngl 60");

  // The same on a list of different cards (an estimate's "gpus" as names: the cards one has).
  auto request = request_from_json(R"({"model":"llama-3.1-70b","engine":"llamacpp","weights":"q4_k_m","gpu_layers":60,)"
                                   R"("context":8192})");
  REQUIRE(request.ok());
  request.value().devices = {"rtx-3090", "rtx-4090"};
  auto evaluated = evaluate(test::catalog(), request.value());
  REQUIRE(evaluated.ok());
  const Report& cards = evaluated.value();
  CHECK(cards.verdict.kind == VerdictKind::runs_split);
  CHECK(cards.verdict.message.id == "headline.cards_offload");
  CHECK(cards.verdict.gpus == 2);
}

TEST_CASE("one answer: transformers with a GGUF format counts the weights it dequantizes, not the file") {
  // transformers dequantizes a GGUF file to fp32 when it loads it (transformers docs v4.49, "GGUF and interaction with
  // Transformers": "When loading a model, we first dequantize it to fp32"). Llama 3.1 8B has 8,030,261,248
  // parameters (its model card: 8.03 B): 4 bytes each = 32.12 GB, which no 24 GiB RTX 4090 holds; llama.cpp runs
  // the Q4_K_M file itself (about 4.9 GB).
  const Report t = evaluate_json(R"({"model":"llama-3.1-8b","engine":"transformers","weights":"q4_k_m","gpu":"rtx-4090"})");
  CHECK(t.estimate.weights == 4 * t.estimate.params.total);
  CHECK(t.estimate.params.total > 8'000'000'000ull);
  CHECK(t.verdict.kind == VerdictKind::does_not_fit);
  CHECK(has_note(t, "transformers.gguf_fp32"));
  const Report l = evaluate_json(R"({"model":"llama-3.1-8b","engine":"llamacpp","weights":"q4_k_m","gpu":"rtx-4090"})");
  CHECK(l.estimate.weights < 5'500'000'000ull);
  CHECK_FALSE(has_note(l, "transformers.gguf_fp32"));
}

TEST_CASE("one answer: with layers in system RAM the breakdown is the GPU's share plus system RAM, its total both") {
  // Llama 3.1 8B bf16 under llama.cpp with -ngl 16 of its 32 layers, 8,192 tokens, on one RTX 4090. By hand
  // (config.json: hidden 4096, 8 KV heads × 128, intermediate 14336, vocabulary 128256):
  //   a layer's weights: q 4096² + k, v 4096 × 1024 each + o 4096² + MLP 3 × 4096 × 14336 + 2 norms × 4096
  //     = 218,112,000 parameters = 436,224,000 B in bf16;
  //   the whole checkpoint: 8,030,261,248 parameters (the model card's count) = 16,060,522,496 B;
  //   a layer's KV at 8,192 tokens: 2 × 1024 × 2 B × 8,192 = 33,554,432 B;
  //   llama.cpp's output buffer, in system RAM: 128,256 logits × 4 B = 513,024 B.
  // llama.cpp offloads the last 16 layers; the first 16, the token embeddings and (with -ngl not above the layer
  // count) the output layer stay in RAM.
  const Report r = evaluate_json(
      R"({"model":"llama-3.1-8b","engine":"llamacpp","weights":"bf16","gpu":"rtx-4090","context":8192,"gpu_layers":16})");
  REQUIRE(r.verdict.kind == VerdictKind::runs_split);
  const PlacedBreakdown b = placed(r);
  const std::uint64_t host_kv = 16 * 33'554'432ULL, output_buffer = 513'024;
  CHECK(b.kv_cache == 16 * 33'554'432ULL);
  // The weights on the GPU and in RAM are the checkpoint's, whole: 16,060,522,496 B. The 8,192 B final norm is
  // spread over the layers by the per-layer average, so the GPU's 16 layers carry half of it.
  CHECK(b.weights == 16 * 436'224'000ULL + 4'096);
  CHECK(b.weights + (b.system_ram - host_kv - output_buffer) == 16'060'522'496ULL);
  CHECK(b.total == b.weights + b.kv_cache + b.activations + b.overhead + b.system_ram);
  // The range moves with the total: its ends lie around the placed total, not the GPU's share alone.
  CHECK(b.range_low <= b.total);
  CHECK(b.range_high >= b.total);
  CHECK(b.range_low > b.system_ram);
}
