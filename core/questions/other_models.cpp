#include "questions/other_models.hpp"

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

Error about(const OtherModelRequest& also, const Error& e) {
  return {"also", message("also.error", "{name}: {reason}",
                          {arg::text("name", also.model), arg::message("reason", e.message)})};
}

Result<Report> evaluate_alone(const Catalog& catalog, const Request& q) {
  auto rr = resolve_request(catalog, q);
  if (!rr) return rr.error();
  rr.value().options.explain = false;
  // llama-server without -c would take the model's whole context, as much as --fit finds room for on an empty card:
  // the other model keeps the context resolved here, and its command line says it (-c).
  if (rr.value().options.engine == Engine::llamacpp && rr.value().context_source == "engine_default")
    rr.value().context_source = "request";
  return evaluate(catalog, q, rr.value());
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
    auto report = evaluate_alone(catalog, q);
    if (!report) return about(also, report.error());
    const std::uint64_t total = out.options.gpu_memory_bytes;
    if (engine == Engine::vllm && report.value().estimate.vllm) {
      // Started with the least share that holds it: its budget less the KV pool is what it needs beside one
      // sequence's blocks (vllm_kv_capacity), and the pool must hold that sequence (check_enough_kv_cache_memory).
      const VllmCapacity& v = *report.value().estimate.vllm;
      const std::uint64_t pool = v.kv_capacity_bytes;
      const std::uint64_t held = v.budget_bytes > pool ? v.budget_bytes - pool : 0;
      double util = vllm_util_holding(held + v.request_bytes + v.block_bytes, total);
      for (int tries = 0; util > 0 && tries < 5; ++tries) {
        q.gpu_util = util;
        report = evaluate_alone(catalog, q);
        if (!report) return about(also, report.error());
        if (report.value().estimate.vllm && report.value().estimate.vllm->max_concurrency > 0) break;
        util = util + 0.01 <= 1.0 ? util + 0.01 : 0;
      }
      if (util <= 0 || !report.value().estimate.vllm || report.value().estimate.vllm->max_concurrency == 0)
        return make_error("also", message("also.vllm_no_share",
                                          "{name}: no gpu_memory_utilization up to 1.0 holds it with one sequence "
                                          "of its context on this GPU",
                                          {arg::text("name", also.model)}));
    }
    const Report& alone = report.value();
    // A preset by its id; a model read by the name its reader gave it (a repository, a tag, a file's name).
    const std::string name = also.read ? also.read->name : alone.model.id.empty() ? also.model : alone.model.id;
    OtherModel m = other_model_footprint(alone.estimate, engine, name,
                                         alone.estimate.context_tokens, total);
    // A model that does not fit the GPU alone cannot stay loaded beside another.
    if (!alone.gpus.empty() && out.gpu && alone.gpus.front().fit == Fit::does_not_fit)
      return make_error("also", message("also.does_not_fit",
                                        "{name} needs {amount_bytes} on its own, more than one {gpu} holds",
                                        {arg::text("name", m.name), arg::gib("amount_bytes", m.bytes, 2),
                                         arg::text("gpu", out.gpu->name)}));
    // Two names for one model and context ("x" and "x@4096" where 4096 is its default) would share a line.
    for (const OtherModel& before : out.options.other_models)
      if (other_model_key(before) == other_model_key(m))
        return make_error("also", message("also.duplicate",
                                          "{name} with {context} tokens is named twice among the other models on the "
                                          "GPU: name each model and context once",
                                          {arg::text("name", m.name), arg::digits("context", m.context_tokens)}));
    m.command = other_server_command(alone.command, engine, static_cast<unsigned>(out.options.other_models.size() + 1));
    out.options.memory_in_use += m.bytes;
    out.options.other_models.push_back(std::move(m));
  }
  return std::nullopt;
}

}  // namespace vramfit
