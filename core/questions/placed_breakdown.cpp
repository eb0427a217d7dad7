#include "questions/placed_breakdown.hpp"

#include <algorithm>  // std::find_if
#include <string>     // std::string

#include "memory/engines/engine.hpp"
#include "util/message.hpp"

namespace vramfit {

namespace {

bool placed_in_ram(const Verdict& v) { return v.kind == VerdictKind::runs_split; }

// The estimate's lines are every layer on the GPU where --fit placed the model: the GPU's share is the plan's.
bool lines_from_plan(const Verdict& v, const LlamaCppFitPlan* plan) { return placed_in_ram(v) && v.from_plan && plan; }

// value + (to − from), which unsigned arithmetic gives whichever of from and to is larger.
std::uint64_t moved(std::uint64_t value, std::uint64_t from, std::uint64_t to) { return value - from + to; }

Message fit_source() {
  return message("explain.source.fit", "llama.cpp common/fit.cpp: each device's model, context and compute, as "
                                       "llama_memory_breakdown_print lists them");
}

Explanation fit_weights(const LlamaCppFitPlan& p) {
  const std::vector<MessageArg> args = {arg::count("layers", p.gpu_layers), arg::count("total", p.total_layers),
                                        arg::count("cpu", p.cpu_expert_layers),
                                        arg::count("amount", p.gpu_model_bytes)};
  return {"weights",
          message("explain.weights.formula_fit",
                  "the weights --fit puts on the GPU: the layers it offloads, without the experts it keeps in system "
                  "RAM, and the output layer"),
          p.cpu_expert_layers
              ? message("explain.weights.values_fit_experts",
                        "{layers} of {total} layers, the experts of {cpu} of them in system RAM: {amount} B", args)
              : message("explain.weights.values_fit", "{layers} of {total} layers: {amount} B", args),
          fit_source()};
}

Explanation fit_cache(const LlamaCppFitPlan& p) {
  return {"kv_cache",
          message("explain.kv_cache.formula_fit",
                  "KV cache and recurrent state of the layers on the GPU, at the context --fit runs"),
          message("explain.kv_cache.values_fit", "{context} tokens: {amount} B",
                  {arg::digits("context", p.context), arg::count("amount", p.gpu_context_bytes)}),
          fit_source()};
}

Explanation fit_compute(const LlamaCppFitPlan& p) {
  return {"activations", message("explain.activations.formula_fit", "the GPU's compute buffer, as --fit measures it"),
          message("explain.activations.values_fit", "{amount} B", {arg::count("amount", p.gpu_compute_bytes)}),
          fit_source()};
}

Explanation system_ram(const InferenceEstimate& e, const Verdict& v, const LlamaCppFitPlan* plan) {
  const MessageArg ram = arg::count("amount", v.ram_bytes);
  if (lines_from_plan(v, plan))
    return {"system_ram",
            message("explain.system_ram.formula_fit",
                    "what --fit leaves in system RAM: the weights and cache of the layers it does not offload, the "
                    "experts it keeps there, and the token embeddings"),
            message("explain.system_ram.values_fit", "{model} B of weights + {context} B of cache = {amount} B",
                    {arg::count("model", plan->host_model_bytes), arg::count("context", plan->host_context_bytes),
                     ram}),
            fit_source()};
  if (e.ollama)
    return {"system_ram",
            message("explain.system_ram.formula_ollama",
                    "the layers Ollama does not offload (weights and KV cache), the output layer if it stays, and the "
                    "token embeddings"),
            message("explain.system_ram.values_ollama", "{layers} of {total} layers on the GPU; {amount} B in system RAM",
                    {arg::count("layers", e.ollama->layers_offload), arg::count("total", e.ollama->layers_model), ram}),
            message("explain.system_ram.source_ollama",
                    "Ollama llm/memory.go: the layers that fit go to the GPU, the rest stay with the CPU")};
  return {"system_ram",
          message("explain.system_ram.formula_llamacpp",
                  "the layers -ngl leaves in system RAM (weights, KV cache and state), the token embeddings and the "
                  "output buffer"),
          message("explain.system_ram.values_llamacpp", "{amount} B", {ram}),
          message("explain.system_ram.source_llamacpp",
                  "llama.cpp llama_model::load_tensors: the last n_gpu_layers layers go to the GPU, the others and "
                  "the token embeddings stay on the CPU")};
}

Explanation placed_total(const PlacedBreakdown& b) {
  return {"total", message("explain.total.formula_placed", "on the GPU + in system RAM"),
          message("explain.total.values_placed", "{gpu} + {ram} = {total} B",
                  {arg::count("gpu", b.total - b.system_ram), arg::count("ram", b.system_ram),
                   arg::count("total", b.total)}),
          message("explain.total.source_placed", "sum of the lines above: the GPU's share line by line, then system RAM")};
}

void replace(std::vector<Explanation>& list, Explanation x) {
  const auto it = std::find_if(list.begin(), list.end(), [&](const Explanation& y) { return y.key == x.key; });
  if (it != list.end()) *it = std::move(x);
  else list.push_back(std::move(x));
}

}  // namespace

PlacedBreakdown placed_breakdown(const InferenceEstimate& e, const Verdict& v, const LlamaCppFitPlan* plan) {
  PlacedBreakdown b{e.weights,      e.vision_encoder,    e.kv_cache, e.state_cache, e.activations,
                    e.overhead,     e.allocator_reserve, 0,          e.in_use - others_bytes(e.other_models),
                    e.total + e.in_use, e.range.low + e.in_use, e.range.high + e.in_use};
  if (!placed_in_ram(v)) return b;
  if (lines_from_plan(v, plan)) {
    // fit's dry runs count the recurrent state with the KV cache (its "context"), and ggml sizes exactly.
    b.weights = plan->gpu_model_bytes;
    // clip's compute buffer lands in the room --fit keeps free where the projector is in its target (llama-server's
    // own, Ollama's 1 GiB beside the projector); where it is not, it comes on top.
    b.vision_encoder = plan->projector_bytes + clip_beside_fit(*plan, e);
    b.kv_cache = plan->gpu_context_bytes;
    b.state_cache = 0;
    b.activations = plan->gpu_compute_bytes;
    b.allocator_reserve = 0;
  }
  b.system_ram = v.ram_bytes;
  b.total = b.weights + b.vision_encoder + b.kv_cache + b.state_cache + b.activations + b.overhead +
            b.allocator_reserve + b.system_ram + b.in_use + others_bytes(e.other_models) + e.draft;
  b.range_low = moved(e.range.low, e.total, b.total);
  b.range_high = moved(e.range.high, e.total, b.total);
  return b;
}

void explain_placement(std::vector<Explanation>& explanations, const InferenceEstimate& e, const Verdict& v,
                       const LlamaCppFitPlan* plan) {
  if (!placed_in_ram(v) || explanations.empty()) return;
  if (lines_from_plan(v, plan)) {
    replace(explanations, fit_weights(*plan));
    replace(explanations, fit_cache(*plan));
    replace(explanations, {"state_cache",
                           message("explain.state_cache.formula_fit",
                                   "--fit counts the recurrent state with the KV cache, as its context figure"),
                           message("explain.state_cache.values_fit", "in the KV cache line"), fit_source()});
    replace(explanations, fit_compute(*plan));
    if (e.vision && plan->margin_holds_projector)
      replace(explanations,
              {"vision_encoder",
               message("explain.vision_encoder.formula_fit",
                       "the vision projector llama-server loads beside the layers --fit placed (--mmproj); clip's "
                       "compute buffer for an image uses the room --fit keeps free"),
               message("explain.vision_encoder.values_fit", "{amount} B", {arg::count("amount", plan->projector_bytes)}),
               fit_source()});
    else if (e.vision)
      replace(explanations,
              {"vision_encoder",
               message("explain.vision_encoder.formula_fit_on_top",
                       "the vision projector llama-server loads beside the layers --fit placed (--mmproj) + clip's "
                       "compute buffer for the images, which --fit's margin does not hold"),
               message("explain.vision_encoder.values_fit_on_top", "{projector} + {compute} = {amount} B",
                       {arg::count("projector", plan->projector_bytes),
                        arg::count("compute", clip_beside_fit(*plan, e)),
                        arg::count("amount", plan->projector_bytes + clip_beside_fit(*plan, e))}),
               fit_source()});
  }
  // The system RAM line goes before the total, as the breakdown lists it.
  std::erase_if(explanations, [](const Explanation& x) { return x.key == "total"; });
  explanations.push_back(system_ram(e, v, plan));
  explanations.push_back(placed_total(placed_breakdown(e, v, plan)));
}

}  // namespace vramfit
