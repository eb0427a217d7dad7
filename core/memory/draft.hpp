#pragma once
// Speculative decoding's draft: a small model (llama-server -md, vLLM's and SGLang's draft_model / STANDALONE,
// transformers' assistant_model, mlx_lm --draft-model), an EAGLE or EAGLE-3 head (one decoder layer that reads the
// target's hidden states), or the target's own multi-token-prediction layers (MTP, NEXTN). Each engine holds its
// weights and a KV cache for it; what it costs and how it speeds decoding.
#include <cstdint>   // std::uint64_t
#include <optional>  // std::optional
#include <string>    // std::string
#include <string_view>  // std::string_view

#include "formats/imported_model.hpp"  // ReadModel
#include "formats/weight_formats.hpp"  // WeightFormat
#include "memory/engines/engines.hpp"  // Engine
#include "model/model_spec.hpp"
#include "util/explanation.hpp"
#include "util/result.hpp"

namespace vramfit {

enum class DraftKind {
  model,   // a whole small model with the target's tokenizer
  eagle,   // EAGLE-1/2 head (EagleLlamaForCausalLM, LlamaForCausalLMEagle): fc 2h → h, one layer; the target's
           // embedding and output head
  eagle3,  // EAGLE-3 head (LlamaForCausalLMEagle3): fc 3h → h, one layer reading 2h, its own output head over
           // draft_vocab_size tokens; the target's embedding
  mtp,     // the target's multi-token-prediction layers (DeepSeek-V3 / GLM NEXTN, Qwen3.5 MTP)
};
std::string_view draft_kind_name(DraftKind kind) noexcept;  // "draft model", "EAGLE", "EAGLE-3", "MTP"

// The default range of the acceptance rate α (the chance the target accepts one draft token) when none is given:
// Leviathan et al. 2023, "Fast Inference from Transformers via Speculative Decoding", Table 3 measured α between
// about 0.5 and 0.9 for drafts one to two orders of magnitude smaller than their targets; 0.6–0.8 is its middle.
inline constexpr double kDraftAcceptanceLow = 0.6;
inline constexpr double kDraftAcceptanceHigh = 0.8;

struct DraftOptions {
  DraftKind kind = DraftKind::model;
  ModelSpec spec;              // model, eagle, eagle3: the draft's config; mtp: unused (the target's layers)
  std::string name;            // as the person named it: a preset id, a config's name, "mtp"
  std::string repo;            // a preset's or a read draft's Hugging Face repository, for the command line
  std::string hub_quant;       // a draft read from a Hub repository's .gguf: its quantization label ("Q8_0")
  std::string hub_revision;    // and the repository's revision read ("" = the default branch)
  std::string hub_file;        // and the file read, when llama-server's -hfd REPO:QUANT would take another
  std::optional<WeightBytes> exact_weights;  // model: the bytes its file's header lists (a GGUF, safetensors shards)
  std::uint64_t draft_vocab = 0;  // eagle3: draft_vocab_size (0: the target's vocabulary)
  std::optional<std::uint64_t> tokens;  // draft tokens per step; none: the engine's default
  std::optional<double> acceptance;     // α; none: the default range
};

// The draft's memory as the engine allocates it, one figure per part; `total` is the breakdown's "draft model" line.
struct DraftMemory {
  DraftKind kind = DraftKind::model;
  std::string name;
  std::uint64_t params = 0;           // the parameters the engine loads for the draft
  std::uint64_t weights = 0;
  std::uint64_t layers = 0;           // the draft's layers that keep a KV cache
  std::uint64_t kv_bytes_per_token = 0;
  std::uint64_t kv_tokens = 0;        // tokens the draft's cache holds (the line's; vLLM, SGLang: the scenario's)
  std::uint64_t kv_cache = 0;
  std::uint64_t contexts = 1;         // llama-server: one draft context per slot
  std::uint64_t buffers = 0;          // llama.cpp: the draft contexts' compute buffers
  std::uint64_t total = 0;
  std::uint64_t tokens = 0;           // draft tokens per step
  bool tokens_default = true;
  double acceptance_low = kDraftAcceptanceLow;
  double acceptance_high = kDraftAcceptanceHigh;
  bool acceptance_given = false;
  std::string weights_format;         // the draft's weights as counted
};

struct InferenceEstimate;
struct InferenceOptions;
// The draft's memory under `o` (o.draft set), beside the target's estimate `e` (its weights, KV dtype and compute
// dtype already filled). Refused, naming "draft" or "draft_tokens", where the engine cannot run that draft.
Result<DraftMemory> estimate_draft(const ModelSpec& target, const InferenceEstimate& e, const InferenceOptions& o);

// The breakdown's "draft" line: its formula, this scenario's figures and the engine's source.
Explanation draft_explanation(const DraftMemory& m, Engine engine);

// Reads a draft's config.json: an EAGLE or EAGLE-3 head when its architectures say so, else a whole model.
// `quant_config_json` (may be empty): its hf_quant_config.json.
Result<DraftOptions> draft_from_config(std::string_view config_json, std::string_view quant_config_json = {});

// A draft a client read (a Hub repository, an Ollama model, a file): its config.json says what kind of draft it is,
// as draft_from_config reads it; a whole model's files' headers give its architecture and its exact weights, as
// they do for the model asked about. Errors name "draft_read".
Result<DraftOptions> draft_from_read(const ReadModel& read);

// The engine's default draft tokens per step: llama-server --spec-draft-n-max 16 (common/common.h, speculative
// n_max; the command gives it explicitly, as builds differ in their own default);
// SGLang's speculative_num_steps 5 chosen by auto_choose_speculative_params (server_args.py: (5, 4, 8)); vLLM:
// the draft's n_predict (MTP: num_nextn_predict_layers), a draft model needs num_speculative_tokens (none);
// transformers: num_assistant_tokens 20 (GenerationConfig); mlx_lm --num-draft-tokens 3 (generate.py).
std::optional<std::uint64_t> default_draft_tokens(Engine engine, const DraftOptions& draft, const ModelSpec& target);

// Expected tokens the target emits per step with γ draft tokens each accepted with probability α, independently:
// (1 − α^(γ+1)) / (1 − α) (Leviathan et al. 2023, eq. 1); γ + 1 at α = 1.
double expected_tokens_per_step(double acceptance, std::uint64_t draft_tokens) noexcept;

}  // namespace vramfit
