// The solvers: largest context and batch on a GPU, and memory curves.
#include "../test_support.hpp"
#include "json/report_writer.hpp"  // report_to_json
#include "json/request.hpp"        // request_from_json
#include "questions/limits.hpp"
#include "questions/remedies.hpp"

using namespace vramfit;

TEST_CASE("the largest context is the last one under the budget") {
  Request r;
  r.model = "llama-3.1-8b";
  r.gpu = "rtx-4090";
  auto limits = solve_limits(test::catalog(), r);
  REQUIRE(limits.ok());
  const auto& l = limits.value();
  // Budget: 24 GiB × 0.9 = 23,192,823,398 B. Weights 16,060,522,496 B, overhead 570,425,344 B, KV
  // 131,072 B/token: the context must leave (23.19 − 16.06 − 0.57) GB ≈ 6.56 GB for KV + activations
  // (51,200 × 2 B = 102,400 B/token of MLP peak): ≈ 6.56e9 / 233,472 ≈ 28,100 tokens at most.
  CHECK(l.max_context > 20'000);
  CHECK(l.max_context < 28'200);
  InferenceOptions o;
  o.context_tokens = l.max_context;
  CHECK(estimate_inference(test::preset("llama-3.1-8b"), o).value().total <= l.budget_bytes);
  o.context_tokens = l.max_context + 1;
  CHECK(estimate_inference(test::preset("llama-3.1-8b"), o).value().total > l.budget_bytes);
  CHECK(l.max_batch >= 1);
}

TEST_CASE("vLLM at gpu_util 0.8: the GPU table, the largest context, the remedies and the legend share one line") {
  // vLLM takes at most 0.8 of the GPU, so the fit line keeps max(0.1 headroom, 1 − 0.8) = 0.2 free. An H100 SXM
  // has 80 GiB (data/gpus.json memory_gib) = 85,899,345,920 B usable; 0.8 of it is 68,719,476,736 B (64 GiB).
  auto request = request_from_json(R"({"model":"llama-3.1-8b","engine":"vllm","gpu":"h100-sxm","gpu_util":0.8})");
  REQUIRE(request.ok());
  const Request& base = request.value();
  auto verdict = [&](std::uint64_t context, std::uint64_t batch) {
    Request r = base;
    r.context = context;
    r.batch = batch;
    auto report = evaluate(test::catalog(), r);
    REQUIRE(report.ok());
    return report.value().gpus.front().fit;
  };

  auto limits = solve_limits(test::catalog(), base);
  REQUIRE(limits.ok());
  const Limits& l = limits.value();
  CHECK(l.budget_bytes == 68'719'476'736ULL);
  REQUIRE(l.max_context > 0);
  CHECK(verdict(l.max_context, 1) == Fit::fits);
  CHECK(verdict(l.max_context + 1, 1) != Fit::fits);
  // The batch at vLLM's default context, the model's maximum (131,072 tokens).
  REQUIRE(l.max_batch > 0);
  CHECK(verdict(131'072, l.max_batch) == Fit::fits);
  CHECK(verdict(131'072, l.max_batch + 1) != Fit::fits);

  // The legend's share: the report carries the headroom the table applied, 0.2, so the page says 80 %.
  auto report = evaluate(test::catalog(), base);
  REQUIRE(report.ok());
  CHECK(report.value().headroom == 0.2);
  CHECK(report_to_json(report.value()).find("\"headroom\":0.2,") != std::string::npos);

  // The remedies: "before" is the headline's verdict, and each change's fit is the headline's for the changed request
  // (its colour: the table's rule, or vLLM refusing to start). At 378,000 tokens and batch 2, one sequence less
  // lands between 64 and 72 GiB: tight under the 0.2 line.
  Request crowded = base;
  crowded.context = 378'000;
  crowded.batch = 2;
  auto remedies = remedies_for(test::catalog(), crowded);
  REQUIRE(remedies.ok());
  const RemediesReport& rr = remedies.value();
  auto crowded_report = evaluate(test::catalog(), crowded);
  REQUIRE(crowded_report.ok());
  CHECK(fit_name(*rr.fit) == verdict_fit_name(crowded_report.value().verdict.kind));
  bool checked_between = false;
  for (const Remedy& m : rr.remedies) {
    if (!m.applicable) continue;
    Request changed = crowded;
    for (const RemedyInput& in : m.inputs) {
      const std::string key = in.key;
      if (key == "weights") changed.weights = in.text;
      else if (key == "kv_dtype") changed.kv_dtype = parse_kv_dtype(in.text);
      else if (key == "context") changed.context = in.number;
      else if (key == "batch") changed.batch = *in.number;
      else if (key == "tp") changed.tp = *in.number;
      else if (key == "engine") {
        changed.engine = *parse_engine(in.text);
        changed.gpu_util.reset();  // vLLM's own input, as the request no longer gives it
        std::erase_if(changed.engine_inputs, [](const Request::EngineInput& e) { return e.key == "gpu_util"; });
      } else FAIL("a remedy input this test does not apply: " << key);
    }
    auto after = evaluate(test::catalog(), changed);
    REQUIRE(after.ok());
    CHECK_MESSAGE(fit_name(*m.fit) == verdict_fit_name(after.value().verdict.kind), m.id);
    if (m.bytes > 68'719'476'736ULL && m.bytes <= 77'309'411'328ULL) checked_between = true;
  }
  CHECK(checked_between);
}

TEST_CASE("the solvers need a GPU and say so") {
  Request r;
  r.model = "llama-3.1-8b";
  auto limits = solve_limits(test::catalog(), r);
  REQUIRE_FALSE(limits.ok());
  CHECK(limits.error().field == "gpu");
}

TEST_CASE("a context curve is monotone and each point is the estimate itself") {
  Request r;
  r.model = "qwen2.5-7b";
  auto curve = memory_curve(test::catalog(), r, CurveAxis::context, 256);
  REQUIRE(curve.ok());
  const auto& c = curve.value();
  REQUIRE(c.x.size() >= 200);
  CHECK(c.x.front() == 1);
  for (std::size_t i = 1; i < c.x.size(); ++i) CHECK(c.total[i] >= c.total[i - 1]);
  InferenceOptions o;
  o.context_tokens = c.x[100];
  CHECK(estimate_inference(test::preset("qwen2.5-7b"), o).value().total == c.total[100]);
  auto batch = memory_curve(test::catalog(), r, CurveAxis::batch, 16);
  REQUIRE(batch.ok());
  CHECK(batch.value().x.back() == 256);
  CHECK_FALSE(memory_curve(test::catalog(), r, CurveAxis::batch, 1).ok());
}

namespace {

TrainingReport training_at(const std::string& request) {
  auto r = training_request_from_json(request);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().field + ": " + r.error().message.text));
  auto report = evaluate_training(test::catalog(), r.value());
  REQUIRE_MESSAGE(report.ok(), (report.ok() ? "" : report.error().field + ": " + report.error().message.text));
  return report.value();
}

std::uint64_t column(const Curve& c, const char* key, std::size_t i) {
  for (const CurveLine& line : c.lines)
    if (std::string(line.key) == key) return line.values.at(i);
  FAIL("no line " << key);
  return 0;
}

}  // namespace

TEST_CASE("a training curve's every point is the training estimate at that sequence or micro-batch") {
  const std::string scenario = R"({"mode":"train","model":"llama-3.1-8b","checkpointing":"selective")";
  const TrainingReport base = training_at(scenario + "}");
  CurveInputs in;
  in.values = {256, 1024, 4096};
  auto context = training_curve(base, in);
  REQUIRE(context.ok());
  const Curve& c = context.value();
  REQUIRE(c.x == in.values);
  CHECK(c.low.empty());  // a training estimate has no range
  for (std::size_t i = 0; i < c.x.size(); ++i) {
    const RankMemory& b = training_at(scenario + ",\"sequence\":" + std::to_string(c.x[i]) + "}").estimate.breakdown;
    CHECK(c.total[i] == b.total);
    CHECK(column(c, "activations", i) == b.activations);
    CHECK(column(c, "optimizer", i) == b.optimizer);
  }
  in.axis = CurveAxis::batch;
  in.values = {1, 2, 8};
  auto batch = training_curve(base, in);
  REQUIRE(batch.ok());
  for (std::size_t i = 0; i < 3; ++i)
    CHECK(batch.value().total[i] ==
          training_at(scenario + ",\"micro_batch\":" + std::to_string(in.values[i]) + "}").estimate.breakdown.total);
}

TEST_CASE("along a full-training curve the model states stay at 18 bytes per parameter") {
  // Mixed-precision AdamW with fp32 gradients (the HF Trainer convention): 2 B bf16 weights + 4 B fp32 gradients
  // + 12 B optimizer (8 B moments + 4 B fp32 master) per parameter, whatever the sequence or micro-batch.
  const TrainingReport base = training_at(R"({"mode":"train","model":"llama-3.1-8b"})");
  const std::uint64_t params = base.estimate.params.total;
  CurveInputs in;
  in.axis = CurveAxis::batch;
  in.points = 4;
  in.to = 4;
  auto curve = training_curve(base, in);
  REQUIRE(curve.ok());
  const Curve& c = curve.value();
  REQUIRE(c.x == std::vector<std::uint64_t>{1, 2, 3, 4});
  for (std::size_t i = 0; i < c.x.size(); ++i) {
    CHECK(column(c, "weights", i) == 2 * params);
    CHECK(column(c, "gradients", i) == 4 * params);
    CHECK(column(c, "optimizer", i) == 12 * params);
    CHECK(column(c, "master_weights", i) == 4 * params);
  }
  // Every activation term of Korthikanti et al. 2022 (sbh·34 + 5as²b per layer, the logits s·b·V) is proportional
  // to the micro-batch b: twice the micro-batch keeps twice the activations.
  CHECK(column(c, "activations", 1) == 2 * column(c, "activations", 0));
  CHECK(column(c, "activations", 3) == 4 * column(c, "activations", 0));
}

TEST_CASE("a log-spaced curve runs from its first to its last x geometrically") {
  Request r;
  r.model = "llama-3.1-8b";  // max context 131,072
  auto resolved = resolve_request(test::catalog(), r);
  REQUIRE(resolved.ok());
  CurveInputs in;
  in.log = true;
  in.points = 10;
  auto curve = memory_curve(resolved.value(), in);
  REQUIRE(curve.ok());
  const auto& x = curve.value().x;
  // From 256 to 131,072 = 256 × 2^9 in 10 points: each a doubling.
  CHECK(x == std::vector<std::uint64_t>{256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072});
  in.axis = CurveAxis::batch;
  in.points = 9;
  CHECK(memory_curve(resolved.value(), in).value().x ==
        std::vector<std::uint64_t>{1, 2, 4, 8, 16, 32, 64, 128, 256});
  in.from = 512;
  in.to = 256;
  CHECK(memory_curve(resolved.value(), in).error().field == "from");
}

TEST_CASE("a curve seeded with the scenario's estimate is the curve computed alone") {
  Request r;
  r.model = "qwen2.5-7b";
  r.weights = "q4_k_m";
  r.engine = Engine::llamacpp;
  auto resolved = resolve_request(test::catalog(), r);
  REQUIRE(resolved.ok());
  const Report base = evaluate(test::catalog(), r).value();
  CurveInputs in;
  in.points = 16;
  const Curve seeded = memory_curve(resolved.value(), in, &base.estimate).value();
  const Curve alone = memory_curve(test::catalog(), r, CurveAxis::context, 16).value();
  CHECK(seeded.x == alone.x);
  CHECK(seeded.total == alone.total);
  CHECK(seeded.high == alone.high);
}

TEST_CASE("vLLM's start check is part of the one fit rule: the solver's context is one the table accepts") {
  // llm-d-benchmark (vLLM 0.11, H100, util 0.9): "| Qwen3-32B | SUCCESS | ... | 4.45 | 1 | 16000 |" and
  // "| Qwen3-32B | FAILED | 61.03 | 5.64 | 0.14 | N/A | N/A | 1 | 32000 |": 4.45 GiB of KV pool hold
  // 4.45 × 2^30 / 262,144 B per token ≈ 18,200 tokens, so max_model_len 32000 cannot start while the weights,
  // KV and activations still total less than 0.9 of the card. https://github.com/llm-d/llm-d-benchmark/blob/
  // 4f4d44943c39b76b28e30dfa1fb0dfaf1ee894b5/config_explorer/empirical-vllm-memory-results.md
  auto request = request_from_json(R"({"model":"qwen3-32b","engine":"vllm","gpu":"h100-sxm","context":32000})");
  REQUIRE(request.ok());
  auto report = evaluate(test::catalog(), request.value());
  REQUIRE(report.ok());
  CHECK(report.value().gpus.front().fit == Fit::does_not_fit);
  auto limits = solve_limits(test::catalog(), request.value());
  REQUIRE(limits.ok());
  CHECK(limits.value().max_context >= 16'000);
  CHECK(limits.value().max_context < 32'000);
  Request at_limit = request.value();
  at_limit.context = limits.value().max_context;
  CHECK(evaluate(test::catalog(), at_limit).value().gpus.front().fit == Fit::fits);
  at_limit.context = limits.value().max_context + 1;
  CHECK(evaluate(test::catalog(), at_limit).value().gpus.front().fit != Fit::fits);
  // The remedies judge their "before" and each change by the same rule.
  auto remedies = remedies_for(test::catalog(), request.value());
  REQUIRE(remedies.ok());
  CHECK(remedies.value().fit == Fit::does_not_fit);
}

TEST_CASE("vLLM's and SGLang's largest batch: no more sequences than the pool holds or the engine runs at once") {
  auto limits_of = [](const char* json) {
    auto request = request_from_json(json);
    REQUIRE(request.ok());
    auto limits = solve_limits(test::catalog(), request.value());
    REQUIRE(limits.ok());
    return limits.value();
  };
  // max_num_seqs as given: vLLM's scheduler never runs more (vllm/v1/core/sched/scheduler.py, max_num_running_reqs).
  const Limits given = limits_of(R"({"model":"llama-3.1-8b","engine":"vllm","gpu":"h100-sxm","context":1024,"max_num_seqs":64})");
  CHECK(given.max_batch == 64);
  CHECK(given.batch_limit == BatchLimit::max_num_seqs);
  REQUIRE(given.notes.size() == 1);
  CHECK(given.notes.front().id == "limits.batch_max_num_seqs");
  // Its default on an H100 (≥ 70 GiB, not an A100: EngineArgs._set_default_args) is 1024. At 256 tokens the pool
  // holds more: its ~0.9 × 79.18 GiB − 15 GiB of weights ≈ 55 GiB at 128 KiB per token is ~450,000 tokens, ~1,750
  // sequences of 256.
  const Limits short_context = limits_of(R"({"model":"llama-3.1-8b","engine":"vllm","gpu":"h100-sxm","context":256})");
  CHECK(short_context.max_batch == 1024);
  CHECK(short_context.batch_limit == BatchLimit::max_num_seqs);
  // At 8192 tokens the pool binds: the batch is the whole sequences it holds (vLLM's "Maximum concurrency"), one
  // more does not run at once.
  auto request = request_from_json(R"({"model":"llama-3.1-8b","engine":"vllm","gpu":"h100-sxm","context":8192})");
  const Limits pool = limits_of(R"({"model":"llama-3.1-8b","engine":"vllm","gpu":"h100-sxm","context":8192})");
  auto report = evaluate(test::catalog(), request.value());
  REQUIRE(report.ok());
  REQUIRE(report.value().estimate.vllm.has_value());
  CHECK(pool.max_batch == report.value().estimate.vllm->max_concurrency);
  CHECK(pool.batch_limit == BatchLimit::kv_pool);
  CHECK(pool.notes.front().id == "limits.batch_kv_pool");
  // On an RTX 4090 at Llama 3.1 8B's full 131,072 tokens one sequence's cache is 131,072 B × 131,072 = 16 GiB, more
  // than 0.9 × 23.49 GiB − 14.96 GiB of weights ≈ 6.2 GiB: no sequence fits, and the note says vLLM would not start.
  const Limits none = limits_of(R"({"model":"llama-3.1-8b","engine":"vllm","gpu":"rtx-4090","context":131072})");
  CHECK(none.max_batch == 0);
  REQUIRE_FALSE(none.notes.empty());
  CHECK(none.notes.front().id == "limits.batch_kv_pool_none");
  // SGLang at 64 tokens: its pool holds far more than 4096 sequences, and max_running_requests is at most 4096
  // (ModelRunner: min(max(tokens / context_len × 512, 2048), 4096)).
  const Limits sglang = limits_of(R"({"model":"llama-3.1-8b","engine":"sglang","gpu":"h100-sxm","context":64})");
  CHECK(sglang.max_batch == 4096);
  CHECK(sglang.batch_limit == BatchLimit::max_running_requests);
  // An encoder has no pool (EncoderOnlyAttention keeps no KV cache): the scheduler's max_num_seqs alone, 256 by
  // default on a GPU under 70 GiB (EngineArgs._set_default_args), never "would not start".
  const Limits encoder = limits_of(R"({"model":"bert-base","engine":"vllm","gpu":"rtx-4090"})");
  CHECK(encoder.max_batch == 256);
  CHECK(encoder.batch_limit == BatchLimit::max_num_seqs);
  bool scheduler = false;
  for (const auto& note : encoder.notes) scheduler = scheduler || note.id == "limits.batch_max_num_seqs_encoder";
  CHECK(scheduler);
  // Engines without a pool of their own: the memory line alone.
  const Limits llamacpp = limits_of(R"({"model":"llama-3.1-8b","engine":"llamacpp","gpu":"h100-sxm","context":8192})");
  CHECK(llamacpp.batch_limit == BatchLimit::memory);
  CHECK(llamacpp.notes.empty());
}

TEST_CASE("a model with learned positions reads no more tokens than its table has rows") {
  // GPT-2's wpe has n_positions = 1024 rows (its config.json), BERT's position_embeddings 512
  // (max_position_embeddings): memory on a 24 GB card would hold far more, the model cannot.
  for (const auto& table : {std::pair{"gpt2", 1024ULL}, std::pair{"bert-base", 512ULL}}) {
    const std::string model = table.first;
    const std::uint64_t rows = table.second;
    CAPTURE(model);
    Request r;
    r.model = model;
    r.gpu = "rtx-4090";
    auto limits = solve_limits(test::catalog(), r);
    REQUIRE(limits.ok());
    CHECK(limits.value().max_context == rows);
    REQUIRE_FALSE(limits.value().notes.empty());
    CHECK(limits.value().notes.front().id == "limits.context_learned_positions");
  }
  // A RoPE model has no such table: its context stays the memory's (Llama 3.1 8B, about 28,000 tokens above).
  Request llama;
  llama.model = "llama-3.1-8b";
  llama.gpu = "rtx-4090";
  auto limits = solve_limits(test::catalog(), llama);
  REQUIRE(limits.ok());
  CHECK(limits.value().max_context > 20'000);
  for (const auto& note : limits.value().notes) CHECK(note.id != "limits.context_learned_positions");
}
