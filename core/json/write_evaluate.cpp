#include "json/report_writer.hpp"

#include <string>  // std::string, std::to_string

#include "formats/dtype.hpp"  // dtype_info
#include "json/report_json.hpp"
#include "questions/placed_breakdown.hpp"

namespace vramfit {

using detail::JsonWriter;
using detail::write_range;

namespace {

void write_speed(JsonWriter& w, const ServingSpeed& s) {
  const DecodeSpeed& d = s.decode;
  w.begin_object("speed");
  w.field("bytes_per_step", d.bytes_per_step_per_gpu);
  w.field("compute_bound", d.compute_bound);
  w.field("compute_path", compute_path_name(s.compute));
  write_range(w, "cpu_seconds", d.cpu_seconds);
  write_range(w, "decode_step_seconds", d.step_seconds);
  write_range(w, "decode_tokens_per_second", d.tokens_per_second);
  write_range(w, "decode_tokens_per_second_per_sequence", d.tokens_per_second_per_sequence);
  if (s.draft) {
    const DraftSpeed& x = *s.draft;
    w.begin_object("draft");
    w.field("acceptance_given", x.acceptance_given);
    w.field("acceptance_high", x.acceptance_high);
    w.field("acceptance_low", x.acceptance_low);
    write_range(w, "decode_tokens_per_second", x.tokens_per_second);
    write_range(w, "decode_tokens_per_second_per_sequence", x.tokens_per_second_per_sequence);
    write_range(w, "draft_step_seconds", x.draft_step_seconds);
    w.field("draft_tokens", x.draft_tokens);
    write_range(w, "step_seconds", x.step_seconds);
    w.field("tokens_per_step_high", x.tokens_per_step_high);
    w.field("tokens_per_step_low", x.tokens_per_step_low);
    w.end_object();
  }
  w.field("efficiency_source", s.efficiency_source);
  w.message_id("explanation", d.explanation);
  w.field("flops_per_step", d.flops_per_step_per_gpu);
  write_message_or_null(w, "note", s.note);
  if (s.prefill) w.field("prefill_chunk_tokens", s.prefill_chunk);
  else w.field("prefill_chunk_tokens", nullptr);
  if (s.prefill) w.message_id("prefill_explanation", s.prefill->explanation);
  else w.field("prefill_explanation", nullptr);
  if (s.prefill) write_range(w, "prefill_tokens_per_second", s.prefill->tokens_per_second);
  else w.field("prefill_tokens_per_second", nullptr);
  write_message_or_null(w, "prefill_unavailable", s.prefill_unavailable);
  w.field("prompt_tokens", s.prompt_tokens);
  w.field("tensor_parallel_efficiency", d.tensor_parallel_efficiency);
  if (s.prefill) write_range(w, "time_to_first_token_seconds", s.prefill->seconds);
  else w.field("time_to_first_token_seconds", nullptr);
  w.end_object();
}

void write_cost(JsonWriter& w, const ServingCost& c, const Gpu& gpu) {
  const auto& price = gpu.cloud_usd_per_hour;
  w.begin_object("cost");
  if (c.energy) {
    const EnergyUse& e = *c.energy;
    w.begin_object("energy");
    w.field("basis", "board power at TDP for the whole hour (an upper bound); the host is not counted");
    w.field("kwh_per_hour", e.kwh_per_hour);
    w.field("tdp_w", e.tdp_w);
    w.field("usd_per_hour", e.usd_per_hour);
    w.field("usd_per_kwh", e.usd_per_kwh);
    write_range(w, "usd_per_million_tokens", e.usd_per_million_tokens);
    w.end_object();
  } else {
    w.field("energy", nullptr);
  }
  write_message_or_null(w, "energy_unavailable", c.energy_unavailable);
  if (price) w.field("price_date", price->date), w.field("price_source", price->offer);
  else w.field("price_date", nullptr), w.field("price_source", nullptr);
  w.field("usd_per_hour", c.usd_per_hour);
  write_range(w, "usd_per_million_tokens", c.usd_per_million_tokens);
  w.end_object();
}

// What was estimated, as resolved: the engine's defaults filled in.
void write_inputs(JsonWriter& w, const Report& report) {
  const auto& e = report.estimate;
  w.begin_object("inputs");
  w.field("attention", attention_name(e.attention));
  w.field("batch", e.batch);
  w.field("compute_dtype", dtype_info(e.weights_dtype).name);
  w.field("context", e.context_tokens);
  w.field("context_source", report.context_source);
  w.field("engine", engine_name(e.engine));
  w.field("expandable_segments", e.expandable_segments);
  w.field("headroom", report.headroom);
  w.field("kv_allocation", kv_allocation_name(e.kv_allocation.strategy));
  w.field("kv_dtype", kv_dtype_info(e.kv_dtype).name);
  w.field("weights", e.weights_format);
  w.end_object();
}

void write_llamacpp(JsonWriter& w, const InferenceEstimate& e) {
  if (e.llamacpp) {
    const auto& b = *e.llamacpp;
    w.begin_object("llamacpp");
    w.field("compute_buffer_bytes", b.compute_buffer_bytes);
    w.field("compute_buffer_other_bytes", b.compute_buffer_other_bytes);
    // The llama.cpp build assumed; under Ollama its own version says which llama-server it runs.
    if (e.engine == Engine::llamacpp) w.field("engine_version", llamacpp_version_name(b.build));
    w.field("flash_attn", b.flash_attn);
    w.field("gpu_layers", b.gpu_layers);
    w.field("host_kv_bytes", b.host_kv_bytes);
    w.field("host_ram_bytes", b.host_ram_bytes);
    w.field("host_state_bytes", b.host_state_bytes);
    w.field("host_weights_bytes", b.host_weights_bytes);
    w.field("mmproj_bytes", b.mmproj_bytes);
    w.field("n_ctx", b.n_ctx);
    w.field("n_ubatch", b.n_ubatch);
    w.field("output_buffer_bytes", b.output_buffer_bytes);
    w.field("output_on_gpu", b.output_on_gpu);
    w.field("total_layers", b.total_layers);
    w.end_object();
  } else {
    w.field("llamacpp", nullptr);
  }
}

// llama.cpp's --fit on the request's GPU: what it changed, the flags that say so, and where the bytes went.
void write_llamacpp_fit(JsonWriter& w, const std::optional<LlamaCppFitPlan>& plan) {
  if (!plan) {
    w.field("llamacpp_fit", nullptr);
    return;
  }
  const LlamaCppFitPlan& p = *plan;
  w.begin_object("llamacpp_fit");
  w.field("context", p.context);
  w.field("context_saving_bytes", p.context_saving_bytes);
  w.field("context_set", p.context_set);
  w.field("context_start", p.context_start);
  w.field("cpu_expert_layers", p.cpu_expert_layers);
  w.field("expert_layers", p.expert_layers);
  w.field("first_cpu_expert_layer", p.first_cpu_expert_layer);
  w.field("fits", p.fits);
  w.field("free_bytes", p.free_bytes);
  w.field("gpu_bytes", p.gpu_bytes);
  w.field("gpu_compute_bytes", p.gpu_compute_bytes);
  w.field("gpu_context_bytes", p.gpu_context_bytes);
  w.field("gpu_layers", p.gpu_layers);
  w.field("gpu_model_bytes", p.gpu_model_bytes);
  w.field("host_context_bytes", p.host_context_bytes);
  w.field("host_model_bytes", p.host_model_bytes);
  w.field("host_ram_bytes", p.host_ram_bytes);
  w.field("margin_bytes", p.margin_bytes);
  w.field("projector_bytes", p.projector_bytes);
  w.field("min_context", kLlamaFitMinContext);
  w.field("n_cpu_moe", p.n_cpu_moe);
  w.field("output_on_gpu", p.output_on_gpu);
  w.field("projected_bytes", p.projected_bytes);
  w.field("step", llama_fit_step_name(p.step));
  w.field("total_layers", p.total_layers);
  w.end_object();
}

// How the GPUs share the model: vLLM and SGLang split every layer (tensor parallel) or run stages of layers
// (pipeline); the others put whole layers on each GPU.
std::string_view split_name(const InferenceEstimate& e) {
  if (e.engine == Engine::llamacpp) return "layer_split";
  if (e.engine == Engine::transformers) return "device_map";
  const std::uint64_t tp = e.vllm ? e.vllm->tensor_parallel : e.sglang ? e.sglang->tensor_parallel : 1;
  return tp > 1 ? "tensor_parallel" : "pipeline_parallel";
}

// Each GPU of a layer split, in device order (CUDA0 first), with what it leaves free on its card (null without one).
void write_devices(JsonWriter& w, const std::vector<DeviceShare>& devices, const std::vector<std::int64_t>& free) {
  w.begin_array("devices");
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const DeviceShare& d = devices[i];
    w.begin_object();
    w.field("activations", d.activations);
    w.field("allocator_reserve", d.allocator_reserve);
    w.field("first_layer", d.first_layer);
    if (i < free.size()) w.field("free_bytes", free[i]);
    else w.field("free_bytes", nullptr);
    w.field("input", d.input);
    w.field("kv_cache", d.kv_cache);
    w.field("layers", d.layers);
    w.field("output", d.output);
    w.field("overhead", d.overhead);
    w.field("state_cache", d.state_cache);
    w.field("total", d.total);
    w.field("weights", d.weights);
    w.end_object();
  }
  w.end_array();
}

// Speculative decoding's draft, part by part; absent without one.
void write_draft(JsonWriter& w, const InferenceEstimate& e) {
  if (!e.draft_detail) return;
  const DraftMemory& d = *e.draft_detail;
  w.begin_object("draft_model");
  w.field("acceptance_given", d.acceptance_given);
  w.field("acceptance_high", d.acceptance_high);
  w.field("acceptance_low", d.acceptance_low);
  w.field("buffers", d.buffers);
  w.field("contexts", d.contexts);
  w.field("draft_tokens", d.tokens);
  w.field("draft_tokens_default", d.tokens_default);
  w.field("kind", draft_kind_name(d.kind));
  w.field("kv_bytes_per_token", d.kv_bytes_per_token);
  w.field("kv_cache", d.kv_cache);
  w.field("kv_tokens", d.kv_tokens);
  w.field("layers", d.layers);
  w.field("name", d.name);
  w.field("params", d.params);
  w.field("total", d.total);
  w.field("weights", d.weights);
  w.field("weights_format", d.weights_format);
  w.end_object();
}

// One GPU's share of a multi-GPU deployment (the busiest one), and its verdict on the request's GPU.
void write_per_gpu(JsonWriter& w, const Report& report, const GpuFit* fit) {
  const InferenceEstimate& e = report.estimate;
  const auto& g = e.per_gpu;
  w.begin_object("per_gpu");
  w.field("activations", g.activations);
  w.field("allocator_reserve", g.allocator_reserve);
  if (e.draft_detail) w.field("draft", g.draft);
  if (fit) w.field("fit", fit_name(fit->fit));
  else w.field("fit", nullptr);
  if (report.per_gpu_free_bytes) w.field("free_bytes", *report.per_gpu_free_bytes);
  else w.field("free_bytes", nullptr);
  w.field("gpus", g.gpus);
  w.field("how", split_name(e));
  w.field("kv_cache", g.kv_cache);
  w.field("overhead", g.overhead);
  w.field("state_cache", g.state_cache);
  w.field("total", g.total);
  w.field("weights", g.weights);
  write_devices(w, e.devices, report.device_free_bytes);
  w.end_object();
}

void write_vllm(JsonWriter& w, const InferenceEstimate& e) {
  if (e.vllm) {
    const auto& v = *e.vllm;
    w.begin_object("vllm");
    w.field("block_bytes", v.block_bytes);
    w.field("block_size", v.block_tokens ? v.block_tokens : kVllmBlockSize);
    w.field("blocks_per_request", v.blocks_per_request);
    w.field("budget_bytes", v.budget_bytes);
    w.field("concurrency_ratio", v.concurrency_ratio);
    w.field("cuda_graph_bytes", v.cuda_graph_bytes);
    w.field("cuda_graphs_in_budget", v.cuda_graphs_in_budget);
    w.field("driver_total_bytes", v.driver_total_bytes);
    // A vision model: the images the profile run encodes (memory/vision.hpp VllmEncoderProfile).
    if (v.encoder_profile && v.encoder_profile->modelled) {
      const VllmEncoderProfile& p = *v.encoder_profile;
      w.field("encoder_budget_tokens", p.budget_tokens);
      w.field("encoder_cache_bytes", p.embeddings_bytes);
      w.field("encoder_items", p.items);
      w.field("encoder_peak_bytes", p.encoder_peak_bytes);
      w.field("encoder_profile_bytes", p.added_bytes);
      w.field("encoder_tokens_per_item", p.tokens_per_item);
    }
    w.field("engine_version", v.engine_version);
    w.field("forward_bytes", v.forward_bytes);
    w.field("gpu_memory_utilization", v.gpu_util);
    w.field("kv_capacity_bytes", v.kv_capacity_bytes);
    w.field("kv_cache_groups", v.kv_cache_groups);
    w.field("kv_capacity_tokens", v.kv_capacity_tokens);
    w.field("max_concurrency", v.max_concurrency);
    w.field("max_num_batched_tokens", v.max_num_batched_tokens);
    w.field("max_num_seqs", v.max_num_seqs);
    w.field("kv_bytes_per_token", v.kv_bytes_per_token);
    w.field("model_runner_v2", v.model_runner_v2);
    w.field("mxfp4_padding_bytes", v.mxfp4_padding_bytes);
    w.field("non_torch_bytes", v.non_torch_bytes);
    w.field("num_blocks", v.num_blocks);
    w.field("pipeline_parallel", v.pipeline_parallel);
    w.field("profile_activation_bytes", v.profile_activation_bytes);
    w.field("request_bytes", v.request_bytes);
    w.field("sampler_bytes", v.sampler_bytes);
    w.field("sequence_tokens", v.sequence_tokens);
    w.field("state_bytes_per_sequence", v.state_bytes_per_sequence);
    w.field("tensor_parallel", v.tensor_parallel);
    w.field("weights_bytes", v.weights_bytes);
    w.end_object();
  } else {
    w.field("vllm", nullptr);
  }
}

// Only under SGLang, so that other engines' answers keep their shape.
void write_sglang(JsonWriter& w, const InferenceEstimate& e) {
  if (!e.sglang) return;
  const auto& c = *e.sglang;
  w.begin_object("sglang");
  w.field("cell_bytes", c.cell_bytes);
  w.field("chunked_prefill_size", c.chunked_prefill_size);
  w.field("concurrency_ratio", c.concurrency_ratio);
  w.field("context_len", c.context_len);
  w.field("distributed_bytes", c.distributed_bytes);
  w.field("driver_total_bytes", c.driver_total_bytes);
  w.field("engine_version", c.engine_version);
  w.field("free_at_start_bytes", c.free_at_start_bytes);
  w.field("kv_capacity_bytes", c.kv_capacity_bytes);
  w.field("max_concurrency", c.max_concurrency);
  w.field("max_mamba_cache_size", c.state_pool.max_mamba_cache_size);
  w.field("max_running_requests", c.max_running_requests);
  w.field("max_total_num_tokens", c.max_total_num_tokens);
  w.field("mem_fraction_default", c.mem_fraction_default);
  w.field("mem_fraction_static", c.mem_fraction_static);
  w.field("pipeline_parallel", c.pipeline_parallel);
  w.field("reserved_mib", c.reserved_mib);
  w.field("state_pool_bytes", c.state_pool.allocated_bytes);
  w.field("state_slot_bytes", c.state_pool.slot_bytes);
  w.field("tensor_parallel", c.tensor_parallel);
  if (c.vlm_factor != 1.0) w.field("vlm_factor", c.vlm_factor);  // adjust_mem_fraction_for_vlm, a multimodal model
  w.field("weights_bytes", c.weights_bytes);
  w.end_object();
}

// Only under MLX: what its peak counts besides the weights and the cache.
void write_mlx(JsonWriter& w, const InferenceEstimate& e) {
  if (!e.mlx) return;
  const auto& m = *e.mlx;
  w.begin_object("mlx");
  w.field("cache_tokens", m.cache_tokens);
  w.field("chunk_tokens", m.chunk_tokens);
  w.field("engine_version", m.engine_version);
  w.field("fused_attention", m.fused_attention);
  w.field("growth_bytes", m.growth_bytes);
  w.field("head_input_bytes", m.head_input_bytes);
  w.field("kv_bits", m.kv_bits);
  w.field("layer_bytes", m.layer_bytes);
  w.field("logits_bytes", m.logits_bytes);
  w.field("logits_tokens", m.logits_tokens);
  w.field("max_kv_size", m.max_kv_size);
  w.field("scores_bytes", m.scores_bytes);
  w.end_object();
}

// Only under Ollama: the version assumed; up to 0.11.10 its estimate as its "offload" log line names the figures,
// from 0.30 where llama-server holds a vision projector.
void write_ollama(JsonWriter& w, const Report& report) {
  const InferenceEstimate& e = report.estimate;
  if (e.engine != Engine::ollama) return;
  if (!e.ollama) {
    w.begin_object("ollama");
    w.field("engine_version", report.ollama_version);
    // The llama.cpp build that Ollama version bundles; null for a version whose build is not known.
    const auto build = ollama_llamacpp_build(report.ollama_version);
    w.field("llamacpp_version", build ? std::optional<std::string>(llamacpp_version_name(*build)) : std::nullopt);
    w.field("projector_bytes", e.llamacpp ? e.llamacpp->mmproj_bytes : 0);  // on the GPU; 0 without one there
    w.end_object();
    return;
  }
  const auto& c = *e.ollama;
  w.begin_object("ollama");
  w.field("available_bytes", c.available_bytes);
  w.field("engine_version", report.ollama_version);
  w.field("flash_attention", c.flash_attention);
  w.field("gpu_overhead_bytes", c.gpu_overhead_bytes);
  w.field("gpu_usable", c.gpu_usable);
  w.field("graph_formula", c.graph_formula);
  w.field("graph_full_bytes", c.graph_full_bytes);
  w.field("graph_partial_bytes", c.graph_partial_bytes);
  w.field("kv_bytes", c.kv_bytes);
  w.field("kv_type", kv_dtype_info(c.kv_type).name);
  w.field("kv_type_ignored", c.kv_type_ignored);
  w.field("layers_model", c.layers_model);
  w.field("layers_offload", c.layers_offload);
  w.field("minimum_bytes", c.minimum_bytes);
  w.field("num_ctx", c.num_ctx);
  w.field("num_parallel", c.num_parallel);
  w.field("output_bytes", c.output_bytes);
  w.field("planned", c.planned);
  if (c.projector_weights_bytes) {  // a vision model: projector.weights and projector.graph, with the output layer
    w.field("projector_graph_bytes", c.projector_graph_bytes);
    w.field("projector_on_gpu", c.projector_on_gpu);
    w.field("projector_weights_bytes", c.projector_weights_bytes);
  }
  w.field("required_full_bytes", c.required_full_bytes);
  w.field("required_partial_bytes", c.required_partial_bytes);
  w.field("system_ram_bytes", c.system_ram_bytes);
  w.field("weights_repeating_bytes", c.weights_repeating_bytes);
  w.field("window_layers", c.window_layers);
  w.field("window_tokens", c.window_tokens);
  w.end_object();
}

// A vision model's encoder as the engine holds it; null for a model without one.
void write_vision(JsonWriter& w, const InferenceEstimate& e) {
  if (!e.vision) {
    w.field("vision", nullptr);
    return;
  }
  const VisionEncoder& v = *e.vision;
  w.begin_object("vision");
  w.field("apart", v.apart);
  w.field("bytes", v.bytes);
  w.field("compute_bytes", v.compute_bytes);
  w.field("format", v.format);
  w.field("image_height", v.image_height);
  w.field("image_width", v.image_width);
  w.field("images", v.images);
  w.field("params", v.params);
  w.field("patches_per_image", v.patches_per_image);
  w.field("size_from_engine", v.size_from_engine);
  w.field("tokens_per_image", v.tokens_per_image);
  w.field("weights_bytes", v.weights_bytes);
  w.end_object();
}

void write_groups(JsonWriter& w, const char* key, const std::vector<WeightGroup>& groups) {
  w.begin_array(key);
  for (const auto& g : groups) {
    w.begin_object();
    w.field("bytes", g.bytes);
    w.field("format", g.format);
    w.field("params", g.params);
    w.field("what", g.what);
    w.end_object();
  }
  w.end_array();
}

void write_weights(JsonWriter& w, const InferenceEstimate& e) {
  const auto& wd = e.weight_detail;
  w.begin_object("weights");
  w.field("attention", wd.attention);
  w.field("embedding", wd.embedding);
  w.message_id("explanation", wd.explanation);
  w.field("file_bytes", wd.file_bytes());  // what the checkpoint files hold: total_bytes and the MTP layers
  w.field("format", e.weights_format);
  write_groups(w, "groups", wd.groups);
  w.field("mlp", wd.mlp);
  // The files' multi-token-prediction layers, apart from total_bytes: loaded only for MTP speculative decoding.
  w.begin_object("mtp_layers");
  w.field("bytes", wd.mtp_bytes);
  write_groups(w, "groups", wd.mtp_groups);
  w.field("params", wd.mtp_params);
  w.end_object();
  w.field("norms", wd.norms);
  w.field("other", wd.other);
  w.field("output", wd.output);
  w.begin_array("storage");
  for (const auto& t : wd.storage) {
    w.begin_object();
    w.field("bytes", t.bytes);
    w.field("elements", t.elements);
    w.field("type", t.type);
    w.end_object();
  }
  w.end_array();
  w.field("total_bytes", wd.total);
  w.end_object();
}

}  // namespace

namespace {

// The memory by part, as the engine places it (placed_breakdown).
void write_breakdown(JsonWriter& w, const InferenceEstimate& e, const PlacedBreakdown& b) {
  w.begin_object("breakdown");
  w.field("activations", b.activations);
  w.field("allocator_reserve", b.allocator_reserve);
  w.field("in_use", b.in_use);
  if (e.draft_detail) w.field("draft", e.draft);
  w.field("kv_cache", b.kv_cache);
  // One line per other model loaded first (memory/others.hpp), between the keys around it in sorted order.
  for (const OtherModel& other : e.other_models) w.field(other_model_key(other).c_str(), other.bytes);
  w.field("overhead", b.overhead);
  w.field("state_cache", b.state_cache);
  w.field("system_ram", b.system_ram);
  w.field("total", b.total);
  w.field("vision_encoder", b.vision_encoder);
  w.field("weights", b.weights);
  w.end_object();
}

// The other models loaded first, in the order they load (the breakdown's keys come sorted): only with some.
void write_other_models(JsonWriter& w, const InferenceEstimate& e) {
  if (e.other_models.empty()) return;
  w.begin_array("other_models");
  for (const OtherModel& other : e.other_models) {
    w.begin_object();
    w.field("bytes", other.bytes);
    w.field("context", other.context_tokens);
    w.field("name", other.name);
    w.end_object();
  }
  w.end_array();
}

void write_command(JsonWriter& w, const Report& report) {
  w.begin_object("command");
  write_message_or_null(w, "note", report.command_note);
  w.field("text", report.command);
  w.end_object();
}

// The KV cache's allocation (paged or static) and its size per token.
void write_kv_cache(JsonWriter& w, const InferenceEstimate& e) {
  w.begin_object("kv_allocation");
  w.field("avg_tokens", e.kv_allocation.avg_tokens);
  w.field("paged_bytes", e.kv_allocation.paged_bytes);
  w.field("static_bytes", e.kv_allocation.static_bytes);
  w.field("strategy", kv_allocation_name(e.kv_allocation.strategy));
  w.end_object();
  w.begin_object("kv_cache");
  w.field("bytes_per_token", e.kv.bytes_per_token);
  w.field("bytes_per_token_layer", e.kv.bytes_per_token_layer);
  w.field("dtype", kv_dtype_info(e.kv_dtype).name);
  w.field("mla_cache", e.kv.mla == MlaCache::latent ? "latent" : "per_head");
  w.field("state_bytes_per_sequence", e.kv.state_bytes_per_sequence);
  w.field("state_layers", e.kv.state_layers);
  w.field("window_cells", e.kv.window_cells);
  w.field("windowed_layers", e.kv.windowed_layers);
  w.end_object();
}

void write_memory_range(JsonWriter& w, const InferenceEstimate& e, const PlacedBreakdown& b) {
  w.begin_object("range");
  w.field("drivers", e.range.drivers);
  w.field("high", b.range_high);
  w.field("low", b.range_low);
  w.end_object();
}

}  // namespace

std::string report_to_json(const Report& report) {
  const auto& e = report.estimate;
  const auto& m = report.model;
  // Speed and cost need the request's GPU; without one they are null.
  const ServingEstimate* serving = report.serving && !report.gpus.empty() ? &*report.serving : nullptr;
  const ServingSpeed* speed = serving && serving->speed ? &*serving->speed : nullptr;
  JsonWriter w;
  w.begin_object();
  w.begin_object("activations");
  w.field("attention_scores", e.attention_scores);
  w.field("logits", e.logits);
  w.end_object();
  const PlacedBreakdown b = placed_breakdown(e, report.verdict, report.llamacpp_fit ? &*report.llamacpp_fit : nullptr);
  write_breakdown(w, e, b);
  write_command(w, report);
  if (serving) write_cost(w, serving->cost, *report.gpus.front().gpu);
  else w.field("cost", nullptr);
  if (speed) write_range(w, "decode_tokens_per_second", speed->decode.tokens_per_second);
  else w.field("decode_tokens_per_second", nullptr);
  write_draft(w, e);
  detail::write_explanations(w, e.explanations);
  w.begin_array("gpus");
  for (const auto& f : report.gpus)
    detail::write_gpu_fit(w, *f.gpu, f.fit, f.free_bytes, f.gpus_needed, f.one_per_machine);
  w.end_array();
  write_inputs(w, report);
  write_kv_cache(w, e);
  write_llamacpp(w, e);
  write_llamacpp_fit(w, report.llamacpp_fit);
  // The checkpoint's files that would change the figures ("hf_quant_config.json"): the page and the CLI ask for them.
  w.field("missing_files", report.missing_files);
  write_mlx(w, e);
  detail::write_model(w, m, e.params, report.published_params);
  w.message_ids("notes", e.notes);
  w.field("ok", true);
  write_other_models(w, e);
  if (e.per_gpu.gpus > 1) write_per_gpu(w, report, report.gpus.size() == 1 ? &report.gpus.front() : nullptr);
  if (speed && speed->prefill) write_range(w, "prefill_tokens_per_second", speed->prefill->tokens_per_second);
  else w.field("prefill_tokens_per_second", nullptr);
  write_memory_range(w, e, b);
  write_ollama(w, report);
  write_sglang(w, e);
  if (speed) write_speed(w, *speed);
  else w.field("speed", nullptr);
  if (serving) write_message_or_null(w, "speed_unavailable", serving->speed_unavailable);
  else w.field("speed_unavailable", nullptr);
  if (speed && speed->prefill) write_range(w, "time_to_first_token_seconds", speed->prefill->seconds);
  else w.field("time_to_first_token_seconds", nullptr);
  detail::write_verdict(w, report.verdict);
  write_vision(w, e);
  write_vllm(w, e);
  write_weights(w, e);
  w.end_object();
  return w.take();
}

std::string error_to_json(const Error& error) {
  JsonWriter w;
  w.begin_object();
  w.begin_object("error");
  w.field("field", error.field);
  w.message_id("message", error.message);
  w.end_object();
  w.field("ok", false);
  w.end_object();
  return w.take();
}

std::string refusal_to_json(BindingRefusal refusal, std::string_view field) {
  switch (refusal) {
    case BindingRefusal::file_size:
      return error_to_json(make_error("file", message("binding.file_size", "the file size must be between 0 and "
                                                                           "2^{bits} bytes",
                                                      {arg::digits("bits", kByteCountBits)})));
    case BindingRefusal::shards_not_array:
      return error_to_json(make_error("files", message("binding.shards_array", "expected an array of shards")));
    case BindingRefusal::shard_count:
      return error_to_json(make_error("files", message("binding.shard_count", "give 1 to {max} .safetensors shards",
                                                       {arg::digits("max", kMaxShards)})));
    case BindingRefusal::shard_fields:
      return error_to_json(
          make_error(std::string(field), message("binding.shard_fields", "needs a name, a size and the header bytes")));
    case BindingRefusal::shard_size:
      return error_to_json(make_error(std::string(field), message("binding.shard_size", "must be between 0 and "
                                                                                        "2^{bits} bytes",
                                                                  {arg::digits("bits", kByteCountBits)})));
  }
  return {};
}

std::string need_prefix_to_json(const ImportedModel& imported, bool sharded) {
  if (!sharded) return "{\"ok\":true,\"need_prefix_bytes\":" + std::to_string(imported.need_prefix_bytes) + "}";
  return "{\"ok\":true,\"need_prefix_bytes\":" + std::to_string(imported.need_prefix_bytes) +
         ",\"need_file\":" + std::to_string(imported.need_file) + "}";
}

}  // namespace vramfit
