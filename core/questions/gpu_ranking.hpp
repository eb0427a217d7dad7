#pragma once
// The hardware questions asked of a scenario: which GPU type and count to rent or buy (ranked by
// price and speed), and the biggest model and quantization a given card runs. The CLI (--rank-gpus,
// --biggest) and the page (questions gpu_ranking, biggest_model) both go through here and print the same JSON.
#include <cstddef>      // std::size_t
#include <cstdint>      // std::uint64_t
#include <optional>     // std::optional
#include <string>       // std::string
#include <vector>       // std::vector

#include "hardware/ranking.hpp"
#include "questions/evaluate.hpp"
#include "util/message.hpp"  // Message

namespace vramfit {

struct GpuRankingReport {
  std::string model_id;
  std::string model_name;
  InferenceEstimate estimate;  // the scenario's memory on one GPU, without a GPU-specific vLLM budget
  MemoryNeed need;             // memory_need(estimate): what tensor parallelism splits and what it does not
  RankOptions options;         // as ranked: headroom, counts, budget, the GPU list, the speed inputs
  GpuRanking ranking;
  std::vector<Message> notes;  // why a pick is missing: nothing fits, nothing within the budget, ...
};

// Ranks request.gpus (else request.gpu, else the whole catalog) × 1/2/4/8 GPUs for the request's
// scenario. With a budget, GPUs without a catalog price are left out (their cost is unknown) and a note
// says so. --ngl is refused: the ranking keeps every layer on the GPU.
Result<GpuRankingReport> rank_gpus_for(const Catalog& catalog, const Request& request);
// The same for a scenario already resolved without its GPU (without_gpu) and estimated: `estimate` is that
// scenario's, as evaluate() gives it for every GPU; the other models sized on each card from `others_sized` where
// given (questions/other_models.hpp), as the GPU table of the same answer sized them.
Result<GpuRankingReport> rank_gpus_for(const Catalog& catalog, const Request& request, const ResolvedRequest& scenario,
                                       const InferenceEstimate& estimate, OthersByCard* others_sized = nullptr);

struct BiggestReport {
  const Gpu* gpu = nullptr;
  std::uint64_t context = 0;
  std::uint64_t batch = 1;
  std::string engine;
  double headroom = kDefaultHeadroom;
  std::vector<std::string> formats;      // the weight formats tried
  std::vector<ModelCandidate> candidates;  // every preset × format that could be estimated
  std::vector<std::int64_t> free_bytes;    // per candidate: usable − total
  std::optional<std::size_t> biggest;      // index into candidates; none when nothing fits
  std::vector<std::size_t> by_format;      // per format that fits something: its biggest candidate
  std::vector<Message> notes;
};

// Weight formats the engine loads, best first: llama.cpp GGUF types (bf16, q8_0 ... q2_k), vLLM
// (bf16, fp8, int8, awq-4bit-128g), transformers (bf16, bnb-int8, nf4).
std::vector<std::string> biggest_formats(Engine engine);

// "The biggest model I can run on my card at context N": every preset × biggest_formats(engine)
// (or the request's one --weights format) estimated at the request's context (default 4096), batch
// and engine; the winner has the most parameters, then the most bits per weight. Needs request.gpu.
Result<BiggestReport> biggest_for(const Catalog& catalog, const Request& request);

}  // namespace vramfit
