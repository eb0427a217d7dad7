#include "memory/draft.hpp"

#include <algorithm>  // std::max
#include <cmath>      // std::pow
#include <optional>   // std::optional

#include "memory/inference.hpp"
#include "memory/kv_cache.hpp"
#include "model/hf_config.hpp"
#include "model/hf_config_json.hpp"  // python_json_as_json
#include "util/byte_math.hpp"

namespace vramfit {

using detail::CheckedSum;
using detail::json;

std::string_view draft_kind_name(DraftKind kind) noexcept {
  switch (kind) {
    case DraftKind::model: return "draft model";
    case DraftKind::eagle: return "EAGLE";
    case DraftKind::eagle3: return "EAGLE-3";
    case DraftKind::mtp: return "MTP";
  }
  return "draft model";
}

Result<DraftOptions> draft_from_config(std::string_view config_json, std::string_view quant_config_json) {
  auto parsed = detail::parse_json(detail::python_json_as_json(config_json), "draft_config");
  if (!parsed) return parsed.error();
  const json& j = parsed.value();
  DraftOptions d;
  // EAGLE heads name themselves in architectures: SGLang's LlamaForCausalLMEagle3 and LlamaForCausalLMEagle
  // (python/sglang/srt/models/llama_eagle3.py, llama_eagle.py), vLLM's EagleLlamaForCausalLM and
  // Eagle3LlamaForCausalLM (vllm/model_executor/models/llama_eagle*.py).
  if (j.is_object() && j.contains("architectures") && j["architectures"].is_array()) {
    for (const json& a : j["architectures"]) {
      if (!a.is_string()) continue;
      const std::string name = a.get<std::string>();
      if (name.find("Eagle3") != std::string::npos) d.kind = DraftKind::eagle3;
      else if (name.find("Eagle") != std::string::npos && d.kind != DraftKind::eagle3) d.kind = DraftKind::eagle;
    }
  }
  if (d.kind == DraftKind::eagle3 && j.contains("draft_vocab_size") && j["draft_vocab_size"].is_number_unsigned())
    d.draft_vocab = j["draft_vocab_size"].get<std::uint64_t>();
  auto spec = model_from_hf_config(config_json, quant_config_json);
  if (!spec) {
    Error e = spec.error();
    e.field = "draft_config";
    return e;
  }
  d.spec = std::move(spec).value();
  return d;
}

Result<DraftOptions> draft_from_read(const ReadModel& read) {
  DraftOptions d;
  if (!read.config_json.empty()) {
    auto from_config = draft_from_config(read.config_json, read.quant_config_json);
    if (!from_config) {
      Error e = from_config.error();
      e.field = "draft_read";
      return e;
    }
    d = std::move(from_config).value();
  }
  // An EAGLE head's weights follow from its config (eagle_params); a whole model's are its files'.
  if (read.imported && d.kind == DraftKind::model) {
    d.spec = read.imported->spec;
    d.exact_weights = read.imported->weights;
  }
  if (d.spec.is_bare())
    return make_error("draft_read", message("draft.read_bare",
                                             "{name}: its files say only how many parameters it holds, not its layers: "
                                             "give its config.json with them",
                                             {arg::text("name", read.name)}));
  d.name = read.name;
  d.repo = read.repo;
  if (d.kind == DraftKind::model) {
    d.hub_quant = read.quant;
    d.hub_revision = read.revision;
    d.hub_file = read.hf_file;
  }
  return d;
}

std::optional<std::uint64_t> default_draft_tokens(Engine engine, const DraftOptions& draft, const ModelSpec& target) {
  switch (engine) {
    case Engine::llamacpp: return 16;
    case Engine::sglang: return 5;
    case Engine::transformers: return 20;
    case Engine::mlx: return 3;
    case Engine::vllm:
      if (draft.kind == DraftKind::mtp) return std::max<std::uint64_t>(target.mtp.layers, 1);
      return std::nullopt;
    case Engine::ollama: return std::nullopt;
  }
  return std::nullopt;
}

double expected_tokens_per_step(double acceptance, std::uint64_t draft_tokens) noexcept {
  const double gamma = static_cast<double>(draft_tokens);
  if (acceptance >= 1) return gamma + 1;
  return (1 - std::pow(acceptance, gamma + 1)) / (1 - acceptance);
}

namespace {

Error draft_error(std::string field, Message m) { return make_error(std::move(field), std::move(m)); }

// The options the draft is estimated under as a model of its own: one GPU's whole draft, no pool.
InferenceOptions draft_model_options(const InferenceOptions& o) {
  InferenceOptions od = o;
  od.draft.reset();
  od.explain = false;
  od.exact_weights.reset();
  od.weight_tensor_bytes.reset();
  od.device_split.clear();
  od.gpu_memory_bytes = 0;
  od.tensor_parallel = 1;
  od.pipeline_parallel = 1;
  od.gpu_layers.reset();
  od.mmproj_offload = false;
  return od;
}

// An EAGLE head's parameters as its checkpoint holds them: the decoder layer (its attention reads [embedding;
// hidden] of 2h, so q, k and v take 2h inputs), the fc that fuses the target's hidden states (EAGLE: 2h → h with a
// bias, model.fc in EAGLE's cnets.py; EAGLE-3: 3h → h without), and EAGLE-3's output head over draft_vocab_size
// tokens with its d2t (int64) and t2d (bool) maps and a third norm (hidden_norm, SGLang llama_eagle3.py
// LlamaDecoderLayer); the embedding and EAGLE's output head are the target's.
Result<std::uint64_t> eagle_params(const DraftOptions& d, std::uint64_t& buffer_bytes) {
  ModelSpec layer_only = d.spec;
  layer_only.has_lm_head = false;
  layer_only.tied_embeddings = false;
  auto counts = count_params(layer_only);
  if (!counts) return counts.error();
  const std::uint64_t h = d.spec.hidden_size;
  std::uint64_t widened = 0;
  for (const LayerRun& run : d.spec.layers) {
    const AttentionMixer& a = run.attention;
    widened += run.count * h * (a.heads * a.head_dim + 2 * a.kv_heads * a.head_dim);
  }
  std::uint64_t p = counts.value().total - counts.value().embedding + widened;
  buffer_bytes = 0;
  if (d.kind == DraftKind::eagle3) {
    const std::uint64_t vocab = d.draft_vocab ? d.draft_vocab : d.spec.vocab_size;
    p += 3 * h * h + vocab * h + h;  // fc, lm_head, and the midlayer's hidden_norm beside its two layer norms
    if (d.draft_vocab) buffer_bytes = d.draft_vocab * 8 + d.spec.vocab_size;
  } else {
    p += 2 * h * h + h;
  }
  return p;
}

// KV bytes per token of the target's MTP layers: each shaped like the last decoder layer (or its sources).
std::uint64_t mtp_token_bytes(const ModelSpec& target, KvDType dtype, MlaCache mla) {
  const auto one = [&](const LayerRun& run) { return run.keeps_tokens() ? layer_token_bytes(run, dtype, mla).value_or(0) : 0; };
  if (!target.mtp.sources.empty()) {
    std::uint64_t sum = 0;
    for (std::uint64_t src : target.mtp.sources) sum += one(target.layer(src));
    return sum * target.mtp.layers;
  }
  return one(target.layer(target.num_layers() - 1)) * target.mtp.layers;
}

// What an engine cannot draft with: a head outside vLLM and SGLang, llama.cpp's vocabulary rule, MTP without layers.
std::optional<Error> draft_refusal(const ModelSpec& target, const InferenceOptions& o) {
  const DraftOptions& d = *o.draft;
  const bool pooled = o.engine == Engine::vllm || o.engine == Engine::sglang;
  if (d.kind != DraftKind::model && !pooled)
    return draft_error("draft", message("draft.head_engine",
                                        "{engine} drafts with a separate small model only; EAGLE heads and a "
                                        "model's own MTP layers run in vLLM and SGLang",
                                        {arg::text("engine", engine_title(o.engine))}));
  // llama.cpp's common_speculative_are_compatible refuses a draft whose vocabulary is more than
  // SPEC_VOCAB_MAX_SIZE_DIFFERENCE (128) tokens larger or smaller than the model's.
  if (d.kind == DraftKind::model && o.engine == Engine::llamacpp && d.spec.vocab_size && target.vocab_size &&
      (d.spec.vocab_size > target.vocab_size + 128 || target.vocab_size > d.spec.vocab_size + 128))
    return draft_error("draft", message("draft.vocab_llamacpp",
                                        "llama.cpp drafts only with a model of the same vocabulary: the draft has "
                                        "{draft_vocab} tokens, the model {vocab} (at most 128 apart)",
                                        {arg::count("draft_vocab", d.spec.vocab_size),
                                         arg::count("vocab", target.vocab_size)}));
  if (d.kind == DraftKind::mtp && target.mtp.layers == 0)
    return draft_error("draft", message("draft.no_mtp",
                                        "this model's config names no multi-token-prediction layers "
                                        "(num_nextn_predict_layers, mtp_num_hidden_layers): choose a draft model"));
  return std::nullopt;
}

// A separate draft model: estimated as a model of its own, with the engine's rules for a draft.
std::optional<Error> add_draft_model(DraftMemory& m, const InferenceOptions& o) {
  const DraftOptions& d = *o.draft;
  InferenceOptions od = draft_model_options(o);
  // A draft read from its files counts what they hold. Otherwise llama.cpp and MLX run the draft's file in the format
  // given for the model (a GGUF or MLX conversion of the same kind); vLLM, SGLang and transformers load the draft's
  // checkpoint as its config says: its quantization_config, else 16-bit.
  if (d.exact_weights) {
    od.weight_format.reset();
    od.exact_weights = d.exact_weights;
  } else if (!ggml_engine(o.engine) && o.engine != Engine::mlx) {
    auto format = parse_weight_format(d.spec.quantization.empty() ? std::string("bf16") : d.spec.quantization);
    if (!format) return format.error();
    od.weight_format = format.value();
    od.weights = format.value().dtype;
  }
  // llama-server's draft cache takes -ctkd / -ctvd (f16 by default), not the model's -ctk / -ctv.
  if (o.engine == Engine::llamacpp) od.kv_dtype.reset();
  // llama-server gives every slot a draft context of its own, one sequence of the slot's context
  // (server.cpp: params_dft.n_ctx = llama_n_ctx_seq(ctx), n_parallel = 1; slot.ctx_dft per slot).
  const bool per_slot = o.engine == Engine::llamacpp;
  if (per_slot) od.batch = 1;
  auto de = estimate_inference(d.spec, od);
  if (!de) {
    Error err = de.error();
    err.field = "draft";
    return err;
  }
  const InferenceEstimate& x = de.value();
  m.params = x.params.total;
  m.weights = x.weights;
  m.weights_format = x.weights_format;
  m.layers = d.spec.num_layers();
  m.kv_bytes_per_token = x.kv.bytes_per_token;
  if (per_slot) {
    m.contexts = o.batch;
    m.kv_cache = CheckedSum().add({x.kv_cache + x.state_cache, o.batch}).value();
    m.buffers = x.llamacpp ? CheckedSum().add({x.llamacpp->compute_buffer_bytes, o.batch}).value() : 0;
  } else {
    m.kv_cache = x.kv_cache + x.state_cache;
  }
  return std::nullopt;
}

// An EAGLE or EAGLE-3 head: its layer, fc and (EAGLE-3) own output head, in the target's compute dtype.
std::optional<Error> add_eagle_head(DraftMemory& m, const InferenceEstimate& e, const DraftOptions& d) {
  std::uint64_t maps = 0;
  auto params = eagle_params(d, maps);
  if (!params) return params.error();
  m.params = params.value();
  // The head runs in the target's compute dtype (its checkpoints ship in bf16 or fp16).
  const auto bytes = bytes_for(m.params, e.weights_dtype);
  if (!bytes) return draft_error("draft", message("error.inference.too_large", "too large"));
  m.weights = *bytes + maps;
  m.weights_format = std::string(dtype_info(e.weights_dtype).name);
  m.layers = d.spec.num_layers();
  auto kv = estimate_kv_cache(d.spec, e.kv_dtype, 1, 1);
  if (!kv) return kv.error();
  m.kv_bytes_per_token = kv.value().bytes_per_token;
  m.kv_cache = CheckedSum().add({m.kv_bytes_per_token, m.kv_tokens}).value();
  return std::nullopt;
}

// The model's own MTP layers.
void add_mtp_layers(DraftMemory& m, const ModelSpec& target, const InferenceEstimate& e) {
  // vLLM shares the target's embedding with an MTP draft ("Detected MTP model. Sharing target model embedding
  // weights", v1/spec_decode/llm_base_proposer.py _maybe_share_embeddings) and its output head
  // (_maybe_share_lm_head); the copies DeepSeek's and GLM's files keep are not held twice.
  const WeightBytes& wd = e.weight_detail;
  std::uint64_t shared = 0, shared_params = 0;
  if (target.mtp.own_embeddings) {
    shared = wd.embedding + wd.output;
    shared_params = e.params.embedding + e.params.lm_head;
  }
  m.weights = wd.mtp_bytes > shared ? wd.mtp_bytes - shared : wd.mtp_bytes;
  m.params = wd.mtp_params > shared_params ? wd.mtp_params - shared_params : wd.mtp_params;
  m.weights_format = e.weights_format;
  m.layers = target.mtp.layers;
  m.kv_bytes_per_token = mtp_token_bytes(target, e.kv_dtype, MlaCache::latent);
  m.kv_cache = CheckedSum().add({m.kv_bytes_per_token, m.kv_tokens}).value();
}

}  // namespace

Result<DraftMemory> estimate_draft(const ModelSpec& target, const InferenceEstimate& e, const InferenceOptions& o) {
  const DraftOptions& d = *o.draft;
  if (auto refusal = draft_refusal(target, o)) return *refusal;
  DraftMemory m;
  m.kind = d.kind;
  m.name = d.name;
  const auto tokens = d.tokens ? d.tokens : default_draft_tokens(o.engine, d, target);
  if (!tokens)
    return draft_error("draft_tokens", message("draft.tokens_needed",
                                               "{engine} needs the draft tokens per step for this draft "
                                               "(num_speculative_tokens): give them with --draft-tokens",
                                               {arg::text("engine", engine_title(o.engine))}));
  m.tokens = *tokens;
  m.tokens_default = !d.tokens;
  if (d.acceptance) {
    m.acceptance_low = m.acceptance_high = *d.acceptance;
    m.acceptance_given = true;
  }
  m.kv_tokens = CheckedSum().add({o.context_tokens, o.batch}).value();
  std::optional<Error> error;
  switch (d.kind) {
    case DraftKind::model: error = add_draft_model(m, o); break;
    case DraftKind::eagle:
    case DraftKind::eagle3: error = add_eagle_head(m, e, d); break;
    case DraftKind::mtp: add_mtp_layers(m, target, e); break;
  }
  if (error) return *error;
  m.total = CheckedSum().add(m.weights).add(m.kv_cache).add(m.buffers).value();
  return m;
}

Explanation draft_explanation(const DraftMemory& m, Engine engine) {
  Explanation x;
  x.key = "draft";
  const std::vector<MessageArg> values = {arg::text("kind", draft_kind_name(m.kind)), arg::text("name", m.name),
                                   arg::count("weights", m.weights), arg::text("format", m.weights_format),
                                   arg::count("per_token", m.kv_bytes_per_token), arg::count("tokens", m.kv_tokens),
                                   arg::count("kv", m.kv_cache), arg::count("buffers", m.buffers),
                                   arg::count("contexts", m.contexts), arg::count("total", m.total)};
  switch (engine) {
    case Engine::llamacpp:
      x.formula = message("explain.draft.formula_llamacpp",
                          "draft weights + slots × (draft KV cache at the slot's context + draft compute buffer)");
      x.values = message("explain.draft.values_llamacpp",
                         "{name}: {weights} B ({format}) + {contexts} × ({per_token} B × context + compute buffer) "
                         "= {weights} + {kv} + {buffers} = {total} B", values);
      x.source = message("explain.draft.source_llamacpp",
                         "llama-server (tools/server/server.cpp, load_model and init): the draft is loaded with "
                         "n_ctx = -cd or the slot's context (llama_n_ctx_seq), n_parallel 1, its own -ctkd/-ctvd "
                         "cache types (f16), and every slot creates its own draft context (slot.ctx_dft = "
                         "llama_init_from_model(model_dft, cparams_dft))");
      break;
    case Engine::vllm:
      x.formula = message("explain.draft.formula_vllm",
                          "draft weights (inside \"Model loading took\") + draft layers' KV bytes per token × tokens");
      x.values = message("explain.draft.values_vllm",
                         "{kind} {name}: {weights} B ({format}) + {per_token} B × {tokens} = {total} B", values);
      x.source = message("explain.draft.source_vllm",
                         "vLLM v1: the proposer's model loads with the target's (gpu_model_runner load_model), its "
                         "attention layers get KV cache specs like the target's and share the one block pool, so the "
                         "pool's tokens are its bytes over the target's and the draft's bytes per token; an MTP or "
                         "EAGLE draft shares the target's embedding (llm_base_proposer.py, _maybe_share_embeddings)");
      break;
    case Engine::sglang:
      x.formula = message("explain.draft.formula_sglang",
                          "draft weights + draft layers' KV bytes per token × tokens");
      x.values = message("explain.draft.values_sglang",
                         "{kind} {name}: {weights} B ({format}) + {per_token} B × {tokens} = {total} B", values);
      x.source = message("explain.draft.source_sglang",
                         "SGLang: the draft worker runs on the target's GPUs and tensor-parallel size with a KV pool "
                         "of its own holding the target's max_total_num_tokens over the draft's layers "
                         "(model_runner_kv_cache_mixin.py)");
      break;
    case Engine::transformers:
      x.formula = message("explain.draft.formula_transformers", "assistant weights + its DynamicCache at the context");
      x.values = message("explain.draft.values_transformers",
                         "{name}: {weights} B ({format}) + {per_token} B × {tokens} = {total} B", values);
      x.source = message("explain.draft.source_transformers",
                         "transformers' assisted generation (generate(assistant_model=...)): the assistant is a "
                         "second model on the GPU with a cache of its own (AssistedCandidateGenerator)");
      break;
    case Engine::mlx:
      x.formula = message("explain.draft.formula_mlx", "draft weights + its KV cache at the context");
      x.values = message("explain.draft.values_mlx",
                         "{name}: {weights} B ({format}) + {per_token} B × {tokens} = {total} B", values);
      x.source = message("explain.draft.source_mlx",
                         "mlx_lm --draft-model: speculative_generate_step keeps a prompt cache for the draft beside "
                         "the model's (make_prompt_cache(draft_model))");
      break;
    case Engine::ollama: break;
  }
  return x;
}

}  // namespace vramfit
