#include "json/report_writer.hpp"

#include <string>   // std::string
#include <utility>  // std::pair

#include "json/report_json.hpp"

namespace vramfit {

using detail::JsonWriter;

namespace {

std::string describe_targets(const LinearSet& t) {
  if (t.q && t.k && t.v && t.o && t.gate && t.up && t.down && t.router) return "all-linear";
  std::string out;
  const std::pair<bool, const char*> names[] = {{t.q, "q"},       {t.k, "k"},   {t.v, "v"},     {t.o, "o"},
                                                {t.gate, "gate"}, {t.up, "up"}, {t.down, "down"}, {t.router, "router"}};
  for (const auto& [on, name] : names)
    if (on) out += (out.empty() ? "" : ",") + std::string(name);
  return out;
}

// "grpo" for RL fine-tuning (its policy's mode is an input of its own), else the training mode.
std::string_view report_mode_name(const TrainingEstimate& e) {
  return e.grpo ? std::string_view("grpo") : training_mode_name(e.mode);
}

// The lines GRPO adds (its inputs are under "inputs").
void write_grpo(JsonWriter& w, const TrainingReport& report) {
  const auto& e = report.estimate;
  if (!e.grpo) return;
  const GrpoBytes& g = *e.grpo;
  w.begin_object("grpo");
  w.field("gathered_weights", g.gathered_weights);
  w.field("generation_batch", g.generation_batch);
  w.field("kv_cache", g.kv_cache);
  w.field("reference_model", g.reference_model);
  w.field("sampler_logits", g.sampler_logits);
  w.field("sampling", g.sampling);
  w.field("sampling_overlaps_training", g.sampling_overlaps_training);
  w.field("vllm_pool", g.vllm_pool);
  w.end_object();
}

// One rank's memory; the per-rank list adds who the rank is.
void write_rank(JsonWriter& w, const char* key, const RankMemory& r, bool with_role, bool grpo) {
  w.begin_object(key);
  w.field("activations", r.activations);
  w.field("gradients", r.gradients);
  if (with_role) w.field("in_flight_micro_batches", r.in_flight_micro_batches);
  w.field("master_weights", r.master_weights);
  w.field("optimizer", r.optimizer);
  w.field("overhead", r.overhead);
  if (with_role) w.field("params", r.params);
  if (grpo) w.field("reference_model", r.reference_model);
  if (with_role) w.field("role", r.role);
  if (grpo) w.field("sampling", r.sampling);
  w.field("temporary", r.temporary);
  w.field("total", r.total);
  w.field("weights", r.weights);
  w.end_object();
}

void write_activations(JsonWriter& w, const TrainingEstimate& e) {
  if (e.activations) {
    const auto& a = *e.activations;
    w.begin_object("activations");
    w.field("backward_transient", a.backward_transient);
    w.field("embedding", a.embedding);
    w.field("head", a.head);
    w.field("layer_transient", a.layer_transient);
    w.field("layers", a.layers);
    w.field("logits", a.logits);
    w.field("logits_gradient", a.logits_gradient);
    const LayerActivationBytes& largest = a.largest_layer();
    w.field("per_layer_full", largest.full);
    w.field("per_layer_kept", largest.kept);
    w.field("recompute_peak", a.recompute_peak);
    w.field("total", a.total);
    w.end_object();
  } else {
    w.field("activations", nullptr);
  }
}

// What was estimated, as resolved: the training core's defaults filled in.
void write_inputs(JsonWriter& w, const TrainingReport& report) {
  const auto& e = report.estimate;
  const auto& o = report.options;
  const bool adapters = e.mode != TrainingMode::full;
  const auto& l = e.layout;
  w.begin_object("inputs");
  const auto* a = e.activations ? &*e.activations : nullptr;
  if (a) w.field("attn_implementation", attn_implementation_name(a->implementation));
  else w.field("attn_implementation", nullptr);
  const GrpoOptions* g = e.grpo ? (o.grpo ? &*o.grpo : nullptr) : nullptr;  // GRPO's inputs, in the same order
  if (g) w.field("beta", g->beta);
  w.field("checkpointing", checkpointing_name(o.checkpointing));
  if (g) w.field("completion_tokens", g->completion_tokens);
  w.field("dp", l.data_parallel);
  w.field("dropout", a ? a->attention_dropout || a->hidden_dropout : o.dropout.value_or(false));
  w.field("fsdp", fsdp_name(o.parallel.zero));
  if (g) w.field("generation_batch", e.grpo->generation_batch);
  w.field("global_batch", l.global_batch);
  if (report.gpu) w.field("gpu", report.gpu->id);
  else w.field("gpu", nullptr);
  if (g && g->sampler == GrpoSampler::vllm_colocate) w.field("gpu_util", g->vllm_gpu_util);
  else if (g) w.field("gpu_util", nullptr);
  w.field("gpus", l.gpus);
  w.field("grad_accum", l.gradient_accumulation);
  w.field("grad_dtype", grad_dtype_name(e.grad_dtype));
  w.field("headroom", report.headroom);
  if (adapters) w.field("lora_rank", o.lora_rank), w.field("lora_targets", describe_targets(o.lora_targets));
  else w.field("lora_rank", nullptr), w.field("lora_targets", nullptr);
  w.field("mfu", report.mfu);
  w.field("micro_batch", l.micro_batch);
  w.field("mode", report_mode_name(e));
  if (g) w.field("num_generations", g->num_generations);
  w.field("offload", offload_name(o.parallel.offload));
  w.field("optimizer", optimizer_info(e.optimizer).name);
  if (e.grpo) w.field("policy", training_mode_name(e.mode));
  w.field("pp", l.pipeline_parallel);
  w.field("precision", precision_name(e.precision));
  if (g) w.field("prompt_tokens", g->prompt_tokens), w.field("sampler", grpo_sampler_name(g->sampler));
  w.field("sequence", o.sequence);
  w.field("sequence_source", report.sequence_source);
  w.field("sp", o.parallel.sequence_parallel);
  w.field("tokens", report.tokens);
  w.field("tp", l.tensor_parallel);
  w.field("zero", zero_name(o.parallel.zero));
  w.end_object();
}

void write_time(JsonWriter& w, const TrainingReport& report) {
  const auto& e = report.estimate;
  if (report.time) {
    const auto& t = *report.time;
    const auto& f = t.fastest;
    w.begin_object("time");
    w.field("executed_flops", f.executed_flops);
    w.field("flops", f.model_flops);
    w.field("flops_per_token", f.per_token.model_per_token);
    w.field("gpu", t.gpu->id);
    w.field("gpu_hours", f.gpu_hours);
    w.field("gpu_hours_max", t.gpu_hours_max);
    w.field("gpus", e.layout.gpus);
    w.field("mfu", t.mfu);
    w.field("peak_dtype", t.peak_dtype);
    w.field("peak_tflops", t.peak_tflops);
    w.field("recompute_overhead", f.recompute_overhead);
    w.field("seconds", f.seconds);
    w.field("seconds_max", t.seconds_max);
    w.field("tokens", t.tokens);
    w.field("usd", f.cost_usd);
    w.field("usd_max", t.cost_usd_max);
    w.field("usd_per_gpu_hour", t.usd_per_gpu_hour);
    w.end_object();
  } else {
    w.field("time", nullptr);
  }
}

}  // namespace

std::string training_report_to_json(const TrainingReport& report) {
  const auto& e = report.estimate;
  const auto& m = report.model;
  JsonWriter w;
  w.begin_object();
  write_activations(w, e);
  const bool grpo = e.grpo.has_value();
  write_rank(w, "breakdown", e.breakdown, false, grpo);
  w.field("breakdown_role", e.breakdown.role);
  detail::write_explanations(w, e.explanations);
  w.begin_array("gpus");
  for (const auto& f : report.gpus) detail::write_gpu_fit(w, *f.gpu, f.fit, f.free_bytes);
  w.end_array();
  w.message_id("gradient_convention", e.gradient_convention);
  write_grpo(w, report);
  w.field("host_ram_bytes", e.host_ram_bytes);
  write_inputs(w, report);
  w.field("mode", report_mode_name(e));
  detail::write_model(w, m, e.params, report.published_params);
  w.message_ids("notes", e.notes);
  w.field("nvme_bytes", e.nvme_bytes);
  w.field("ok", true);
  w.field("quantized_params", e.quantized_params);
  w.begin_array("ranks");
  for (const auto& r : e.ranks) write_rank(w, nullptr, r, true, grpo);
  w.end_array();
  w.begin_object("slowdown");
  w.field("max", e.slowdown.max);
  w.field("min", e.slowdown.min);
  w.message_id("source", e.slowdown.source);
  w.end_object();
  write_time(w, report);
  w.field("trainable_params", e.trainable_params);
  detail::write_verdict(w, report.verdict);
  w.end_object();
  return w.take();
}

}  // namespace vramfit
