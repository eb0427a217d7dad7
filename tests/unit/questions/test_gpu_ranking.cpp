// Which GPU and how many (--rank-gpus), and the biggest model a card runs (--biggest), through the real
// memory estimate. Prices by hand from data/gpus.json; the seed article's tiers as scenarios.
#include <doctest/doctest.h>

#include "../test_support.hpp"
#include "questions/gpu_ranking.hpp"
#include "json/report_writer.hpp"
#include "json/request.hpp"

using namespace vramfit;

namespace {

Request request(const char* json) {
  auto r = request_from_json(json);
  REQUIRE_MESSAGE(r.ok(), json);
  return r.value();
}

GpuRankingReport recommended(const char* json) {
  auto r = rank_gpus_for(test::catalog(), request(json));
  REQUIRE_MESSAGE(r.ok(), json << ": " << (r.ok() ? "" : r.error().message.text));
  return std::move(r).value();
}

BiggestReport biggest(const char* json) {
  auto r = biggest_for(test::catalog(), request(json));
  REQUIRE_MESSAGE(r.ok(), json << ": " << (r.ok() ? "" : r.error().message.text));
  return std::move(r).value();
}

const RankedConfig& pick(const GpuRankingReport& r, const std::optional<std::size_t>& index) {
  REQUIRE(index.has_value());
  return r.ranking.configs[*index];
}

}  // namespace

TEST_CASE("recommend: the cheapest per hour and the fastest among the chosen GPUs") {
  // Llama-3.1-8B bf16 (~18 GB at 8192 tokens) fits one of each. Per hour, by hand from data/gpus.json:
  // RTX 4090 $0.34 < A100 80 GB $1.39 < H100 SXM $3.78; the fastest is the H100 (3350 GB/s).
  const GpuRankingReport r = recommended(R"({"model":"llama-3.1-8b","gpus":"rtx-4090,a100-80gb-sxm,h100-sxm"})");
  CHECK(r.ranking.configs.size() == 12);  // 3 GPUs × 1, 2, 4, 8
  const RankedConfig& cheapest = pick(r, r.ranking.cheapest_per_hour);
  CHECK(cheapest.gpu->id == "rtx-4090");
  CHECK(cheapest.count == 1);
  CHECK(*cheapest.usd_per_hour == doctest::Approx(0.34));
  CHECK(pick(r, r.ranking.fastest).gpu->id == "h100-sxm");
  // Buying: only the RTX 4090 has a street price ($1,599, 2022-10); $1,599 ÷ $0.34/h = 4,702.9 hours of renting it.
  CHECK(pick(r, r.ranking.cheapest_to_buy).gpu->id == "rtx-4090");
  CHECK(pick(r, r.ranking.cheapest_to_buy).count == 1);
  REQUIRE(r.ranking.break_even_hours.has_value());
  CHECK(*r.ranking.break_even_hours == doctest::Approx(4702.94).epsilon(1e-4));
  REQUIRE(r.notes.size() == 1);
  CHECK(r.notes[0].text == "Buying 1 × GeForce RTX 4090 for about $1,599 (the catalog's price as of 2022-10) costs as much as "
                      "4,703 hours of renting 1 × GeForce RTX 4090 at $0.34/h. Electricity, the rest of the computer and "
                      "what the cards sell for later are not counted.");
  // The need is the estimate's, split like check_fit: one GPU's free bytes equal evaluate()'s.
  auto report = evaluate(test::catalog(), request(R"({"model":"llama-3.1-8b","gpu":"rtx-4090"})"));
  REQUIRE(report.ok());
  CHECK(cheapest.free_bytes == report.value().gpus.front().free_bytes);
  CHECK(r.need.shardable_bytes + r.need.per_gpu_bytes == report.value().estimate.total);

  const std::string json = gpu_ranking_report_to_json(r);
  for (const char* key : {"\"ranking\":[", "\"cheapest_per_hour\":{", "\"cheapest_per_million_tokens\":{",
                          "\"fastest\":{", "\"tokens_per_second\":{", "\"usd_per_million_tokens\":{", "\"free_bytes\":",
                          "\"within_budget\":true", "\"memory\":{",
                          "\"cheapest_to_buy\":{", "\"break_even_hours\":4702.9", "\"purchase_usd\":1599",
                          "\"purchase_date\":\"2022-10\"", "\"purchase_usd\":null"}) {
    CAPTURE(key);
    CHECK(json.find(key) != std::string::npos);
  }
}

TEST_CASE("recommend: a used-card pair to buy against the cheapest GPU to rent") {
  // Llama 3.1 70B in Q4_K_M on llama.cpp at 4096 tokens, ~44 GB: one 48 GiB RTX A6000 holds it, a 24 GiB card needs a
  // second. By hand from data/gpus.json: to buy, 2 × Tesla P40 at $260 (used, 2026-06) = $520 < 2 × RTX 3090 at
  // $1,499 (2020-09) = $2,998 < 1 × RTX A6000 at $4,650; the H100 SXM has no street price. To rent, the A6000's
  // $0.33/h < 2 × RTX 3090 at 2 × $0.22 = $0.44/h; the P40 has no cloud price. Break-even: $520 ÷ $0.33/h = 1,575.76 h.
  const GpuRankingReport r = recommended(
      R"({"model":"llama-3.1-70b","weights":"q4_k_m","engine":"llamacpp","gpus":"rtx-3090,rtx-a6000,tesla-p40,h100-sxm"})");
  const RankedConfig& buy = pick(r, r.ranking.cheapest_to_buy);
  CHECK(buy.gpu->id == "tesla-p40");
  CHECK(buy.count == 2);
  CHECK(*buy.purchase_usd == doctest::Approx(520));
  CHECK(buy.purchase_date == "2026-06");
  const RankedConfig& rent = pick(r, r.ranking.cheapest_per_hour);
  CHECK(rent.gpu->id == "rtx-a6000");
  CHECK(rent.count == 1);
  REQUIRE(r.ranking.break_even_hours.has_value());
  CHECK(*r.ranking.break_even_hours == doctest::Approx(1575.7576));
  for (const RankedConfig& c : r.ranking.configs) {
    CAPTURE(c.gpu->id);
    CAPTURE(c.count);
    if (c.gpu->id == "rtx-3090") {
      CHECK(*c.purchase_usd == doctest::Approx(1499.0 * static_cast<double>(c.count)));
      CHECK(c.purchase_date == "2020-09");
    }
    if (c.gpu->id == "h100-sxm") {  // unknown, never 0
      CHECK_FALSE(c.purchase_usd.has_value());
      CHECK(c.purchase_date.empty());
    }
  }
  REQUIRE(r.notes.size() == 1);
  CHECK(r.notes[0].text == "Buying 2 × NVIDIA Tesla P40 for about $520 (the catalog's price as of 2026-06) costs as much as "
                      "1,576 hours of renting 1 × NVIDIA RTX A6000 at $0.33/h. Electricity, the rest of the computer and "
                      "what the cards sell for later are not counted.");
  CHECK(r.notes[0].id == "ranking.buy_break_even");
  const std::string json = gpu_ranking_report_to_json(r);
  CHECK(json.find("\"purchase_date\":null,\"purchase_usd\":null") != std::string::npos);  // the H100s
}

TEST_CASE("recommend: vLLM does not run on Pascal cards, so a used P40 is not a pick to buy for it") {
  // docs.vllm.ai getting_started/installation/gpu (v0.7 to v0.14): "GPU: compute capability 7.0 or higher"; the
  // Tesla P40 is Pascal (6.1). Llama 3.1 8B in bf16 at 8192 tokens (~18.6 GB) needs two 24 GiB cards under vLLM;
  // to buy, 2 × RTX 3090 = 2 × $1,499 = $2,998, which is 2 × $0.22 = $0.44/h rented: $2,998 ÷ $0.44/h = 6,813.6 h.
  const GpuRankingReport r = recommended(R"({"model":"llama-3.1-8b","engine":"vllm","gpus":"tesla-p40,rtx-3090"})");
  for (const RankedConfig& c : r.ranking.configs) {
    CAPTURE(c.count);
    if (c.gpu->id != "tesla-p40") continue;
    CHECK_FALSE(c.fits);
    CHECK(c.note.id == "ranking.vllm_pascal");
  }
  const RankedConfig& buy = pick(r, r.ranking.cheapest_to_buy);
  CHECK(buy.gpu->id == "rtx-3090");
  CHECK(buy.count == 2);
  REQUIRE(r.ranking.break_even_hours.has_value());
  CHECK(*r.ranking.break_even_hours == doctest::Approx(6813.64).epsilon(1e-4));
  // llama.cpp runs on Pascal: there the P40 stays (the pair above).
  const GpuRankingReport llama = recommended(R"({"model":"llama-3.1-8b","engine":"llamacpp","gpus":"tesla-p40"})");
  CHECK(pick(llama, llama.ranking.cheapest_to_buy).gpu->id == "tesla-p40");
}

TEST_CASE("recommend: 80 GB cards need two for 70B in 16 bits (seed tier)") {
  const GpuRankingReport r = recommended(R"({"model":"llama-2-70b","weights":"fp16","gpus":["a100-80gb-sxm"]})");
  for (const RankedConfig& c : r.ranking.configs) {
    CAPTURE(c.count);
    CHECK(c.fits == (c.count >= 2));
  }
}

TEST_CASE("recommend: a budget that excludes everything leaves no pick and says why") {
  const GpuRankingReport r =
      recommended(R"({"model":"llama-3.1-70b","weights":"bf16","budget_per_hour":0.5,"gpus":"rtx-4090,a100-80gb-sxm,apple-m2-ultra-192gb"})");
  CHECK_FALSE(r.ranking.cheapest_per_hour.has_value());
  CHECK_FALSE(r.ranking.cheapest_per_million_tokens.has_value());
  CHECK_FALSE(r.ranking.fastest.has_value());
  // The Mac has no cloud price: under a budget its cost is unknown, so it is left out.
  for (const RankedConfig& c : r.ranking.configs) CHECK(c.gpu->id != "apple-m2-ultra-192gb");
  REQUIRE(r.notes.size() == 3);
  CHECK(r.notes[0].text.find("1 GPU type(s) without a catalog price") != std::string::npos);
  // ~146 GB fits 8 × RTX 4090 (8 × $0.34 = $2.72/h) and 2 × A100 80 GB (2 × $1.39 = $2.78/h): the note
  // names the cheaper one.
  CHECK(r.notes[1].text == "Nothing that fits costs at most $0.50/h; the cheapest that fits is 8 × GeForce RTX 4090 at $2.72/h.");
  // The budget is for renting: buying 8 × RTX 4090 is 8 × $1,599 (street_usd, 2022-10) = $12,792; the A100 has no
  // street price.
  CHECK(r.notes[2].text == "The cheapest to buy that fits is 8 × GeForce RTX 4090 for about $12,792 (the catalog's price as "
                      "of 2022-10); there is no cheapest per hour to compare it with.");
  CHECK_FALSE(r.ranking.break_even_hours.has_value());
  const std::string json = gpu_ranking_report_to_json(r);
  CHECK(json.find("\"cheapest_per_hour\":null,\"cheapest_per_million_tokens\":null,\"cheapest_to_buy\":{\"count\":8,"
                  "\"gpu\":\"rtx-4090\"") != std::string::npos);
  CHECK(json.find("\"fastest\":null") != std::string::npos);
}

TEST_CASE("recommend: nothing fits, and the closest miss is named") {
  const GpuRankingReport r = recommended(R"({"model":"llama-3.1-405b","weights":"bf16","gpus":"rtx-4060"})");
  REQUIRE(r.notes.size() == 1);
  CHECK(r.notes[0].text.find("No configuration fits within the 10 % headroom; the closest, 8 × GeForce RTX 4060, is short by") !=
        std::string::npos);
}

TEST_CASE("recommend: bad inputs name the field") {
  CHECK(rank_gpus_for(test::catalog(), request(R"({"model":"llama-3.1-8b","gpus":"voodoo"})")).error().field == "gpus");
  CHECK(request_from_json(R"({"model":"llama-3.1-8b","budget_per_hour":-1})").error().field == "budget_per_hour");
  CHECK(rank_gpus_for(test::catalog(), request(R"({"model":"llama-3.1-8b","engine":"llamacpp","gpu_layers":10})"))
            .error()
            .field == "gpu_layers");
  CHECK(answer(test::catalog(), "{").find("\"ok\":false") != std::string::npos);
}

TEST_CASE("biggest: the seed article's tiers through the real estimate (llama.cpp, 4096 tokens)") {
  SUBCASE("8 GB runs a 7B-class model in 4 bits, not a 13B") {
    const BiggestReport r = biggest(R"({"gpu":"rtx-4060","engine":"llamacpp","weights":"q4_k_m"})");
    REQUIRE(r.biggest.has_value());
    CHECK(r.candidates[*r.biggest].params >= 7'000'000'000ULL);
    CHECK(r.candidates[*r.biggest].params < 13'000'000'000ULL);
  }
  SUBCASE("24 GB runs 13B in 8 bits, not a 30B") {
    const BiggestReport r = biggest(R"({"gpu":"rtx-4090","engine":"llamacpp","weights":"q8_0"})");
    REQUIRE(r.biggest.has_value());
    CHECK(r.candidates[*r.biggest].params >= 13'000'000'000ULL);
    CHECK(r.candidates[*r.biggest].params < 30'000'000'000ULL);
  }
  SUBCASE("48 GB runs 70B in 4 bits") {
    const BiggestReport r = biggest(R"({"gpu":"rtx-a6000","engine":"llamacpp","weights":"q4_k_m"})");
    REQUIRE(r.biggest.has_value());
    CHECK(r.candidates[*r.biggest].params >= 69'000'000'000ULL);
  }
}

TEST_CASE("biggest: most parameters first, the best format per format, and the JSON") {
  const BiggestReport r = biggest(R"({"gpu":"rtx-4090","engine":"llamacpp","context":8192})");
  CHECK(r.formats == biggest_formats(Engine::llamacpp));
  CHECK(r.context == 8192);
  REQUIRE(r.biggest.has_value());
  const ModelCandidate& best = r.candidates[*r.biggest];
  CHECK(r.free_bytes[*r.biggest] >= 0);
  for (std::size_t i = 0; i < r.candidates.size(); ++i) {
    const ModelCandidate& c = r.candidates[i];
    const bool fits = classify_fit(c.total_bytes, r.gpu->usable_bytes(), r.headroom) == Fit::fits;
    if (fits) CHECK(c.params <= best.params);
  }
  CHECK(r.by_format.size() == r.formats.size());
  const std::string json = biggest_report_to_json(r);
  CHECK(json.find("\"biggest\":{") != std::string::npos);
  CHECK(json.find("\"model\":\"" + best.model + "\"") != std::string::npos);
  CHECK(json.find("\"context\":8192") != std::string::npos);
}

TEST_CASE("biggest: needs a GPU, and says when nothing fits") {
  CHECK(biggest_for(test::catalog(), request(R"({"engine":"llamacpp"})")).error().field == "gpu");
  CHECK(biggest_for(test::catalog(), request(R"({"gpu":"rtx-4090","weights":"fp12"})")).error().field == "weights");
  const BiggestReport r = biggest(R"({"gpu":"rtx-4060","weights":"bf16","context":1000000})");
  CHECK_FALSE(r.biggest.has_value());
  CHECK(r.notes.back().text.find("No preset fits GeForce RTX 4060") != std::string::npos);
  CHECK(biggest_report_to_json(r).find("\"biggest\":null") != std::string::npos);
}

TEST_CASE("tensor parallel reads each GPU's share: the estimate on 2 GPUs and the ranking's 2-GPU row agree") {
  // Qwen3-32B bf16 under vLLM on 2 × H100 SXM: each rank reads half the weights per step, so the estimate with
  // tp 2 must show the speed the ranking gives the same two cards, not one GPU's (which reads all 65.5 GB).
  auto one = request(R"({"model":"qwen3-32b","engine":"vllm","gpu":"h100-sxm","context":8192})");
  auto two = one;
  two.tp = 2;
  const auto estimate = evaluate(test::catalog(), two);
  REQUIRE(estimate.ok());
  REQUIRE(estimate.value().serving);
  REQUIRE(estimate.value().serving->speed);
  const Range tp2 = estimate.value().serving->speed->decode.tokens_per_second;
  const auto single = evaluate(test::catalog(), one);
  REQUIRE(single.ok());
  const Range tp1 = single.value().serving->speed->decode.tokens_per_second;
  CHECK(tp2.low > 1.5 * tp1.low);  // half the bytes per GPU, less the all-reduces

  one.gpu.clear();
  one.gpus = {"h100-sxm"};
  const auto ranked = rank_gpus_for(test::catalog(), one);
  REQUIRE(ranked.ok());
  bool found = false;
  for (const auto& c : ranked.value().ranking.configs) {
    if (c.count != 2 || c.gpu->id != "h100-sxm" || !c.tokens_per_second) continue;
    found = true;
    CHECK(c.tokens_per_second->low == doctest::Approx(tp2.low).epsilon(0.02));
    CHECK(c.tokens_per_second->high == doctest::Approx(tp2.high).epsilon(0.02));
  }
  CHECK(found);
}

TEST_CASE("recommend: vLLM and SGLang rank no Mac (no Metal backend); only Macs named is refused") {
  for (const char* engine : {"vllm", "sglang"}) {
    CAPTURE(engine);
    const GpuRankingReport all =
        recommended((std::string(R"({"model":"llama-3.1-8b","context":8192,"engine":")") + engine + "\"}").c_str());
    REQUIRE_FALSE(all.ranking.configs.empty());
    for (const RankedConfig& c : all.ranking.configs) CHECK(c.gpu->vendor != "Apple");
    const GpuRankingReport named = recommended(
        (std::string(R"({"model":"llama-3.1-8b","context":8192,"gpus":"h100-sxm,apple-m2-ultra-192gb","engine":")") +
         engine + "\"}").c_str());
    for (const RankedConfig& c : named.ranking.configs) CHECK(c.gpu->id == "h100-sxm");
    // The Mac named is not dropped silently: a note names it.
    bool said = false;
    for (const Message& n : named.notes)
      said = said || (n.id == "ranking.engine_left_out" && n.text.find("apple-m2-ultra-192gb") != std::string::npos);
    CHECK(said);
    auto macs = rank_gpus_for(test::catalog(), request((std::string(R"({"model":"llama-3.1-8b","gpus":"apple-m2-ultra-192gb","engine":")") +
                                                        engine + "\"}").c_str()));
    REQUIRE_FALSE(macs.ok());
    CHECK(macs.error().field == "gpus");
    CHECK(macs.error().message.id == "engine.rank_no_macs");
  }
}

TEST_CASE("recommend: a layer split is ranked by its busiest GPU, the free memory its own answer gives") {
  // Llama 3.1 70B Q4_K_M under llama.cpp at 4,096 tokens on 2 × RTX 3090: llama.cpp puts layers 0–40 on the first
  // card and 41–79 with the output layer on the second (whole layers, --split-mode layer), so the busier card holds
  // 41 of the 80 layers, not half of everything. The ranking's 2 × RTX 3090 row keeps free what the answer for that
  // setup says each card keeps (its headline's "free each").
  auto asked = request(
      R"({"model":"llama-3.1-70b","weights":"q4_k_m","engine":"llamacpp","context":4096,"gpu":"rtx-3090","gpus":2})");
  const auto answer = evaluate(test::catalog(), asked);
  REQUIRE(answer.ok());
  REQUIRE(answer.value().per_gpu_free_bytes);
  const std::int64_t headline_free = *answer.value().per_gpu_free_bytes;
  const GpuRankingReport ranked = recommended(
      R"({"model":"llama-3.1-70b","weights":"q4_k_m","engine":"llamacpp","context":4096,"gpus":["rtx-3090"]})");
  const RankedConfig* two = nullptr;
  for (const RankedConfig& c : ranked.ranking.configs)
    if (c.count == 2) two = &c;
  REQUIRE(two);
  CHECK(two->free_bytes == headline_free);
  // By hand, the busier card against an even split: the output layer (lm_head 128,256 × 8,192 in Q6_K, 6.5625 bits:
  // 0.86 GB) leaves (41.92 − 0.86) / 80 = 0.513 GB per repeating layer; 41 layers and their KV (41/80 of 1.34 GB)
  // are 21.04 + 0.69 = 21.73 GB against half of weights and KV, (41.92 + 1.34) / 2 = 21.63 GB: at least 0.1 GB less
  // free than the even split says.
  const std::uint64_t even = bytes_per_gpu(MemoryNeed{ranked.need.shardable_bytes, ranked.need.per_gpu_bytes, {}}, 2);
  CHECK(two->free_bytes < signed_difference(two->gpu->usable_bytes(), even) - 100'000'000);
}
