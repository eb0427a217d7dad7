#pragma once
// One question asked of the calculator, and its whole answer. The CLI and the page both go through
// here, so they print the same numbers; json/ reads the request and writes the report.
#include <cstdint>      // std::uint64_t
#include <optional>     // std::optional
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::pair
#include <vector>       // std::vector

#include "formats/imported_model.hpp"
#include "hardware/gpu.hpp"
#include "memory/inference.hpp"
#include "memory/engines/llamacpp_fit.hpp"
#include "model/model_presets.hpp"
#include "hardware/fit.hpp"
#include "hardware/serving.hpp"
#include "questions/verdict.hpp"
#include "util/message.hpp"  // Message

namespace vramfit {

struct Catalog {
  std::vector<ModelPreset> models;
  std::vector<Gpu> gpus;
};

Result<Catalog> load_catalog(std::string_view models_json, std::string_view gpus_json,
                             std::span<const std::string_view> model_configs = {});

// The catalog with the Mac named `gpu` wiring `limit_mib` (sudo sysctl iogpu.wired_limit_mb): every question then
// judges that GPU by it, as the engines see it. Refused, naming "wired_limit_mb", without a GPU, for one with memory
// of its own, or above its RAM. `catalog` itself when limit_mib is 0 (macOS's default).
Result<Catalog> with_wired_limit(const Catalog& catalog, std::string_view gpu, std::uint64_t limit_mib);

// The catalog with the card the request describes (gpu_memory, gpu_bandwidth, ...: custom_gpu) at its end, and `gpu`
// set to its id, so that every question judges it as it judges a catalog entry; a card like a catalog entry joins
// beside that entry. `catalog` itself when nothing describes a card. Refused as custom_gpu refuses.
Result<Catalog> with_custom_gpu(const Catalog& catalog, std::string& gpu, const CustomGpuInputs& in);

// Another model loaded on the same GPUs before the one asked about (--also ID@CONTEXT): a preset's id or the name a
// client read (a Hub repository, an Ollama model, a file: `read`), and its context (none: the engine's default).
struct OtherModelRequest {
  std::string model;
  std::optional<std::uint64_t> context;
  std::optional<ReadModel> read;
};

// Choices arrive typed: the request reader (json/request.hpp) turns their text into these values once, by the
// inputs table, and refuses what it cannot read there; the questions never read the text again.
struct Request {
  std::string model;        // preset id; or empty with params / config_json
  std::string model_name;   // the name a config or file is shown by ("microsoft/phi-4"); "" = its architecture
  std::string model_repo;   // the Hugging Face repository a looked-up model file was read from ("owner/name")
  std::string model_quant;  // that file's quantization as its name writes it ("Q4_K_M"): answer_file, answer_shards
  std::string model_file;   // that file's path in the repository, as read (the first part of a split): likewise
  std::string model_revision;  // the repository's revision it was read at; "" = the default branch
  std::string model_hf_file;   // the file, when llama-server's -hf REPO:QUANT would take another (plan_hub_reads')
  std::string ollama_tag;   // the Ollama tag a looked-up model file is ("phi4:14b"): Ollama runs it unless engine_given
  std::string config_json;  // a pasted or dropped HF config.json
  std::string quant_config_json;  // its hf_quant_config.json (NVIDIA ModelOpt), read with it
  std::string config_name;  // the config.json's file or folder name, for the format an NVIDIA checkpoint's name says
  std::uint64_t params = 0; // bare parameter count
  std::optional<ImportedModel> imported;  // a GGUF/safetensors header read by the caller (CLI --model x.gguf)
  std::string weights;          // empty: the checkpoint's quantization_config, else bf16
  std::optional<KvDType> kv_dtype;  // none: the engine's default (or the checkpoint's, where the engine reads it)
  std::optional<std::uint64_t> context;  // none: the engine's default context
  std::uint64_t batch = 1;
  double headroom = kDefaultHeadroom;
  std::string gpu;              // empty: every GPU in the catalog
  Engine engine = Engine::transformers;
  bool engine_given = false;    // false: transformers, or Ollama for a name in Ollama's form (an Ollama tag)
  // The inputs given that only some engines read, each with those engines (bit i: kEngineTable[i]), as the inputs
  // table says; checked once the engine is known. A toggle given as off or an empty text asks nothing: not listed.
  struct EngineInput {
    std::string key;
    unsigned engines = 0;
  };
  std::vector<EngineInput> engine_inputs;
  std::optional<Attention> attention;  // none: sdpa, Ollama's by its version; llama.cpp: sdpa = -fa on, eager = -fa off
  std::optional<KvAllocation> kv_allocation;  // none: the engine's
  std::optional<std::uint64_t> avg_tokens;
  bool expandable_segments = false;
  std::optional<double> gpu_util;  // vLLM's gpu_memory_utilization; none: its default for engine_version
  std::string engine_version;   // vLLM's, as "0.11" or "0.21.1", SGLang's or Ollama's; empty: the version modelled
  std::optional<double> mem_fraction_static;       // SGLang --mem-fraction-static; none: its default
  std::optional<std::uint64_t> max_total_tokens;   // SGLang --max-total-tokens
  std::optional<std::uint64_t> max_kv_size;        // MLX --max-kv-size: a rotating cache of this many tokens
  std::optional<std::uint64_t> ollama_gpu_overhead;  // OLLAMA_GPU_OVERHEAD in bytes
  std::optional<std::uint64_t> memory_in_use;  // bytes other programs already hold on each GPU
  std::vector<OtherModelRequest> also;  // other models loaded first, each estimated alone (questions/other_models)
  bool enforce_eager = false;   // vLLM --enforce-eager
  bool language_model_only = false;  // vLLM --language-model-only: no vision tower, no image profiling
  std::optional<std::uint64_t> max_num_batched_tokens;
  std::optional<std::uint64_t> max_num_seqs;
  std::optional<std::uint64_t> gpu_layers;  // llama.cpp -ngl
  bool mmproj = false;          // llama-server --mmproj: the vision projector loaded on the GPU
  std::uint64_t images = 0;     // a vision model's images per request
  std::optional<std::pair<std::uint64_t, std::uint64_t>> image_size;  // width, height; none: the engine's own size
  // Speculative decoding: a preset id or "mtp" (the model's own MTP layers), or a draft's config.json text.
  std::string draft;
  std::string draft_config;
  std::optional<ReadModel> draft_read;  // what a client read for `draft` (a Hub repository, an Ollama model, a file)
  std::optional<std::uint64_t> draft_tokens;  // draft tokens per step; none: the engine's default
  std::optional<double> acceptance;           // α; none: the default range
  std::uint64_t tp = 1;  // vLLM --tensor-parallel-size, SGLang --tp
  std::uint64_t pp = 1;  // vLLM --pipeline-parallel-size, SGLang --pp-size
  std::uint64_t wired_limit_mb = 0;  // Apple: iogpu.wired_limit_mb for `gpu` (with_wired_limit); 0: macOS's default
  CustomGpuInputs custom_gpu;  // a card described by its figures (with_custom_gpu): gpu "custom", or like `gpu`
  // Speed and cost (with a GPU), and the GPU ranking of gpu_ranking.hpp.
  ServingInputs serving;                // system_bandwidth, prompt_tokens, usd_per_kwh
  std::vector<std::string> gpus;        // gpu_ranking: the GPUs to rank (ids or names); empty: all
  std::uint64_t gpu_count = 1;          // "gpus" as a number: how many of `gpu` the person has
  std::vector<std::string> devices;     // "gpus" as names outside the ranking: the cards one has, CUDA0 first
  std::optional<double> budget_per_hour;  // gpu_ranking: the most a whole configuration may cost per hour
};

struct Report {
  ModelSpec model;
  std::uint64_t published_params = 0;
  std::string context_source;  // "request", "preset", "engine_default", "model_max", "engine_fit" (--fit's)
  InferenceEstimate estimate;
  std::vector<GpuFit> gpus;
  double headroom = kDefaultHeadroom;  // as applied to `gpus` (fit_headroom), for the remedies and the page's legend
  std::optional<ServingEstimate> serving;  // speed and cost on the request's GPU; none without one
  // llama.cpp's --fit on the request's GPU, where fit would plan (no -ngl given); none otherwise.
  std::optional<LlamaCppFitPlan> llamacpp_fit;
  std::string command;       // the engine's command line for this scenario (questions/command_line.hpp)
  Message command_note;      // what to replace in it, or why there is none
  Verdict verdict;           // the headline: on the request's GPU, its cards, or the class of cards that holds it
  // Over several GPUs, what each device of estimate.devices leaves free on its card (the verdict's GPU when they are
  // alike), and per_gpu's on the verdict's GPU; empty, and none, without a GPU to weigh them against.
  std::vector<std::int64_t> device_free_bytes;
  std::optional<std::int64_t> per_gpu_free_bytes;
  std::vector<std::string> missing_files;  // the checkpoint's files the answer asks for (ResolvedRequest's)
  std::string ollama_version;  // engine ollama: the version the answer assumes (the request's, else the default)
};

// Resolves the model (preset, config or bare count), checks every input and estimates.
Result<Report> evaluate(const Catalog& catalog, const Request& request);

struct OthersByCard;  // questions/other_models.hpp


// An other model as resolve_request read it (its model, its options on the request's GPU, its headroom), kept where
// its engine sizes it by the card it starts on (vLLM, SGLang) so that each card of the GPU table and the ranking can
// size it again (questions/other_models.hpp, others_on_card).
struct OtherScenario {
  std::string name;                  // as OtherModel::name
  ModelSpec model;
  InferenceOptions options;          // explain off; vLLM: its gpu_memory_utilization before it is lowered to fit
  double headroom = kDefaultHeadroom;  // the request's, for the other model's own fit
};

// The options evaluate() would pass to the estimator (for the solvers), with the model resolved.
struct ResolvedRequest {
  ModelSpec model;
  std::uint64_t published_params = 0;
  Message params_source;  // where the architecture (and a published count) came from
  std::string context_source;
  std::string hf_repo;  // the preset's Hugging Face repository; empty for a config, a file or a bare count
  // A GGUF file read from a Hugging Face repository: the repository and the file's quantization label, by which
  // llama-server fetches the same file (-hf owner/name:QUANT); empty otherwise.
  std::string hub_gguf_repo, hub_gguf_quant;
  InferenceOptions options;
  const Gpu* gpu = nullptr;  // the request's single GPU, if any
  std::vector<const Gpu*> devices;  // different cards together (llama.cpp's layer split), CUDA0 first
  std::vector<Message> name_notes;  // how a short model or GPU name was read ("H100" read as NVIDIA H100 SXM)
  // Files of the checkpoint that would change the figures, asked for by name: "hf_quant_config.json" for a
  // config.json alone whose checkpoint's name says FP8 or NVFP4 (its weights are counted as bf16 until then).
  std::vector<std::string> missing_files;
  // Share of each GPU kept free when judging a fit: the request's headroom, or for vLLM at least
  // 1 − gpu_memory_utilization, since vLLM never uses more than that share of a GPU.
  double fit_headroom = kDefaultHeadroom;
  // vLLM and SGLang: options.other_models as read, to be sized again on another card; empty otherwise.
  std::vector<OtherScenario> other_scenarios;
};
Result<ResolvedRequest> resolve_request(const Catalog& catalog, const Request& request);

// evaluate() of a request already resolved, for questions that share one resolution: the estimate on
// `scenario.gpu` (request.serving for its speed), or judged on every GPU of the catalog without one. Each card meets
// the other vLLM or SGLang models as sized there, kept in `others_sized` where given (shared with the ranking).
Result<Report> evaluate(const Catalog& catalog, const Request& request, const ResolvedRequest& scenario,
                        OthersByCard* others_sized = nullptr);

// What the estimator reads of the GPU it runs on (vLLM and SGLang size their KV pool by its memory), set in `o`.
void size_for_gpu(InferenceOptions& o, const Gpu& gpu);

// The scenario as if the request named no GPU: no single GPU, so no vLLM budget sized by one.
ResolvedRequest without_gpu(ResolvedRequest scenario);

// The report evaluate() gives the request without its GPU (every GPU of the catalog judged), from the report
// `on_gpu` of the request with it: the same estimate judged again, except for vLLM, whose KV cache fills the named
// GPU and is estimated again without it. `on_gpu` itself when the request names no GPU.
Result<Report> on_every_gpu(const Catalog& catalog, const Request& request, const ResolvedRequest& scenario,
                            const Report& on_gpu, OthersByCard* others_sized = nullptr);

// The explanation behind the parameter count a report shows (key "params"): how it is counted, the counts,
// the published figure when there is one, and where the architecture came from.
Explanation params_explanation(const ModelSpec& model, const ParamCounts& counts, std::uint64_t published,
                               const Message& source);

}  // namespace vramfit
