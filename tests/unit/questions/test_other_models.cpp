// The other models loaded first (--also) as each card of the GPU table and the ranking would hold them: vLLM and
// SGLang size a server by the card it starts on. Sources: vLLM gpu_worker.py (requested_memory = total ×
// gpu_memory_utilization) and check_enough_kv_cache_memory (the pool holds one sequence); SGLang
// python/sglang/srt/server_args.py _handle_gpu_memory_settings (0.5.3+: chunked_prefill_size, cuda_graph_max_bs and
// the reserved memory by the card's MiB; mem_fraction_static = round((MiB − reserved) / MiB, 3)) and
// model_runner_kv_cache_mixin.py _profile_available_bytes (weights + pool = mem_fraction_static × the free memory
// F0 measured before loading). Card totals: data/gpus.json driver_visible_gib (H100 SXM 79.18, RTX 4090 23.49).
#include <doctest/doctest.h>

#include <cmath>   // std::ceil, std::floor
#include <vector>  // std::vector

#include "../test_support.hpp"
#include "json/request.hpp"
#include "questions/gpu_ranking.hpp"
#include "questions/other_models.hpp"

using namespace vramfit;

namespace {

Request request(const std::string& json) {
  auto r = request_from_json(json);
  REQUIRE_MESSAGE(r.ok(), json);
  return r.value();
}

ResolvedRequest resolved(const std::string& json) {
  auto rr = resolve_request(test::catalog(), request(json));
  REQUIRE_MESSAGE(rr.ok(), json << ": " << (rr.ok() ? "" : rr.error().message.text));
  return std::move(rr).value();
}

Report evaluated(const std::string& json) {
  auto r = evaluate(test::catalog(), request(json));
  REQUIRE_MESSAGE(r.ok(), json << ": " << (r.ok() ? "" : r.error().message.text));
  return std::move(r).value();
}

// The GPU table of the request (every card judged), as the page asks it beside the estimate.
Report every_gpu(const std::string& json) {
  const Request r = request(json);
  const ResolvedRequest rr = resolved(json);
  auto base = evaluate(test::catalog(), r, rr);
  REQUIRE(base.ok());
  auto every = on_every_gpu(test::catalog(), r, rr, base.value());
  REQUIRE_MESSAGE(every.ok(), json << ": " << (every.ok() ? "" : every.error().message.text));
  return std::move(every).value();
}

const GpuFit& row_of(const Report& r, const char* id) {
  for (const GpuFit& f : r.gpus)
    if (f.gpu->id == id) return f;
  FAIL("no row for " << id);
  return r.gpus.front();
}

// The ranking of the GPU types `ids` (the ranking's "gpus") for the request.
GpuRankingReport ranked(const std::string& json, std::vector<std::string> ids) {
  Request r = request(json);
  r.gpus = std::move(ids);
  auto ranking = rank_gpus_for(test::catalog(), r);
  REQUIRE_MESSAGE(ranking.ok(), json << ": " << (ranking.ok() ? "" : ranking.error().message.text));
  return std::move(ranking).value();
}

// The request's JSON with another GPU chosen.
std::string on(const std::string& scenario, const char* gpu) {
  return R"({"gpu":")" + std::string(gpu) + "\"," + scenario + "}";
}

}  // namespace

TEST_CASE("SGLang: an other server holds mem_fraction_static of what it finds free on each card, not on the chosen one") {
  const std::string scenario = R"("model":"qwen3-0.6b","engine":"sglang","context":4096,"also":"llama-3.2-1b@4096")";
  const ResolvedRequest rr = resolved(on(scenario, "h100-sxm"));
  const Gpu& h100 = test::gpu("h100-sxm");
  const Gpu& rtx = test::gpu("rtx-4090");
  // By hand, the totals: 79.18 GiB = 85'018'877'624 B (81'080 MiB); 23.49 GiB = 25'222'195'446 B (24'053 MiB).
  REQUIRE(h100.driver_total_bytes() == 85'018'877'624);
  REQUIRE(rtx.driver_total_bytes() == 25'222'195'446);
  // SGLang's default fraction on each (tp 1, the newest rule, prefill graphs up to chunked_prefill_size):
  // H100 (60..160 GiB): chunked 8192, cuda_graph_max_bs 256, 58 prefill sizes up to 8192; reserved = 512 + 8192 × 1.5
  //   + 1024 / 8 + 256 × 2 + 58 × 8 = 13'904 MiB; fraction = round((81'080 − 13'904) / 81'080, 3) = 0.829.
  // RTX 4090 (20..35 GiB): chunked 2048, cuda_graph_max_bs 24, 42 prefill sizes up to 2048; reserved = 512 + 2048 ×
  //   1.5 + 128 + 24 × 2 + 42 × 8 = 4'096 MiB; fraction = round((24'053 − 4'096) / 24'053, 3) = 0.830.
  // F0 = total − its CUDA context (512 MiB = 536'870'912 B); weights + pool = fraction × F0:
  //   H100: 0.829 × 84'482'006'712 = 70'035'583'564 B; RTX 4090: 0.830 × 24'685'324'534 = 20'488'819'363 B.
  struct Card {
    const Gpu* gpu;
    double share_bytes;
  };
  for (const Card& card : {Card{&h100, 70'035'583'564.0}, Card{&rtx, 20'488'819'363.0}}) {
    CAPTURE(card.gpu->id);
    const auto others = others_on_card(rr, *card.gpu);
    REQUIRE(others);
    CHECK(others->refusal.empty());
    REQUIRE(others->models.size() == 1);
    // What lies outside the share (activations, graphs, CUDA context) from the other model alone on that card.
    const Report alone = evaluated(on(R"("model":"llama-3.2-1b","engine":"sglang","context":4096)", card.gpu->id.c_str()));
    REQUIRE(alone.estimate.sglang);
    const PerGpuMemory& g = alone.estimate.per_gpu;
    const std::uint64_t outside = g.total - g.weights - g.kv_cache - g.state_cache;
    const double in_share = static_cast<double>(others->models.front().bytes - outside);
    // The pool is whole cells: up to one cell below fraction × F0 (and a byte of rounding either way).
    CHECK(in_share <= card.share_bytes + 1);
    CHECK(in_share >= card.share_bytes - static_cast<double>(alone.estimate.sglang->cell_bytes) - 1);
    CHECK(others->in_use_bytes == others->models.front().bytes);
  }
  // On the chosen card the figure is the one the answer counts.
  CHECK(others_on_card(rr, h100)->in_use_bytes == rr.options.memory_in_use);
}

TEST_CASE("SGLang: each card of the GPU table is judged as choosing that card judges it") {
  const std::string scenario = R"("model":"qwen3-0.6b","engine":"sglang","context":4096,"also":"llama-3.2-1b@4096")";
  const Report table = every_gpu(on(scenario, "h100-sxm"));
  for (const char* id : {"rtx-4090", "l40s", "a100-80gb-sxm"}) {
    CAPTURE(id);
    const Report chosen = evaluated(on(scenario, id));
    const GpuFit& row = row_of(table, id);
    CHECK(row.fit == chosen.gpus.front().fit);
    CHECK(row.free_bytes == chosen.gpus.front().free_bytes);
  }
  // On the RTX 4090 the other server takes 0.830 of its own free memory (~20.5 GB), not the ~70 GB it takes on the
  // H100, which would leave a 25 GB card nothing: the model asked about still fits there.
  CHECK(row_of(table, "rtx-4090").fit != Fit::does_not_fit);
}

TEST_CASE("vLLM: an other server starts with the least share of each card's own total that holds it") {
  const std::string scenario = R"("model":"qwen3-0.6b","engine":"vllm","context":4096,"also":"llama-3.2-1b@4096")";
  const ResolvedRequest rr = resolved(on(scenario, "h100-sxm"));
  // What it needs beside its pool (weights, activation peak, non-torch memory) and one sequence's blocks, from the
  // estimate alone at the default share; its share on a card is ceil(need × 100 / total) / 100, raised by a
  // hundredth where the pool then falls short of the sequence.
  // The need is the card's too: vLLM's defaults for max_num_seqs and max_num_batched_tokens grow with the card's
  // memory (vLLM 0.27 arg_utils.py), and with them the sampler's logits and the profile run's activation peak, so
  // the H100's need is the larger. The shares follow from the needs the estimate gives (its lines pinned to vLLM's
  // logs in test_vllm.cpp) by vLLM's rule: 0.10 of the H100's 85,018,877,624 B and 0.16 of the RTX 4090's
  // 25,222,195,446 B.
  struct Card {
    const char* id;
    double util;
  };
  std::vector<std::uint64_t> needs;
  // Not a structured binding: clang before 16 refuses one inside CAPTURE's lambda.
  for (const Card& each : {Card{"h100-sxm", 0.10}, Card{"rtx-4090", 0.16}}) {
    const char* id = each.id;
    const double util_by_hand = each.util;
    CAPTURE(id);
    const Gpu& card = test::gpu(id);
    const Report alone = evaluated(on(R"("model":"llama-3.2-1b","engine":"vllm","context":4096)", id));
    REQUIRE(alone.estimate.vllm);
    const VllmCapacity& v = *alone.estimate.vllm;
    const std::uint64_t need = v.budget_bytes - v.kv_capacity_bytes + v.request_bytes + v.block_bytes;
    needs.push_back(need);
    const std::uint64_t total = card.driver_total_bytes();
    const double util = std::ceil(static_cast<double>(need) * 100.0 / static_cast<double>(total)) / 100.0;
    const auto others = others_on_card(rr, card);
    REQUIRE(others);
    REQUIRE(others->models.size() == 1);
    const OtherModel& m = others->models.front();
    CHECK((m.gpu_util == doctest::Approx(util) || m.gpu_util == doctest::Approx(util + 0.01)));
    CHECK(m.gpu_util == doctest::Approx(util_by_hand));
    CHECK(static_cast<double>(need) > (util_by_hand - 0.01) * static_cast<double>(total));
    CHECK(static_cast<double>(need) <= util_by_hand * static_cast<double>(total));
    // It holds floor(util × total) + graphs outside the budget + its 512 MiB CUDA context.
    const Report at = evaluated(on(R"("model":"llama-3.2-1b","engine":"vllm","context":4096,"gpu_util":)" +
                                       std::to_string(m.gpu_util),
                                   id));
    const std::uint64_t graphs = at.estimate.vllm->cuda_graphs_in_budget ? 0 : at.estimate.vllm->cuda_graph_bytes;
    CHECK(m.bytes == static_cast<std::uint64_t>(std::floor(static_cast<double>(total) * m.gpu_util)) + graphs +
                         536'870'912);
  }
  REQUIRE(needs.size() == 2);
  CHECK(needs[0] > needs[1]);
  // The shares differ by card: 0.16 of the smaller card against 0.10 of the H100.
  CHECK(others_on_card(rr, test::gpu("rtx-4090"))->models.front().gpu_util >
        others_on_card(rr, test::gpu("h100-sxm"))->models.front().gpu_util);
  CHECK(others_on_card(rr, test::gpu("h100-sxm"))->in_use_bytes == rr.options.memory_in_use);
}

TEST_CASE("vLLM: the GPU table and the ranking judge each card with the other servers as sized there") {
  const std::string scenario = R"("model":"qwen3-0.6b","engine":"vllm","context":4096,"also":"llama-3.2-1b@4096")";
  const Report table = every_gpu(on(scenario, "h100-sxm"));
  const GpuRankingReport ranking = ranked(on(scenario, "h100-sxm"), {"h100-sxm", "rtx-4090", "l40s"});
  for (const char* id : {"rtx-4090", "l40s"}) {
    CAPTURE(id);
    const Report chosen = evaluated(on(scenario, id));
    CHECK(row_of(table, id).fit == chosen.gpus.front().fit);
    CHECK(row_of(table, id).free_bytes == chosen.gpus.front().free_bytes);
    // The ranking's one card: what is left beside that card's other servers less the model's GPU-less bytes.
    int ones = 0;
    for (const RankedConfig& c : ranking.ranking.configs)
      if (c.gpu->id == id && c.count == 1) {
        ++ones;
        CHECK(c.free_bytes == signed_difference(usable_for(*c.gpu, chosen.estimate.in_use),
                                                bytes_per_gpu(ranking.need, 1)));
      }
    CHECK(ones == 1);
  }
}

TEST_CASE("vLLM: a card where an other server finds no share does not fit, and the ranking says why") {
  // Llama 3.1 8B in bf16 is 16 GB of weights: no share of a 12 GB RTX 3060 holds it (vllm_util_holding finds none).
  const std::string scenario = R"("model":"qwen3-0.6b","engine":"vllm","context":4096,"also":"llama-3.1-8b@4096")";
  const Report table = every_gpu(on(scenario, "h100-sxm"));
  const GpuFit& row = row_of(table, "rtx-3060-12gb");
  CHECK(row.fit == Fit::does_not_fit);
  CHECK(row.gpus_needed == 0);
  CHECK(row.free_bytes < 0);
  const GpuRankingReport ranking = ranked(on(scenario, "h100-sxm"), {"h100-sxm", "rtx-3060-12gb"});
  bool seen = false;
  for (const RankedConfig& c : ranking.ranking.configs)
    if (c.gpu->id == "rtx-3060-12gb") {
      seen = true;
      CHECK_FALSE(c.fits);
      CHECK(c.note.id == "also.vllm_no_share");
    }
  CHECK(seen);
}
