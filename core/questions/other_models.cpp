#include "questions/other_models.hpp"

#include "hardware/fit.hpp"  // check_fit, fit_headroom
#include "memory/others.hpp"
#include "questions/command_line.hpp"
#include "util/message.hpp"

namespace vramfit {

namespace {

// The other model's own request: the engine, its version and settings, the weights format and KV cache type, the GPU
// and its count as the request gives them; its own model and context; nothing of the main model's extras.
Request other_request(const Request& r, const OtherModelRequest& also) {
  Request q = r;
  q.model = also.model;
  q.model_name.clear();
  q.model_repo.clear();
  q.model_quant.clear();
  q.model_file.clear();
  q.model_revision.clear();
  q.model_hf_file.clear();
  q.ollama_tag.clear();
  q.config_json.clear();
  q.quant_config_json.clear();
  q.config_name.clear();
  q.params = 0;
  q.imported.reset();
  q.context = also.context;
  q.engine_given = true;
  // Ollama's OLLAMA_NUM_PARALLEL is the server's, for every model it runs; any other server is started for one.
  if (r.engine != Engine::ollama) q.batch = 1;
  q.avg_tokens.reset();
  q.gpu_util.reset();
  q.mem_fraction_static.reset();
  q.max_total_tokens.reset();
  q.max_num_batched_tokens.reset();
  q.max_num_seqs.reset();
  q.memory_in_use.reset();
  q.gpu_layers.reset();
  q.language_model_only = false;
  q.max_kv_size.reset();
  q.mmproj = false;
  q.images = 0;
  q.image_size.reset();
  q.draft.clear();
  q.draft_config.clear();
  q.draft_tokens.reset();
  q.acceptance.reset();
  q.also.clear();
  q.gpus.clear();
  if (also.read) {
    // A model read from its files (or its config.json) is described as the model asked about is; its files' weights
    // count as they are, not in the weight format given for the model asked about.
    q.model.clear();
    q.model_name = also.read->name;
    if (also.read->imported) {
      q.imported = also.read->imported;
      q.weights.clear();
    } else {
      q.config_json = also.read->config_json;
      q.quant_config_json = also.read->quant_config_json;
      q.config_name = also.read->config_name;
    }
  }
  q.budget_per_hour.reset();
  return q;
}

Message about_message(const std::string& name, const Message& reason) {
  return message("also.error", "{name}: {reason}", {arg::text("name", name), arg::message("reason", reason)});
}

Error about(const OtherModelRequest& also, const Error& e) { return {"also", about_message(also.model, e.message)}; }

Message no_share_message(const std::string& name) {
  return message("also.vllm_no_share",
                 "{name}: no gpu_memory_utilization up to 1.0 holds it with one sequence of its context on this GPU",
                 {arg::text("name", name)});
}

Message does_not_fit_message(const OtherModel& m, const Gpu& gpu) {
  return message("also.does_not_fit", "{name} needs {amount_bytes} on its own, more than one {gpu} holds",
                 {arg::text("name", m.name), arg::gib("amount_bytes", m.bytes, 2), arg::text("gpu", gpu.name)});
}

// The other model's own request resolved on the request's GPU, to be estimated alone.
Result<ResolvedRequest> resolve_alone(const Catalog& catalog, const Request& q) {
  auto rr = resolve_request(catalog, q);
  if (!rr) return rr.error();
  rr.value().options.explain = false;
  // llama-server without -c would take the model's whole context, as much as --fit finds room for on an empty card:
  // the other model keeps the context resolved here, and its command line says it (-c).
  if (rr.value().options.engine == Engine::llamacpp && rr.value().context_source == "engine_default")
    rr.value().context_source = "request";
  return rr;
}

Result<Report> evaluate_alone(const Catalog& catalog, const Request& q) {
  auto rr = resolve_alone(catalog, q);
  if (!rr) return rr.error();
  return evaluate(catalog, q, rr.value());
}

// vLLM starts another server with the least share that holds it on the card `o` is sized for: its budget less the KV
// pool is what it needs beside one sequence's blocks (vllm_kv_capacity), and the pool must hold that sequence
// (check_enough_kv_cache_memory), so a share a hundredth short of it is raised. Its util is 0 where no share up to 1.0
// holds it, the share asked where the estimate has no vLLM pool to size; `at` is the estimate at that share.
struct VllmShare {
  double util = 0;
  InferenceEstimate at;
};
Result<VllmShare> vllm_share(const ModelSpec& model, InferenceOptions o) {
  auto e = estimate_inference(model, o);
  if (!e) return e.error();
  if (!e.value().vllm) return VllmShare{o.gpu_util, std::move(e).value()};
  const VllmCapacity& v = *e.value().vllm;
  const std::uint64_t pool = v.kv_capacity_bytes;
  const std::uint64_t held = v.budget_bytes > pool ? v.budget_bytes - pool : 0;
  double util = vllm_util_holding(held + v.request_bytes + v.block_bytes, o.gpu_memory_bytes);
  for (int tries = 0; util > 0 && tries < 5; ++tries) {
    o.gpu_util = util;
    auto at = estimate_inference(model, o);
    if (!at) return at.error();
    if (at.value().vllm && at.value().vllm->max_concurrency > 0) return VllmShare{util, std::move(at).value()};
    util = util + 0.01 <= 1.0 ? util + 0.01 : 0;
  }
  return VllmShare{};
}

// The other model estimated alone on the request's GPU, as its server starts there (vLLM: at the least share that
// holds it); its scenario, as read, into `kept` where the engine sizes it by the card.
Result<Report> estimate_other(const Catalog& catalog, Request& q, const OtherModelRequest& also,
                              std::optional<OtherScenario>& kept) {
  auto resolved = resolve_alone(catalog, q);
  if (!resolved) return about(also, resolved.error());
  const ResolvedRequest& rr = resolved.value();
  if (kv_pool_engine(rr.options.engine)) kept = OtherScenario{{}, rr.model, rr.options, q.headroom};
  if (rr.options.engine != Engine::vllm) {
    auto report = evaluate(catalog, q, rr);
    if (!report) return about(also, report.error());
    return report;
  }
  auto share = vllm_share(rr.model, rr.options);
  if (!share) return about(also, share.error());
  if (share.value().util <= 0) return make_error("also", no_share_message(also.model));
  q.gpu_util = share.value().util;
  auto report = evaluate_alone(catalog, q);
  if (!report) return about(also, report.error());
  return report;
}

// The other model's estimate on the card `o` is sized for, as its server starts there (vLLM: at the least share
// that holds it, set in o.gpu_util); why not where it cannot start there.
Result<InferenceEstimate> started_on_card(const OtherScenario& s, InferenceOptions& o) {
  if (o.engine != Engine::vllm) {
    auto e = estimate_inference(s.model, o);
    if (!e) return make_error("also", about_message(s.name, e.error().message));
    return e;
  }
  auto share = vllm_share(s.model, o);
  if (!share) return make_error("also", about_message(s.name, share.error().message));
  if (share.value().util <= 0) return make_error("also", no_share_message(s.name));
  o.gpu_util = share.value().util;
  return std::move(share.value().at);
}

// The other models cannot all load on `card`: nothing is left there for the model asked about (what it holds is
// counted as at least the card), and `why` says which one and why.
OthersOnCard refused(OthersOnCard on, const Gpu& card, Message why) {
  on.in_use_bytes += card.driver_total_bytes();
  on.refusal = std::move(why);
  return on;
}

}  // namespace

std::optional<Error> resolve_other_models(const Catalog& catalog, const Request& r, ResolvedRequest& out) {
  if (r.also.empty()) return std::nullopt;
  const Engine engine = out.options.engine;
  // vLLM's and SGLang's servers take a share of the GPU they start on: without a GPU there is no share to count.
  if (kv_pool_engine(engine) && !out.gpu)
    return make_error("also", message("also.needs_gpu",
                                      "other models on the GPU need a GPU chosen with this engine: each server "
                                      "takes a share of that GPU's memory"));
  for (const OtherModelRequest& also : r.also) {
    Request q = other_request(r, also);
    // An SGLang server takes its fraction of the memory it finds free: after the servers started before it.
    if (engine == Engine::sglang && out.options.memory_in_use) q.memory_in_use = out.options.memory_in_use;
    std::optional<OtherScenario> kept;
    auto report = estimate_other(catalog, q, also, kept);
    if (!report) return report.error();
    const Report& alone = report.value();
    // A preset by its id; a model read by the name its reader gave it (a repository, a tag, a file's name).
    const std::string name = also.read ? also.read->name : alone.model.id.empty() ? also.model : alone.model.id;
    OtherModel m = other_model_footprint(alone.estimate, engine, name, alone.estimate.context_tokens,
                                         out.options.gpu_memory_bytes);
    // A model that does not fit the GPU alone cannot stay loaded beside another.
    if (!alone.gpus.empty() && out.gpu && alone.gpus.front().fit == Fit::does_not_fit)
      return make_error("also", does_not_fit_message(m, *out.gpu));
    // Two names for one model and context ("x" and "x@4096" where 4096 is its default) would share a line.
    for (const OtherModel& before : out.options.other_models)
      if (other_model_key(before) == other_model_key(m))
        return make_error("also", message("also.duplicate",
                                          "{name} with {context} tokens is named twice among the other models on the "
                                          "GPU: name each model and context once",
                                          {arg::text("name", m.name), arg::digits("context", m.context_tokens)}));
    m.command = other_server_command(alone.command, engine, static_cast<unsigned>(out.options.other_models.size() + 1));
    if (kept) {
      kept->name = m.name;
      out.other_scenarios.push_back(std::move(*kept));
    }
    out.options.memory_in_use += m.bytes;
    out.options.other_models.push_back(std::move(m));
  }
  return std::nullopt;
}

// Where the engine sizes a server by the card it starts on, each card of the GPU table and the ranking meets the
// other models as they would be there, not as on the request's GPU: vLLM starts each with the least
// gpu_memory_utilization that holds it, a share of THAT card's total (vllm_util_holding), and each SGLang server
// takes mem_fraction_static (by the card's memory from 0.5.3, sglang_defaults) of what it finds free there, after the
// servers started before it. llama.cpp, Ollama, MLX and transformers hold the same bytes on any card (weights, cache
// and buffers sized by the model and its context), so their one figure stands and no scenario is kept for them.
std::optional<OthersOnCard> others_on_card(const ResolvedRequest& rr, const Gpu& card) {
  if (rr.other_scenarios.empty()) return std::nullopt;
  const Engine engine = rr.options.engine;
  OthersOnCard on;
  on.in_use_bytes = rr.options.memory_in_use - others_bytes(rr.options.other_models);  // what the person gave
  for (const OtherScenario& s : rr.other_scenarios) {
    InferenceOptions o = s.options;
    size_for_gpu(o, card);
    if (engine == Engine::sglang) o.memory_in_use = on.in_use_bytes;
    auto e = started_on_card(s, o);
    if (!e) return refused(on, card, e.error().message);
    OtherModel m = other_model_footprint(e.value(), engine, s.name, e.value().context_tokens, o.gpu_memory_bytes);
    on.in_use_bytes += m.bytes;
    const double headroom = fit_headroom(engine, s.headroom, o.gpu_util);
    if (check_fit(e.value(), std::vector<Gpu>{card}, headroom).front().fit == Fit::does_not_fit) {
      on.in_use_bytes -= m.bytes;  // refused() counts the whole card instead
      return refused(on, card, does_not_fit_message(m, card));
    }
    on.models.push_back(std::move(m));
  }
  return on;
}

const std::optional<OthersOnCard>& others_on_card(const ResolvedRequest& rr, const Gpu& card, OthersByCard& sized) {
  const auto kept = sized.by_card.find(card.id);
  if (kept != sized.by_card.end()) return kept->second;
  return sized.by_card.emplace(card.id, others_on_card(rr, card)).first->second;
}

}  // namespace vramfit
