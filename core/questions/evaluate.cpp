#include "questions/evaluate.hpp"
#include "questions/other_models.hpp"  // resolve_other_models, others_on_card

#include <algorithm>  // std::any_of, std::max, std::min
#include <optional>   // std::optional
#include <string>     // std::string, std::to_string
#include <utility>    // std::move
#include <vector>     // std::erase_if

#include "util/number_text.hpp"
#include "util/text.hpp"
#include "model/hf_config.hpp"
#include "model/hf_quantization.hpp"  // read_checkpoint_name
#include "formats/weight_formats.hpp"
#include "hardware/speed.hpp"
#include "questions/command_line.hpp"
#include "questions/placed_breakdown.hpp"
#include "memory/engines/ollama_server.hpp"
#include "memory/others.hpp"  // others_bytes
#include "questions/ollama_server.hpp"

namespace vramfit {

namespace {

// An input only some engines read (the inputs table's `engines`), given with another: refused, naming those that do.
std::optional<Error> refuse_unread_inputs(const Request& r, Engine engine) {
  const auto reads = [](unsigned engines, Engine e) { return ((engines >> static_cast<unsigned>(e)) & 1u) != 0; };
  for (const Request::EngineInput& given : r.engine_inputs) {
    if (reads(given.engines, engine)) continue;
    std::string readers;
    for (const EngineTraits& t : kEngineTable)
      if (reads(given.engines, t.engine)) readers += (readers.empty() ? "" : " / ") + std::string(t.title);
    return make_error(given.key, message("engine.input_not_read", "applies to {engines} only; {engine} does not read it",
                                   {arg::text("engines", readers), arg::text("engine", engine_title(engine))}));
  }
  return std::nullopt;
}

Error wired_limit_without_gpu() {
  return make_error("wired_limit_mb", message("mac.wired_without_gpu",
                                              "is the GPU memory limit of one shared-memory machine (a Mac, a Strix "
                                              "Halo, a DGX Spark): name its GPU in gpu"));
}

// The request's wired limit must be the one the catalog carries for its GPU: with_wired_limit puts it there, as
// answer() does, so that every GPU table and remedy judges that Mac by it.
Result<bool> wired_limit_applied(const Gpu& gpu, std::uint64_t limit_mib) {
  if (limit_mib == 0) return true;
  auto bytes = wired_limit_for(gpu, limit_mib, "wired_limit_mb");
  if (!bytes) return bytes.error();
  if (gpu.wired_limit_bytes != bytes.value())
    return make_error("wired_limit_mb", message("error.evaluate.wired_not_applied",
                                                "is not in the catalog's {gpu}: apply it with with_wired_limit",
                                                {arg::text("gpu", gpu.name)}));
  return true;
}

// The draft the request names: what a client read for it, a config.json (an EAGLE head when it says so), "mtp" (the
// model's own layers) or a preset; none without one. draft_tokens and acceptance go with a draft.
Result<std::optional<DraftOptions>> draft_of_request(const Catalog& catalog, const Request& r) {
  if (r.draft.empty() && r.draft_config.empty()) {
    if (r.draft_tokens || r.acceptance)
      return make_error(r.draft_tokens ? "draft_tokens" : "acceptance",
                        message("draft.without_draft", "goes with a draft model (--draft)"));
    return std::optional<DraftOptions>();
  }
  if (!r.draft.empty() && !r.draft_config.empty())
    return make_error("draft", message("draft.twice", "give the draft once: a preset id or \"mtp\", or its config.json"));
  // What a client read is for a name only it can read: a preset id or "mtp" in draft beside it names a second draft.
  if (r.draft_read && (lower_ascii(r.draft) == "mtp" ||
                       std::any_of(catalog.models.begin(), catalog.models.end(),
                                   [&](const ModelPreset& p) { return lower_ascii(p.id) == lower_ascii(r.draft); })))
    return make_error("draft_read", message("draft.read_beside_preset",
                                            "names a second draft: draft is \"{draft}\", which needs nothing read; "
                                            "give the draft once",
                                            {arg::text("draft", r.draft)}));
  DraftOptions d;
  if (r.draft_read) {
    auto read = draft_from_read(*r.draft_read);
    if (!read) return read.error();
    d = std::move(read).value();
  } else if (!r.draft_config.empty()) {
    auto read = draft_from_config(r.draft_config);
    if (!read) return read.error();
    d = std::move(read).value();
    d.name = d.spec.name.empty() ? d.spec.architecture : d.spec.name;
  } else if (lower_ascii(r.draft) == "mtp") {
    d.kind = DraftKind::mtp;
    d.name = "mtp";
  } else {
    auto found = resolve_model(catalog.models, r.draft);
    if (!found) {
      Error e = found.error();
      e.field = "draft";
      return e;
    }
    const auto& spec = found.value().preset->model.get();
    if (!spec) return spec.error();
    d.spec = spec.value();
    d.name = found.value().preset->id;
    d.repo = found.value().preset->hf_repo;
  }
  d.tokens = r.draft_tokens;
  d.acceptance = r.acceptance;
  return std::optional<DraftOptions>(std::move(d));
}

Result<ModelSpec> model_of_request(const Catalog& catalog, const Request& r, std::uint64_t& published,
                                   bool& from_preset, Message& source, std::vector<Message>& notes,
                                   std::string& hf_repo, const OllamaTag*& ollama_tag) {
  const int given = !r.model.empty() + !r.config_json.empty() + (r.params != 0) + r.imported.has_value();
  if (given > 1)
    return make_error("model", message("error.evaluate.model_several", "give only one of a preset, a config.json, a "
                                                                       "model file or a parameter count"));
  // A config or file carries no display name: say what it is rather than print a blank.
  auto named = [&r](ModelSpec spec, const char* what) {
    if (!r.model_name.empty()) spec.name = r.model_name;
    if (spec.name.empty()) spec.name = (spec.architecture.empty() ? std::string("model") : spec.architecture) + " " + what;
    if (spec.id.empty()) spec.id = "custom";
    return spec;
  };
  if (r.imported) {
    source = message("explain.params.source_file", "the model file's header (its architecture metadata and tensor shapes)");
    for (const Message& note : r.imported->notes) notes.push_back(note);
    return named(r.imported->spec, "(model file)");
  }
  if (!r.quant_config_json.empty() && r.config_json.empty())
    return make_error("quant_config", message("error.evaluate.quant_config_alone",
                                              "goes with the config.json it was published beside (\"config\")"));
  if (!r.config_json.empty()) {
    auto spec = model_from_hf_config(r.config_json, r.quant_config_json);
    if (!spec) return spec.error();
    source = message("explain.params.source_config", "the config.json given (its architecture fields)");
    return named(std::move(spec).value(), "(config.json)");
  }
  if (!r.model.empty()) {
    auto found = resolve_model(catalog.models, r.model);
    if (!found) return found.error();
    const ModelPreset* preset = found.value().preset;
    if (!found.value().note.empty()) notes.push_back(found.value().note);
    ollama_tag = found.value().ollama;
    published = preset->published_total;
    from_preset = true;
    hf_repo = preset->hf_repo;
    source = preset->hf_repo.empty() ? message("explain.params.source_preset", "the preset's config.json")
                                      : message("explain.params.source_hf", "huggingface.co/{repo}/blob/main/config.json",
                                                {arg::text("repo", preset->hf_repo)});
    return preset->model.get();
  }
  if (r.params != 0) {
    ModelSpec bare;
    bare.id = "custom";
    bare.name = "Custom model (" + std::to_string(r.params) + " parameters)";
    bare.bare_params = r.params;
    if (auto ok = validate(bare); !ok) return ok.error();
    source = message("explain.params.source_bare", "the parameter count given");
    return bare;
  }
  return make_error("model", message("error.evaluate.model_none", "give a preset id, a config.json or a parameter count"));
}

// A config.json alone that names no quantization, from a checkpoint whose name says FP8 or NVFP4: NVIDIA's ModelOpt
// exports keep that format in hf_quant_config.json beside it. The weights stay counted as bf16, and the note says so
// and asks for that file; nothing is guessed from the name.
CheckpointName checkpoint_name_of(const Request& r) {
  // The file's or folder's name, else the repository's id a looked-up config.json is shown by.
  CheckpointName named = read_checkpoint_name(r.config_name);
  if (named.format.empty()) named = read_checkpoint_name(r.model_name);
  return named;
}

std::optional<Message> quant_config_missing(const Request& r, const ModelSpec& model) {
  if (r.config_json.empty() || !r.quant_config_json.empty() || !r.weights.empty() || !model.quantization.empty())
    return std::nullopt;
  const CheckpointName named = checkpoint_name_of(r);
  if (named.format.empty()) return std::nullopt;
  return message("import.quant_config_missing",
                 "{name}: the name says {format}, but its config.json names no quantization; the weights are counted "
                 "as bf16 until its hf_quant_config.json is read with it (NVIDIA's ModelOpt checkpoints keep their "
                 "format there).",
                 {arg::text("name", named.name), arg::text("format", named.format)});
}

// Which GGUF file an Ollama tag of a preset stands for, where the engine runs that file (Ollama, llama.cpp) and no
// format was asked for: the file type a page says the tag ships, else the checkpoint's own GGUF type or Q4_K_M,
// said to be assumed. None where another engine runs the model's checkpoint.
struct TagWeights {
  std::string format;
  Message note;
};
std::optional<TagWeights> ollama_tag_weights(const Request& r, const OllamaTag* tag, const ModelSpec& model,
                                             Engine engine) {
  if (!tag || !r.weights.empty() || !ggml_engine(engine)) return std::nullopt;
  const MessageArg name = arg::text("name", tag->tag);
  if (!tag->quant.empty()) {
    // The source's address, without the words it quotes.
    std::string source = tag->source.substr(0, tag->source.find(' '));
    if (source.ends_with(':')) source.pop_back();
    return TagWeights{lower_ascii(tag->quant),
                      message("ollama.tag_quant", "Ollama's {name} ships {quant} weights ({source}).",
                              {name, arg::text("quant", tag->quant), arg::text("source", source)})};
  }
  const auto checkpoint = gguf_mix_for_checkpoint(model.quantization);
  const std::string assumed = checkpoint ? std::string(gguf_mix_name(*checkpoint)) : std::string("Q4_K_M");
  return TagWeights{lower_ascii(assumed),
                    message("ollama.tag_quant_unknown",
                            "Which weights Ollama's {name} ships is not known offline: they are counted as {format}, "
                            "assumed; choose another weight format to compare.",
                            {name, arg::text("format", assumed)})};
}

// llama.cpp plans with --fit where -ngl is left to it: on the request's GPU, against the memory CUDA reports
// (ggml_backend_cuda_device_get_memory calls cudaMemGetInfo, in the llama-server Ollama runs too) less the CUDA
// context and cuBLAS workspace the estimate counts (fit sees them gone from the free memory). A
// training context the estimator refuses (beyond kMaxContextTokens) leaves the answer without a plan. Ollama from
// 0.30 runs llama-server the same way, always with -c (so fit keeps the context) and its own -ub.
void add_llamacpp_fit(Report& report, const ResolvedRequest& rr) {
  const InferenceEstimate& e = report.estimate;
  const bool ollama = ollama_runs_llama_server(rr.options);
  if ((e.engine != Engine::llamacpp && !ollama) || !rr.gpu || rr.options.gpu_layers || report.model.is_bare()) return;
  if (!rr.options.device_split.empty()) return;  // fit over several GPUs is not modelled: the split is as given
  const std::uint64_t total = rr.gpu->driver_total_bytes();
  // What other programs hold is gone from the free memory fit measures (ggml_backend_dev_memory).
  const std::uint64_t free = free_beside(total > e.overhead ? total - e.overhead : 0, rr.options.memory_in_use);
  InferenceOptions options = rr.options;
  if (e.llamacpp) options.n_ubatch = e.llamacpp->n_ubatch;
  // Ollama's vision projector: on the GPU beside the plan, and from 0.31.2 the room --fit keeps for it.
  const OllamaProjector projector = ollama ? ollama_projector(report.model, rr.options) : OllamaProjector{};
  if (ollama) options.mmproj_offload = projector.place == OllamaProjectorPlace::gpu;
  auto inputs = llamacpp_fit_inputs(report.model, options, free, ollama || report.context_source == "request");
  if (!inputs) return;
  // llama-server adds a GPU projector's memory, and from b9305 a draft's, to --fit's target before it plans
  // (llamacpp_fit_margin). Ollama's builds (b9452 and later) do so on top of Ollama's own target, which already
  // holds the projector + 1 GiB: the projector's weights are kept free twice.
  const std::uint64_t projector_in_target = llamacpp_projector_in_target(inputs.value().projector_bytes, e.vision);
  const bool draft_in_target = e.draft && e.engine == Engine::llamacpp && llamacpp_draft_in_fit(rr.options.llamacpp_build);
  inputs.value().margin_bytes = llamacpp_fit_margin(
      {projector.fit_target_bytes ? projector.fit_target_bytes : kLlamaFitMarginBytes,
       projector_in_target,
       draft_in_target ? e.draft : 0, rr.options.llamacpp_build});
  report.llamacpp_fit = plan_llamacpp_fit(inputs.value());
  report.llamacpp_fit->margin_holds_projector = projector.fit_target_bytes != 0 || projector_in_target != 0;
  report.llamacpp_fit->margin_holds_draft = draft_in_target;
  if (e.engine == Engine::llamacpp && rr.gpu->driver_visible_bytes) {
    const bool rocm = rr.gpu->vendor == gpu_vendor_name(GpuVendor::amd);
    report.estimate.notes.push_back(message("llamacpp.fit_driver_total",
                                            "llama.cpp's --fit plans against what is free of {total_bytes}, "
                                            "{cuda_total}.",
                                            {arg::gib("total_bytes", *rr.gpu->driver_visible_bytes, 2),
                                             arg::message("cuda_total", driver_total_clause(rocm))}));
  }
  // From b9305 (PR #23485; PR #23801's table has b9297 without it, b9305 with it) load_model adds the draft to fit's
  // target; that later builds keep the same room is assumed, so the note says so.
  if (draft_in_target)
    report.estimate.notes.push_back(message("llamacpp.fit_with_draft",
                                            "llama.cpp's --fit keeps {draft_bytes} free for the draft beside the model, "
                                            "as llama.cpp PR #23485 (b9305) added; later builds are assumed to keep the "
                                            "same room.",
                                            {arg::bytes("draft_bytes", e.draft)}));
  // Before b9305 llama-server makes the draft's context after the target's load_model, where fit has already placed it.
  if (e.draft && e.engine == Engine::llamacpp && !draft_in_target)
    report.estimate.notes.push_back(message("llamacpp.fit_without_draft",
                                            "llama.cpp's --fit plans the model without the draft; the draft's "
                                            "{draft_bytes} comes on top.",
                                            {arg::bytes("draft_bytes", e.draft)}));
}

// A vision model's images: how many a request carries and their size ("1024x768", or "1024" for a square).
std::optional<Error> use_images(const ModelSpec& model, const Request& r, InferenceOptions& o) {
  if ((r.images || r.image_size) && !model.vision_params)
    return make_error(r.images ? "images" : "image_size",
                      message("images.no_vision", "this model has no vision tower to read images"));
  // vLLM without its vision tower takes no images (every modality's limit 0).
  if (r.language_model_only && r.images)
    return make_error("images", message("images.language_model_only",
                                        "vLLM --language-model-only reads no images: give 0 images or leave it off"));
  o.images = r.images;
  if (!r.image_size) return std::nullopt;
  const auto& parsed = r.image_size;
  o.image_width = parsed->first;
  o.image_height = parsed->second;
  return std::nullopt;
}

// "gpus": how many of the request's GPU the person has. vLLM and SGLang serve them tensor parallel where the heads
// divide, else as pipeline stages; llama.cpp (--split-mode layer) and transformers (device_map="auto") put whole layers on
// each, in equal shares: identical cards report the same free memory, which llama.cpp's default split follows.
// llama.cpp's CUDA backend holds its devices in arrays of GGML_CUDA_MAX_DEVICES (16, ggml-cuda.h).
std::optional<Error> llamacpp_device_limit(std::uint64_t devices) {
  constexpr std::uint64_t kMaxCudaDevices = 16;
  if (devices <= kMaxCudaDevices) return std::nullopt;
  return make_error("gpus", message("gpus.at_most_16", "llama.cpp uses at most 16 GPUs (GGML_CUDA_MAX_DEVICES); got {n}",
                                    {arg::count("n", devices)}));
}

std::optional<Error> use_gpu_count(const ModelSpec& spec, const Request& r, InferenceOptions& o,
                                   std::vector<Message>& notes) {
  const std::uint64_t n = r.gpu_count;
  if (n <= 1) return std::nullopt;
  if (o.engine == Engine::ollama)
    return make_error("gpus", message("gpus.ollama_several", "Ollama across several GPUs is not modelled; llama.cpp's "
                                                             "layer split is (engine llamacpp)"));
  if (o.engine == Engine::mlx)
    return make_error("gpus", message("mlx.one_gpu", "MLX is modelled on one Mac's GPU; several (mlx.launch across Macs) "
                                                     "are not modelled: give gpus 1"));
  if (o.engine == Engine::llamacpp)
    if (auto error = llamacpp_device_limit(n)) return *error;
  if (!kv_pool_engine(o.engine)) {  // whole layers on each GPU
    o.device_split.assign(n, 1.0);
    if (o.engine == Engine::llamacpp && r.gpu_layers && *r.gpu_layers <= spec.num_layers()) {
      notes.push_back(message("llamacpp.split_gpus_ngl",
                              "llama.cpp splits the {gpu_layers} layers -ngl offloads across the {n} GPUs (--split-mode "
                              "layer), each with its KV cache; the other layers and the output layer stay in system "
                              "RAM, and every GPU keeps a compute buffer.",
                              {arg::digits("gpu_layers", *r.gpu_layers), arg::digits("n", n)}));
      return std::nullopt;
    }
    notes.push_back(o.engine == Engine::llamacpp
                        ? message("llamacpp.split_gpus",
                                  "llama.cpp splits the layers across the {n} GPUs (--split-mode layer); each layer's "
                                  "KV cache sits with it, the output layer on the last GPU, and every GPU keeps a "
                                  "compute buffer.",
                                  {arg::digits("n", n)})
                        : message("transformers.split_gpus",
                                  "transformers places whole layers on the {n} GPUs in order (device_map=\"auto\"); "
                                  "each layer's KV cache sits with it, the logits on the last GPU.",
                                  {arg::digits("n", n)}));
    return std::nullopt;
  }
  if (r.tp * r.pp > 1) {
    if (r.tp * r.pp == n) return std::nullopt;
    return make_error("gpus", message("gpus.tp_pp_mismatch",
                                      "is {n}, but tp × pp is {product}; give tp and pp that multiply to the GPUs, or "
                                      "leave them to gpus",
                                      {arg::digits("n", n), arg::digits("product", r.tp * r.pp)}));
  }
  const std::string engine(engine_title(o.engine));
  const bool sglang = o.engine == Engine::sglang;
  o.tensor_parallel = n;
  const auto tp_problem = check_parallel(spec, o);
  if (!tp_problem) {
    notes.push_back(message("parallel.tensor", "{engine} serves the {n} GPUs as tensor parallel ({flag} {n}).",
                            {arg::text("engine", engine), arg::digits("n", n),
                             arg::text("flag", sglang ? "--tp" : "--tensor-parallel-size")}));
    return std::nullopt;
  }
  o.tensor_parallel = 1;
  o.pipeline_parallel = n;
  // Why tensor parallel cannot split the model, in the words of the tp check (parallel.tp_heads or tp_kv_heads).
  const bool by_heads = tp_problem->message.id == "parallel.tp_heads";
  const MessageArg heads = arg_named(tp_problem->message, by_heads ? "heads" : "kv_heads");
  const MessageArg e = arg::text("engine", engine), gpus = arg::digits("n", n);
  if (!check_parallel(spec, o)) {
    const MessageArg flag = arg::text("flag", sglang ? "--pp-size" : "--pipeline-parallel-size");
    notes.push_back(by_heads ? message("parallel.pipeline_heads",
                                       "{engine} serves the {n} GPUs as pipeline parallel ({flag} {n}): tp must divide "
                                       "the attention heads ({heads}); {n} does not.",
                                       {e, gpus, flag, heads})
                             : message("parallel.pipeline_kv_heads",
                                       "{engine} serves the {n} GPUs as pipeline parallel ({flag} {n}): tp must divide "
                                       "the KV heads ({kv_heads}) or be a multiple of them; {n} is neither.",
                                       {e, gpus, flag, heads}));
    return std::nullopt;
  }
  if (by_heads)
    return make_error("gpus", message("parallel.impossible_heads",
                                      "{engine} cannot use {n} GPUs for this model: tp must divide the attention heads "
                                      "({heads}); {n} does not, and pipeline parallel needs a layer per GPU",
                                      {e, gpus, heads}));
  return make_error("gpus", message("parallel.impossible_kv_heads",
                                    "{engine} cannot use {n} GPUs for this model: tp must divide the KV heads "
                                    "({kv_heads}) or be a multiple of them; {n} is neither, and pipeline parallel "
                                    "needs a layer per GPU",
                                    {e, gpus, heads}));
}

// "gpus" as GPU names: different cards together, as llama.cpp splits layers across them by default, each card's
// share its free memory at start (what the driver reports less the CUDA context and cuBLAS workspace), in MiB.
std::optional<Error> use_devices(const Catalog& catalog, const Request& r, ResolvedRequest& out) {
  if (r.devices.empty()) return std::nullopt;
  if (out.options.engine != Engine::llamacpp)
    return make_error("gpus", message("gpus.mixed_llamacpp_only",
                                      "different cards together are modelled for llama.cpp's layer split (engine "
                                      "llamacpp); for this engine give the number of one card with gpu"));
  if (!r.gpu.empty())
    return make_error("gpu", message("gpus.cards_or_gpu", "give the cards in gpus or one card in gpu, not both"));
  if (r.devices.size() < 2)
    return make_error("gpus", message("gpus.two_or_more", "list two or more cards, or give the number of one with gpu"));
  if (auto error = llamacpp_device_limit(r.devices.size())) return *error;
  for (const std::string& name : r.devices) {
    auto found = resolve_gpu(catalog.gpus, name, "gpus");
    if (!found) return found.error();
    if (!found.value().note.empty()) out.name_notes.push_back(found.value().note);
    const Gpu* gpu = found.value().gpu;
    if (gpu->one_per_machine())
      return make_error("gpus", one_per_machine_message(*gpu));
    const std::uint64_t total = gpu->driver_total_bytes(), used = kCudaContextBytes + kCublasWorkspaceBytes;
    out.devices.push_back(gpu);
    // Each card's free memory, less what other programs hold on it.
    const std::uint64_t free = free_beside(total > used ? total - used : 0, r.memory_in_use.value_or(0));
    out.options.device_split.push_back(static_cast<double>(free / kMiB));
  }
  out.name_notes.push_back(message("llamacpp.split_cards",
                                   "llama.cpp splits the layers across the cards by their free memory (--split-mode "
                                   "layer); each layer's KV cache sits with it, the output layer on the last card. "
                                   "Speed and cost for different cards together are not estimated."));
  return std::nullopt;
}

// Each card of a device list judged by its own share; the fullest one (least free) stands for all in per_gpu.
void judge_devices(Report& report, const ResolvedRequest& rr) {
  InferenceEstimate& e = report.estimate;
  report.gpus.clear();
  std::size_t fullest = 0;
  for (std::size_t i = 0; i < rr.devices.size() && i < e.devices.size(); ++i) {
    const Gpu& gpu = *rr.devices[i];
    GpuFit f;
    f.gpu = &gpu;
    const std::uint64_t usable = usable_for(gpu, e.in_use);
    f.fit = classify_fit(e.devices[i].total, usable, rr.fit_headroom);
    f.free_bytes = signed_difference(usable, e.devices[i].total);
    report.gpus.push_back(f);
    if (f.free_bytes < report.gpus[fullest].free_bytes) fullest = i;
  }
  const bool all_fit = std::all_of(report.gpus.begin(), report.gpus.end(), [](const GpuFit& f) { return f.fit == Fit::fits; });
  for (GpuFit& f : report.gpus) f.gpus_needed = all_fit ? report.gpus.size() : 0;
  const DeviceShare& d = e.devices[fullest];
  e.per_gpu = {e.per_gpu.gpus, d.weights, d.kv_cache, d.state_cache, d.activations, d.overhead, d.allocator_reserve,
               e.draft, d.total + e.draft};
}

// The other vLLM or SGLang servers as they would be on this row's card (others_on_card, where the per-card sizing
// is): the row judged again by bytes beside them, and `o` given them. False where they cannot all load there: the
// row does not fit, short by at least what they leave of the card.
bool with_others_on_card(GpuFit& row, InferenceOptions& o, const ResolvedRequest& rr, InferenceEstimate& gpu_less,
                         OthersByCard& sized) {
  const auto& on = others_on_card(rr, *row.gpu, sized);
  if (!on) return true;
  const std::uint64_t usable = usable_for(*row.gpu, on->in_use_bytes);
  if (!on->refusal.empty()) {
    row.fit = Fit::does_not_fit;
    row.free_bytes = signed_difference(usable, gpu_less.total);
    row.gpus_needed = 0;
    return false;
  }
  o.memory_in_use = on->in_use_bytes;
  o.other_models = on->models;
  gpu_less.in_use = on->in_use_bytes;
  const Gpu* card = row.gpu;
  row = check_fit(gpu_less, std::vector<Gpu>{*card}, rr.fit_headroom).front();
  row.gpu = card;  // check_fit pointed into the temporary vector
  return true;
}

// vLLM and SGLang with no GPU chosen: each card is judged as it would be chosen, by the KV pool the engine sizes on
// it (estimate_fit's pool rule), not by bytes against a headroom, so no row says "fits" where choosing that card
// says the engine would not start. The count a split needs stays the GPU-less estimate's.
void judge_pools(Report& report, const ResolvedRequest& rr, OthersByCard* others_sized) {
  const Engine engine = report.estimate.engine;
  if (!kv_pool_engine(engine)) return;
  InferenceEstimate gpu_less = rr.other_scenarios.empty() ? InferenceEstimate{} : report.estimate;
  OthersByCard own_sizing;
  OthersByCard& others = others_sized ? *others_sized : own_sizing;
  for (GpuFit& row : report.gpus) {
    InferenceOptions o = rr.options;
    o.explain = false;  // only its fit is read
    size_for_gpu(o, *row.gpu);
    if (!with_others_on_card(row, o, rr, gpu_less, others)) continue;
    // A card the whole estimate does not fit by bytes cannot hold the engine's budget and one sequence either.
    if (row.fit == Fit::does_not_fit) continue;
    auto sized = estimate_inference(report.model, o);
    if (!sized) {  // the engine refuses this card (an FP8 format before Ampere, ...): no fit, no split
      row.fit = Fit::does_not_fit;
      row.gpus_needed = 0;
      continue;
    }
    const std::vector<GpuFit> own = check_fit(sized.value(), std::vector<Gpu>{*row.gpu}, rr.fit_headroom);
    row.fit = own.front().fit;
    row.free_bytes = own.front().free_bytes;
    if (row.fit == Fit::fits) row.gpus_needed = 1;
  }
}

// llama.cpp's --fit (Ollama from 0.30 too) runs the model with part of it in system RAM: whole layers, read from RAM
// each step as with -ngl, and the routed experts of some layers, which the CPU reads and computes there; the output
// layer stays in RAM once anything moves. The speed is that of this placement. Ollama's own estimator (before 0.30)
// splits whole layers, whose speed is estimated already.
void speed_for_fit_placement(Report& report, const ResolvedRequest& rr, const Request& r) {
  if (!report.serving || !report.serving->speed || !report.llamacpp_fit || report.estimate.ollama) return;
  if (report.verdict.kind != VerdictKind::runs_split || !rr.gpu || !report.estimate.llamacpp) return;
  const LlamaCppFitPlan& plan = *report.llamacpp_fit;
  if (plan.step != LlamaFitStep::layers && plan.step != LlamaFitStep::experts) return;
  InferenceEstimate placed = report.estimate;
  placed.llamacpp->gpu_layers = plan.gpu_layers;
  ServingInputs serving = r.serving;
  serving.cpu_expert_layers = plan.cpu_expert_layers;
  serving.output_on_cpu = !plan.output_on_gpu;
  report.serving = estimate_serving(report.model, placed, *rr.gpu, serving, true);
}

// Speed and cost on the request's GPU, as the verdict says it runs: on the GPU (fits or tight: no "if it did"), as the
// engine places it with part in system RAM, not at all (an engine that refuses to start has no speed), or, where it
// does not fit, the speed it would have if it did, said so.
void add_serving(Report& report, const ResolvedRequest& rr, const Request& r) {
  if (!rr.gpu) return;
  const VerdictKind kind = report.verdict.kind;
  const bool runs = kind == VerdictKind::fits || kind == VerdictKind::tight || kind == VerdictKind::runs_split;
  report.serving = estimate_serving(report.model, report.estimate, *rr.gpu, r.serving, runs);
  if (kind == VerdictKind::refuses) {
    ServingEstimate& s = *report.serving;
    s.speed.reset();
    s.cost.usd_per_million_tokens.reset();
    if (s.cost.energy) s.cost.energy->usd_per_million_tokens.reset();
    s.speed_unavailable = message("speed.refuses", "{engine} would not start with these settings, so it has no speed",
                                  {arg::text("engine", engine_title(report.estimate.engine))});
    return;
  }
  speed_for_fit_placement(report, rr, r);
}

// The headline, and what each device of a split leaves free on its card: its own in a list of cards, else the GPU
// the headline speaks of.
void add_verdict(Report& report, const ResolvedRequest& rr) {
  using About = VerdictScene::About;
  VerdictScene scene;
  scene.rows = report.gpus;
  scene.about = rr.gpu ? About::chosen : !rr.devices.empty() ? About::cards : About::catalog;
  scene.owned = report.estimate.per_gpu.gpus;
  scene.estimate = &report.estimate;
  scene.plan = report.llamacpp_fit ? &*report.llamacpp_fit : nullptr;
  scene.context_from_plan = report.context_source == "engine_fit";
  report.verdict = judge_verdict(scene);
  report.device_free_bytes.clear();
  report.per_gpu_free_bytes.reset();
  const InferenceEstimate& e = report.estimate;
  const Gpu* on = report.verdict.gpu;
  // A card the engine runs with part of the model in system RAM keeps free what that placement leaves on it, not
  // the card less the whole model: --fit's GPU share beside the CUDA context it measured against, or Ollama's
  // memory.required.partial.
  if (report.verdict.kind == VerdictKind::runs_split && on) {
    const auto& plan = report.llamacpp_fit;
    std::optional<std::uint64_t> on_card;
    if (plan && (plan->step == LlamaFitStep::experts || plan->step == LlamaFitStep::layers))
      on_card = placed_on_card(*plan, e);
    else if (e.ollama && e.ollama->planned)
      on_card = e.ollama->required_partial_bytes;
    if (on_card)
      for (GpuFit& f : report.gpus)
        if (f.gpu == on) f.free_bytes = signed_difference(usable_for(*on, e.in_use), *on_card);
  }
  if (e.per_gpu.gpus <= 1 || !on) return;
  // vLLM's and SGLang's cards keep what their preallocation leaves, each the same.
  const auto preallocated = preallocated_free_bytes(e);
  report.per_gpu_free_bytes = preallocated && report.verdict.kind != VerdictKind::refuses
                                  ? *preallocated
                                  : signed_difference(usable_for(*on, e.in_use), e.per_gpu.total);
  for (std::size_t i = 0; i < e.devices.size(); ++i) {
    const Gpu* card = i < rr.devices.size() ? rr.devices[i] : on;
    report.device_free_bytes.push_back(signed_difference(usable_for(*card, e.in_use), e.devices[i].total));
  }
}

// "Needs N × GPU" counts what the table's rule (everything but the overhead divides evenly) cannot see: whole layers
// per GPU, the output layer on one of them, heads that must divide for tensor parallelism, the headroom on the
// busiest card. So the headline's count is the fewest GPUs whose own estimate fits by this same verdict, split as the
// remedies split it (vLLM and SGLang tensor parallel, the others by layer), and the remedies' "more GPUs" says the
// same number: up to their 8 both walk from 2. Beyond, the table's count is where the walk starts (an even split
// needs no more than whole layers do); whole layers fit better the more GPUs share them, so a layer split doubles
// and then halves its way to the fewest (no more GPUs than layers: one without a layer holds nothing of the model),
// while tensor parallelism, whose heads may divide one count and not the next, walks on a few more.
std::uint64_t gpus_that_fit(const Catalog& catalog, const Request& r, const Gpu& gpu, Engine engine,
                            std::uint64_t even_split, std::uint64_t layers) {
  const bool serving = kv_pool_engine(engine);
  const auto fits = [&](std::uint64_t n) {
    Request v = r;
    v.gpu = gpu.id;
    v.wired_limit_mb = 0;
    (serving ? v.tp : v.gpu_count) = n;
    auto resolved = resolve_request(catalog, v);
    if (!resolved) return false;
    resolved.value().options.explain = false;  // only its verdict is read
    auto after = evaluate(catalog, v, resolved.value());
    return after && after.value().verdict.kind == VerdictKind::fits;
  };
  constexpr std::uint64_t kRemediesMost = 8, kMost = 1024, kServingSteps = 16;
  for (std::uint64_t n = 2; n <= kRemediesMost; ++n)
    if (fits(n)) return n;
  const std::uint64_t first = std::max(kRemediesMost + 1, even_split);
  if (serving) {
    for (std::uint64_t n = first; n < first + kServingSteps && n <= kMost; ++n)
      if (fits(n)) return n;
    return 0;
  }
  const std::uint64_t most = std::min(kMost, layers);
  if (first > most) return 0;
  std::uint64_t low = first - 1, high = first;  // low does not fit; find a high that does
  while (!fits(high)) {
    if (high >= most) return 0;
    low = high;
    high = std::min(high * 2, most);
  }
  while (high - low > 1) {
    const std::uint64_t mid = low + (high - low) / 2;
    (fits(mid) ? high : low) = mid;
  }
  return high;
}

// The GPU the headline would name as needing several has its count checked by gpus_that_fit; the headline then
// names the fewest GPUs again (a checked count may lose to another card's), until it names a card already checked.
// Each card is checked once at most, so the rounds end. A bare parameter count has no layers to place: its count is
// the even split.
void check_gpus_needed(Report& report, const Catalog& catalog, const Request& r, const ResolvedRequest& rr) {
  add_verdict(report, rr);
  if (report.estimate.per_gpu.gpus != 1 || !rr.devices.empty() || r.tp * r.pp != 1 || report.model.is_bare()) return;
  std::vector<const Gpu*> checked;
  for (std::size_t round = 0; round <= report.gpus.size(); ++round) {
    if (round > 0) add_verdict(report, rr);
    if (report.verdict.kind != VerdictKind::does_not_fit || !report.verdict.gpu) return;
    const Gpu* gpu = report.verdict.gpu;
    if (std::find(checked.begin(), checked.end(), gpu) != checked.end()) return;
    checked.push_back(gpu);
    auto row = std::find_if(report.gpus.begin(), report.gpus.end(), [&](const GpuFit& f) { return f.gpu == gpu; });
    if (row == report.gpus.end() || row->gpus_needed == 0 || row->one_per_machine) return;
    row->gpus_needed =
        gpus_that_fit(catalog, r, *gpu, report.estimate.engine, row->gpus_needed, report.model.num_layers());
  }
  add_verdict(report, rr);
}

// The kind the other report's verdict gives the GPU this one speaks of: its own verdict where it names that GPU, else
// that GPU's row by the GPU table's rule (with no GPU chosen the headline may name another class of cards).
std::optional<VerdictKind> kind_on(const Report& other, const Gpu* gpu) {
  if (other.verdict.gpu == gpu) return other.verdict.kind;
  for (const GpuFit& f : other.gpus)
    if (f.gpu == gpu)
      return f.fit == Fit::fits ? VerdictKind::fits : f.fit == Fit::tight ? VerdictKind::tight : VerdictKind::does_not_fit;
  return std::nullopt;
}

// The format a checkpoint's name says, as a weight format: NVIDIA's "-FP4" exports are NVFP4.
std::string named_weight_format(const CheckpointName& named) {
  return named.format == "FP8" ? "fp8" : "nvfp4";
}

// Where an input the verdict depends on is not known, how sure the verdict is: each value the input may take is
// estimated (the spread it causes), and the verdict at the assumed value is weighed against theirs.
// - A config.json whose checkpoint's name says FP8 or NVFP4 but whose hf_quant_config.json was not read: counted as
//   bf16, against the name's format; under vLLM also with the fp8 KV cache its kv_cache_dtype "auto" would take from
//   that file, as ModelOpt's FP8 exports set kv_cache_quant_algo.
// - A bare parameter count: no architecture, so no KV cache or activations are counted and their size has no bound
//   but the context; where the weights alone fit, whether the rest fits is unknown. Where they do not, it is certain.
void judge_certainty(Report& report, const Catalog& catalog, const Request& r, const ResolvedRequest& rr) {
  Verdict& v = report.verdict;
  if (!v.gpu) return;
  const bool quant_file = std::find(rr.missing_files.begin(), rr.missing_files.end(), "hf_quant_config.json") !=
                          rr.missing_files.end();
  std::vector<VerdictKind> kinds;
  std::vector<Message> reasons;
  if (quant_file) {
    const CheckpointName named = checkpoint_name_of(r);
    const std::string format = named_weight_format(named);
    const bool kv_follows = rr.options.engine == Engine::vllm && !rr.options.kv_dtype;
    for (const bool fp8_kv : kv_follows ? std::vector<bool>{false, true} : std::vector<bool>{false}) {
      Request other = r;
      other.weights = format;
      if (fp8_kv) other.kv_dtype = KvDType::fp8;
      if (!rr.gpu) other.gpu.clear(), other.wired_limit_mb = 0;  // judged on every GPU, as this report is
      auto resolved = resolve_request(catalog, other);
      if (!resolved) continue;
      resolved.value().options.explain = false;  // only its verdict is read
      auto after = evaluate(catalog, other, resolved.value());
      if (!after) continue;
      const auto kind = kind_on(after.value(), v.gpu);
      if (!kind) continue;
      kinds.push_back(*kind);
      if (*kind == v.kind) continue;
      const std::vector<MessageArg> args = {arg::text("format", named.format),
                                            arg::message("verdict", after.value().verdict.message)};
      reasons.push_back(fp8_kv ? message("certainty.quant_file_kv",
                                         "The checkpoint's hf_quant_config.json was not read, so the weights are counted as bf16. "
                                         "As {format}, as the checkpoint's name says, with the fp8 KV cache vLLM takes from that "
                                         "file where it quantizes the cache: {verdict}.",
                                         args)
                               : message("certainty.quant_file",
                                         "The checkpoint's hf_quant_config.json was not read, so the weights are counted as bf16. "
                                         "As {format}, as the checkpoint's name says: {verdict}.",
                                         args));
    }
  }
  Certainty c = certainty_of(v.kind, kinds);
  // Split across GPU and system RAM the card has nothing left over: what the rest needs moves more to RAM.
  if (report.model.is_bare() && (v.kind == VerdictKind::fits || v.kind == VerdictKind::tight)) {
    c = Certainty::unknown;
    const auto row = std::find_if(report.gpus.begin(), report.gpus.end(), [&](const GpuFit& f) { return f.gpu == v.gpu; });
    reasons.insert(reasons.begin(),
                   message("certainty.bare",
                           "A bare parameter count has no architecture: the KV cache and the activations are not "
                           "counted, and they grow with the context; {free_bytes} is left for them.",
                           {arg::gb("free_bytes", row != report.gpus.end() && row->free_bytes > 0
                                                      ? static_cast<std::uint64_t>(row->free_bytes) : 0, 1)}));
  }
  v.certainty = c;
  if (c == Certainty::certain) return;
  v.reasons = std::move(reasons);
  v.lead = c == Certainty::unknown ? message("headline.lead_unknown", "Unknown: ")
                                   : message("headline.lead_likely", "Likely: ");
}

// The other models start first. Ollama's one server runs them all: it keeps them loaded with OLLAMA_KEEP_ALIVE=-1
// (envconfig.KeepAlive: 5 minutes by default, negative for ever) and, past 3 per GPU, OLLAMA_MAX_LOADED_MODELS
// (server/sched.go defaultModelsPerGPU). Every other engine starts a process per model, each with its own line.
void add_other_commands(Report& report, const InferenceOptions& o) {
  if (o.other_models.empty() || report.command.empty()) return;
  if (report.estimate.engine == Engine::ollama) {
    const std::size_t loaded = o.other_models.size() + 1;
    report.command = "OLLAMA_KEEP_ALIVE=-1 " +
                     (loaded > 3 ? "OLLAMA_MAX_LOADED_MODELS=" + std::to_string(loaded) + " " : std::string()) +
                     report.command;
    return;
  }
  std::string before;
  for (const OtherModel& m : o.other_models)
    if (!m.command.empty()) before += m.command + "\n";
  if (before.empty()) return;
  report.command = before + report.command;
  report.estimate.notes.push_back(message("other_models.command_order",
                                          "The command lines start the other models first, each in a shell of its "
                                          "own and each once the one before has loaded; the last line starts this "
                                          "model."));
  // Each server binds its port (vllm serve, sglang.launch_server, llama-server, mlx_lm.server --port): the other
  // models' lines take the ports after the default, which this model's line keeps.
  const MessageArg first = arg::text("first_port", std::to_string(default_server_port(report.estimate.engine) + 1));
  if (report.estimate.engine == Engine::mlx)
    report.estimate.notes.push_back(message("other_models.ports_mlx",
                                            "mlx_lm.server keeps each other model loaded, each on a port of its own "
                                            "from {first_port} up; mlx_lm.generate runs this model.",
                                            {first}));
  else
    report.estimate.notes.push_back(message("other_models.ports",
                                            "Each other model's server listens on a port of its own from "
                                            "{first_port} up; this model's keeps the default port {port}.",
                                            {first, arg::text("port", std::to_string(default_server_port(
                                                                          report.estimate.engine)))}));
}

void add_command(Report& report, const Request& r, const ResolvedRequest& rr) {
  const EngineCommand command = command_for(report, r, rr, report.llamacpp_fit ? &*report.llamacpp_fit : nullptr);
  report.command = command.text;
  report.command_note = command.note;
  add_other_commands(report, rr.options);
  // The Mac's wired limit is set before the engine starts: macOS forgets it at every restart.
  if (rr.gpu && rr.gpu->shared == SharedMemory::macos && r.wired_limit_mb && !report.command.empty())
    report.command = "sudo sysctl iogpu.wired_limit_mb=" + std::to_string(r.wired_limit_mb) + "\n" + report.command;
}

// SGLang's own inputs: its version picks the default mem_fraction_static rule; the fraction and the token cap are
// SGLang's flags.
std::optional<Error> resolve_sglang_options(const Request& r, InferenceOptions& o) {
  if (o.engine != Engine::sglang) return std::nullopt;
  if (!r.engine_version.empty()) {
    const auto rule = parse_sglang_version(r.engine_version);
    if (!rule)
      return make_error("engine_version", message("error.evaluate.sglang_version",
                                                  "\"{version}\" is not an SGLang version; give one as 0.4.6 or 0.5.3",
                                                  {arg::text("version", r.engine_version)}));
    o.sglang_rule = *rule;
    o.sglang_version = without_v(r.engine_version);
  }
  o.mem_fraction_static = r.mem_fraction_static;
  o.max_total_tokens = r.max_total_tokens;
  return std::nullopt;
}

// MLX's own inputs, and the GPUs it runs on: Metal only (MLX's CUDA backend is not modelled). Its version picks
// which positions the prompt's last call computes logits for.
std::optional<Error> resolve_mlx_options(const Request& r, InferenceOptions& o, const Gpu* gpu) {
  if (o.engine != Engine::mlx) return std::nullopt;
  if (gpu && !gpu->is_apple())
    return make_error("gpu", message("mlx.apple_only", "MLX is modelled on Apple GPUs only (Metal); {gpu} is not one: "
                                                       "choose an Apple GPU, or another engine for this card",
                                     {arg::text("gpu", gpu->name)}));
  if (!r.engine_version.empty()) {
    const auto rule = parse_mlx_version(r.engine_version);
    if (!rule)
      return make_error("engine_version",
                        message("mlx.version_unmodelled",
                                "\"{version}\" is not an mlx-lm version that is modelled; allowed: 0.22.2 or newer, as "
                                "0.26.4 or 0.31.3 (before 0.22.2 mlx-lm prefilled the prompt in 512-token chunks with a "
                                "mask of its own, another rule)",
                                {arg::text("version", r.engine_version)}));
    o.mlx_rule = *rule;
    o.mlx_version = without_v(r.engine_version);
  }
  o.max_kv_size = r.max_kv_size;
  return std::nullopt;
}

std::optional<Error> refuse_apple_gpu(Engine engine, const Gpu* gpu) {
  if (!gpu || !gpu->is_apple() || runs_on_apple(engine)) return std::nullopt;
  return make_error("engine", message("engine.no_apple_backend",
                                      "{engine} has no Apple GPU backend and does not run on the {gpu}; on a Mac "
                                      "choose one of {engines} with --engine",
                                      {arg::text("engine", engine_title(engine)), arg::text("gpu", gpu->name),
                                       arg::text("engines", engine_titles_on(true))}));
}

// The verdict rows: under MLX only the Apple GPUs it runs on, under vLLM and SGLang none of them.
std::vector<GpuFit> fit_rows(const InferenceEstimate& e, const std::vector<Gpu>& gpus, double headroom) {
  std::vector<GpuFit> rows = check_fit(e, gpus, headroom);
  std::erase_if(rows, [&](const GpuFit& row) { return !runs_on_gpu(e.engine, row.gpu->is_apple()); });
  return rows;
}

// Ollama's own inputs: its version picks the default num_ctx and rule; OLLAMA_GPU_OVERHEAD.
std::optional<Error> resolve_ollama_options(const Request& r, InferenceOptions& o) {
  if (o.engine != Engine::ollama) return std::nullopt;
  if (!r.engine_version.empty()) {
    const auto rule = parse_ollama_version(r.engine_version);
    if (!rule)
      return make_error("engine_version",
                        message("ollama.version_unmodelled",
                                "\"{version}\" is not an Ollama version that is modelled; allowed: up to 0.11.10 (for "
                                "example 0.5.7) or 0.30 and later (for example 0.32.15). From 0.11.11 to 0.29 Ollama placed the layers "
                                "from the runner's test allocations, which is not modelled.",
                                {arg::text("version", r.engine_version)}));
    o.ollama_rule = *rule;
  }
  o.ollama_gpu_overhead = r.ollama_gpu_overhead.value_or(0);
  return std::nullopt;
}

// The engine the request names; Ollama where the model is named in Ollama's form and no engine is given.
std::optional<Error> resolve_engine(const Request& r, const OllamaTag* ollama_tag, ResolvedRequest& out) {
  InferenceOptions& o = out.options;
  o.engine = r.engine;
  // A name in Ollama's form is the model Ollama runs under it: that engine unless the request names one.
  const std::string ollama_name = ollama_tag ? ollama_tag->tag : r.ollama_tag;
  if (!ollama_name.empty() && !r.engine_given) {
    o.engine = Engine::ollama;
    out.model.notes.push_back(message("ollama.name_engine",
                                      "Ollama's {name}: the engine is Ollama, as that name runs there; choose another "
                                      "engine to compare.",
                                      {arg::text("name", ollama_name)}));
  }
  if (auto error = refuse_unread_inputs(r, o.engine)) return *error;
  return std::nullopt;
}

// The weight format the estimate counts, with the notes on where it came from.
std::optional<Error> resolve_weights(const Request& r, const OllamaTag* ollama_tag, ResolvedRequest& out) {
  InferenceOptions& o = out.options;
  const auto tag_weights = ollama_tag_weights(r, ollama_tag, out.model, o.engine);
  // Weights: the request's format; else the checkpoint's quantization_config; else bf16 (torch_dtype is not
  // trusted: it says how the file is stored). A model file's header gives exact bytes.
  std::string weights = !r.weights.empty() ? r.weights : !out.model.quantization.empty() ? out.model.quantization
                                                                                       : std::string("bf16");
  if (tag_weights) {
    weights = tag_weights->format;
    out.model.notes.push_back(tag_weights->note);
  }
  // llama.cpp runs a GGUF file, not the checkpoint: the file type that model is published in.
  const auto gguf = ggml_engine(o.engine) && r.weights.empty() && !tag_weights ? gguf_mix_for_checkpoint(weights)
                                                                                : std::nullopt;
  if (gguf) {
    weights = std::string(gguf_mix_name(*gguf));
    out.model.notes.push_back(message("llamacpp.gguf_for_checkpoint",
                                      "{engine} runs GGUF files: the {checkpoint} checkpoint is estimated as the GGUF "
                                      "file type it is published in, {gguf}; choose another with --weights",
                                      {arg::text("engine", engine_title(o.engine)),
                                       arg::text("checkpoint", out.model.quantization), arg::text("gguf", weights)}));
  }
  if (auto missing = quant_config_missing(r, out.model)) {
    out.model.notes.push_back(std::move(*missing));
    out.missing_files.push_back("hf_quant_config.json");
  }
  auto format = parse_weight_format(weights);
  if (!format) return format.error();
  // transformers loads a GGUF file by dequantizing every tensor to fp32 before PyTorch sees it (transformers docs,
  // "GGUF and interaction with Transformers"): the file's format is not what sits on the GPU.
  const bool dequantized = o.engine == Engine::transformers && format.value().scheme == WeightScheme::gguf;
  if (dequantized) {
    out.model.notes.push_back(message("transformers.gguf_fp32",
                                      "transformers dequantizes the {format} GGUF file to fp32 when it loads it, so the "
                                      "weights are counted at 4 bytes per parameter; llama.cpp and Ollama run the file "
                                      "as it is.",
                                      {arg::text("format", weights)}));
    format = parse_weight_format("fp32");
    if (!format) return format.error();
  }
  o.weight_format = format.value();
  o.weights = format.value().dtype;
  if (r.imported && r.weights.empty() && !dequantized) o.weight_format.reset(), o.exact_weights = r.imported->weights;
  return std::nullopt;
}

// The KV cache's precision: the request's, else the checkpoint's where the engine reads it.
void resolve_kv_dtype(const Request& r, ResolvedRequest& out) {
  InferenceOptions& o = out.options;
  if (r.kv_dtype) {
    o.kv_dtype = r.kv_dtype;
  } else if (const std::string& own = out.model.checkpoint_kv_dtype; !own.empty()) {
    // vLLM's kv_cache_dtype "auto" takes a ModelOpt checkpoint's KV-cache quantization (vllm/utils/torch_utils.py,
    // resolve_kv_cache_dtype_string); transformers and llama.cpp do not read it.
    if (o.engine == Engine::vllm) {
      o.kv_dtype = parse_kv_dtype(own);
      out.model.notes.push_back(message("vllm.checkpoint_kv",
                                        "KV cache in {kv}: vLLM's kv_cache_dtype \"auto\" takes the checkpoint's "
                                        "KV-cache quantization.",
                                        {arg::text("kv", own)}));
    } else {
      out.model.notes.push_back(message("engine.checkpoint_kv_ignored",
                                        "The checkpoint is calibrated for an {kv} KV cache, which {engine} does not "
                                        "read: the KV cache is counted at the engine's default precision (kv_dtype "
                                        "{kv} to match).",
                                        {arg::text("kv", own), arg::text("engine", engine_title(o.engine))}));
    }
  }
}

void resolve_attention(const Request& r, ResolvedRequest& out) {
  InferenceOptions& o = out.options;
  if (r.attention) {
    o.attention = *r.attention;
  } else if (o.engine == Engine::ollama) {
    // OLLAMA_FLASH_ATTENTION is off unless set, but from 0.11.8 gpt-oss asks for flash attention itself.
    o.attention = ollama_flash_attention_default(out.model.architecture, r.engine_version) ? Attention::sdpa
                                                                                           : Attention::eager;
  }
}

void resolve_context(const Request& r, bool from_preset, ResolvedRequest& out) {
  InferenceOptions& o = out.options;
  // Default context: the engine's own, never silently the model's maximum for transformers/llama.cpp.
  const auto& m = out.model;
  if (r.context) {
    o.context_tokens = *r.context;
    out.context_source = "request";
  } else if (o.engine == Engine::llamacpp) {
    o.context_tokens = kLlamaDefaultCtx;
    out.context_source = "engine_default";
  } else if (o.engine == Engine::ollama) {
    // The version's default num_ctx (a version not modelled is refused below).
    o.context_tokens =
        ollama_default_num_ctx(parse_ollama_version(r.engine_version).value_or(OllamaRule::llama_server_fit_target));
    out.context_source = "engine_default";
  } else if (kv_pool_engine(o.engine) && m.max_context) {
    o.context_tokens = m.max_context;  // vLLM's max_model_len, SGLang's context_length: the config's maximum
    out.context_source = "model_max";
  } else if (from_preset && m.default_context) {
    o.context_tokens = m.default_context;
    out.context_source = "preset";
  } else {
    o.context_tokens = kLlamaDefaultCtx;
    out.context_source = "engine_default";
  }
}

std::optional<Error> resolve_vllm_version(const Request& r, InferenceOptions& o) {
  if (!r.engine_version.empty() && o.engine == Engine::vllm) {
    const auto rule = parse_vllm_version(r.engine_version);
    if (!rule && vllm_version_after_modelled(r.engine_version))
      return make_error("engine_version", message("error.evaluate.vllm_version_newer",
                                                  "vLLM {version} is newer than the newest version modelled, {newest}: "
                                                  "0.28 and 0.29 changed how vLLM sets its defaults and memory aside, "
                                                  "which is not modelled yet; allowed: 0.9.2 to {newest}",
                                                  {arg::text("version", r.engine_version),
                                                   arg::text("newest", kVllmVersionModelled)}));
    if (!rule)
      return make_error("engine_version", message("error.evaluate.vllm_version",
                                                  "\"{version}\" is not a vLLM version that is modelled; allowed: 0.9.2 "
                                                  "to {newest}, as 0.11 or 0.21.1 (before 0.9.2 vLLM sized its pool by "
                                                  "another rule)",
                                                  {arg::text("version", r.engine_version),
                                                   arg::text("newest", kVllmVersionModelled)}));
    o.vllm_rule = *rule;
    o.vllm_version = without_v(r.engine_version);
  }
  return std::nullopt;
}

// The headroom a fit keeps, and the request's one GPU with its notes and the options sized for it.
std::optional<Error> resolve_gpu_of_request(const Catalog& catalog, const Request& r, ResolvedRequest& out) {
  InferenceOptions& o = out.options;
  out.fit_headroom = fit_headroom(o.engine, r.headroom, o.gpu_util);
  if (r.wired_limit_mb && r.gpu.empty()) return wired_limit_without_gpu();
  if (!r.gpu.empty()) {
    auto found = resolve_gpu(catalog.gpus, r.gpu, "gpu");
    if (!found) return found.error();
    out.gpu = found.value().gpu;
    if (!found.value().note.empty()) out.name_notes.push_back(found.value().note);
    if (auto wired = wired_limit_applied(*out.gpu, r.wired_limit_mb); !wired) return wired.error();
    if (const Message custom = custom_gpu_note(*out.gpu); !custom.empty()) out.name_notes.push_back(custom);
    if (const Message wired = wired_limit_note(*out.gpu); !wired.empty()) out.name_notes.push_back(wired);
    size_for_gpu(o, *out.gpu);
  }
  return std::nullopt;
}

// llama.cpp's build picks what --fit keeps room for (llamacpp_fit_margin); under Ollama the build it bundles.
std::optional<Error> resolve_llamacpp_version(const Request& r, InferenceOptions& o) {
  if (o.engine == Engine::ollama && ollama_runs_llama_server(o)) {
    if (const auto build = ollama_llamacpp_build(version_named(r.engine_version, kOllamaVersionModelled)))
      o.llamacpp_build = *build;
    return std::nullopt;
  }
  if (o.engine != Engine::llamacpp || r.engine_version.empty()) return std::nullopt;
  const auto build = parse_llamacpp_build(r.engine_version);
  if (!build || !llamacpp_build_modelled(*build))
    return make_error("engine_version",
                      message("llamacpp.version_unmodelled",
                              "\"{version}\" is not a llama.cpp build that is modelled; allowed: {oldest} to {newest}, "
                              "as b9297 or b10488. Older builds planned --fit without room for the vision projector "
                              "(before PR #21489, April 2026) or had no --fit (before PR #16653, December 2025), "
                              "which is not modelled.",
                              {arg::text("version", r.engine_version),
                               arg::text("oldest", llamacpp_version_name(kLlamaCppOldestBuild)),
                               arg::text("newest", kLlamaCppVersionModelled)}));
  o.llamacpp_build = *build;
  return std::nullopt;
}

}  // namespace

Result<Catalog> with_wired_limit(const Catalog& catalog, std::string_view gpu, std::uint64_t limit_mib) {
  if (limit_mib == 0) return catalog;
  if (gpu.empty()) return wired_limit_without_gpu();
  auto found = resolve_gpu(catalog.gpus, gpu, "gpu");
  if (!found) return found.error();
  auto bytes = wired_limit_for(*found.value().gpu, limit_mib, "wired_limit_mb");
  if (!bytes) return bytes.error();
  Catalog out = catalog;
  out.gpus[static_cast<std::size_t>(found.value().gpu - catalog.gpus.data())].wired_limit_bytes = bytes.value();
  return out;
}

Result<Catalog> with_custom_gpu(const Catalog& catalog, std::string& gpu, const CustomGpuInputs& in) {
  if (!in.any() && !is_custom_gpu_name(gpu)) return catalog;
  auto card = custom_gpu(catalog.gpus, gpu, in);
  if (!card) return card.error();
  Catalog out = catalog;
  gpu = card.value().id;
  // A card like a catalog one is shown beside it; described twice, the request's own wins.
  std::erase_if(out.gpus, [&](const Gpu& g) { return lookup_key(g.id) == lookup_key(gpu); });
  out.gpus.push_back(std::move(card).value());
  return out;
}

Result<Catalog> load_catalog(std::string_view models_json, std::string_view gpus_json,
                             std::span<const std::string_view> model_configs) {
  auto models = parse_model_presets(models_json, model_configs);
  if (!models) return models.error();
  auto gpus = parse_gpu_catalog(gpus_json);
  if (!gpus) return gpus.error();
  return Catalog{std::move(models).value(), std::move(gpus).value()};
}

Result<ResolvedRequest> resolve_request(const Catalog& catalog, const Request& r) {
  ResolvedRequest out;
  bool from_preset = false;
  const OllamaTag* ollama_tag = nullptr;
  auto spec = model_of_request(catalog, r, out.published_params, from_preset, out.params_source, out.name_notes,
                               out.hf_repo, ollama_tag);
  if (!spec) return spec.error();
  out.model = std::move(spec).value();
  // The file's own weights (no other format asked for): llama-server can fetch that very file by its label.
  if (r.imported && !r.model_repo.empty() && !r.model_quant.empty() && r.weights.empty()) {
    out.hub_gguf_repo = r.model_repo;
    out.hub_gguf_quant = r.model_quant;
  }
  InferenceOptions& o = out.options;

  if (auto error = resolve_engine(r, ollama_tag, out)) return *error;
  if (auto error = resolve_weights(r, ollama_tag, out)) return *error;
  resolve_kv_dtype(r, out);
  resolve_attention(r, out);
  if (r.kv_allocation) o.kv_allocation = *r.kv_allocation;
  resolve_context(r, from_preset, out);
  o.batch = r.batch;
  auto draft = draft_of_request(catalog, r);
  if (!draft) return draft.error();
  o.draft = std::move(draft).value();
  o.avg_tokens = r.avg_tokens;
  o.expandable_segments = r.expandable_segments;
  o.memory_in_use = r.memory_in_use.value_or(0);
  if (auto error = resolve_sglang_options(r, o)) return *error;
  if (auto error = resolve_ollama_options(r, o)) return *error;
  if (auto error = resolve_llamacpp_version(r, o)) return *error;
  if (auto error = resolve_vllm_version(r, o)) return *error;
  // vLLM 0.21 raised the default with the CUDA graphs moving into the budget.
  o.gpu_util = r.gpu_util.value_or(vllm_default_gpu_util(o.vllm_rule));
  o.enforce_eager = r.enforce_eager;
  o.language_model_only = r.language_model_only;
  o.max_num_batched_tokens = r.max_num_batched_tokens;
  o.max_num_seqs = r.max_num_seqs;
  o.gpu_layers = r.gpu_layers;
  o.mmproj_offload = r.mmproj;
  if (auto error = use_images(out.model, r, o)) return *error;
  o.tensor_parallel = r.tp;
  o.pipeline_parallel = r.pp;
  if (auto error = use_gpu_count(out.model, r, o, out.name_notes)) return *error;
  if (auto error = use_devices(catalog, r, out)) return *error;
  if (auto ok = validate_serving_inputs(r.serving); !ok) return ok.error();
  if (auto error = resolve_gpu_of_request(catalog, r, out)) return *error;
  // A Mac's GPU is its unified memory: one per machine.
  if (out.gpu && out.gpu->one_per_machine() && r.gpu_count > 1)
    return make_error("gpus", one_per_machine_message(*out.gpu));
  if (auto error = resolve_mlx_options(r, o, out.gpu)) return *error;
  if (auto error = refuse_apple_gpu(o.engine, out.gpu)) return *error;
  resolve_ollama_server(r, out);
  if (auto error = resolve_other_models(catalog, r, out)) return *error;
  return out;
}

Explanation params_explanation(const ModelSpec& model, const ParamCounts& counts, std::uint64_t published,
                               const Message& source) {
  const std::vector<MessageArg> args = {arg::count("total", counts.total), arg::count("active", counts.active),
                                        arg::count("published", published),
                                        arg::count("active_cards", counts.active_excl_embedding()),
                                        arg::count("embedding", counts.embedding)};
  const bool moe = counts.active != counts.total;
  // The page shows the active count as the cards do; the sum here names the embedding it leaves out.
  const bool untied = counts.active_excl_embedding() != counts.active;
  Message values =
      moe && untied
          ? (published == 0 ? message("explain.params.values_active_cards",
                                      "{total} parameters, {active_cards} active per token as model cards count them: "
                                      "{active} with the input embedding ({embedding}), which a token looks up and "
                                      "does not multiply",
                                      args)
                            : message("explain.params.values_active_cards_published",
                                      "{total} parameters (published: {published}), {active_cards} active per token "
                                      "as model cards count them: {active} with the input embedding ({embedding}), "
                                      "which a token looks up and does not multiply",
                                      args))
      : published == 0 ? (moe ? message("explain.params.values_active", "{total} parameters, {active} active per token", args)
                              : message("explain.params.values", "{total} parameters", args))
      : moe ? message("explain.params.values_active_published",
                      "{total} parameters, {active} active per token (published: {published})", args)
            : message("explain.params.values_published", "{total} parameters (published: {published})", args);
  return {"params",
          model.is_bare() ? message("explain.params.formula_bare", "as given")
                          : message("explain.params.formula",
                                    "Σ of the architecture's tensors: token embeddings + layers × (attention + MLP or "
                                    "experts + norms) + final norm + lm_head unless tied (+ a vision tower when present)"),
          std::move(values), source};
}

void size_for_gpu(InferenceOptions& o, const Gpu& gpu) {
  o.gpu_memory_bytes = gpu.driver_total_bytes();
  o.gpu_total_nominal = !gpu.driver_visible_bytes;
  o.gpu_is_a100 = lookup_key(gpu.name).find("a100") != std::string::npos;
  o.gpu_compute_capability = compute_capability(gpu);
  o.gpu_has_nvlink = gpu.nvlink_gb_s.has_value();
  o.gpu_is_apple = gpu.is_apple();
  o.gpu_is_rocm = gpu.vendor == gpu_vendor_name(GpuVendor::amd);
}

ResolvedRequest without_gpu(ResolvedRequest scenario) {
  scenario.gpu = nullptr;
  scenario.options.gpu_memory_bytes = 0;
  scenario.options.gpu_total_nominal = false;
  scenario.options.gpu_is_a100 = false;
  scenario.options.gpu_compute_capability = 0;
  scenario.options.gpu_has_nvlink = false;
  scenario.options.gpu_is_apple = false;
  scenario.options.gpu_is_cuda = false;
  scenario.options.gpu_is_rocm = false;
  return scenario;
}

Result<Report> evaluate(const Catalog& catalog, const Request& r) {
  auto resolved = resolve_request(catalog, r);
  if (!resolved) return resolved.error();
  return evaluate(catalog, r, resolved.value());
}

Result<Report> on_every_gpu(const Catalog& catalog, const Request& r, const ResolvedRequest& rr, const Report& base,
                            OthersByCard* others_sized) {
  if (!rr.gpu) return base;
  // Only vLLM and SGLang size their KV pool by the GPU (InferenceOptions::gpu_memory_bytes): any other estimate is
  // the same without one.
  if (kv_pool_engine(base.estimate.engine) || base.estimate.engine == Engine::ollama)
    return evaluate(catalog, r, without_gpu(rr), others_sized);
  Report report = base;
  report.serving.reset();
  report.llamacpp_fit.reset();  // planned on the request's GPU only
  add_command(report, r, without_gpu(rr));
  report.gpus = fit_rows(report.estimate, catalog.gpus, rr.fit_headroom);
  check_gpus_needed(report, catalog, r, without_gpu(rr));
  if (rr.options.explain) judge_certainty(report, catalog, r, without_gpu(rr));
  return report;
}

// Ollama's scheduler unloads the other models to load this one where the rule of other_models.ollama_evicts
// (memory/in_use.cpp) holds: the model then loads alone, so the answer is for it alone (nothing else in use but what
// the person gave), its headline saying the others are unloaded first.
std::optional<Result<Report>> ollama_unloading_others(const Catalog& catalog, const Request& r,
                                                      const ResolvedRequest& rr, const InferenceEstimate& e) {
  if (e.engine != Engine::ollama || rr.options.other_models.empty()) return std::nullopt;
  const auto evicts = std::find_if(e.notes.begin(), e.notes.end(),
                                   [](const Message& m) { return m.id == "other_models.ollama_evicts"; });
  if (evicts == e.notes.end()) return std::nullopt;
  ResolvedRequest alone = rr;
  alone.options.memory_in_use -= others_bytes(rr.options.other_models);
  alone.options.other_models.clear();
  auto report = evaluate(catalog, r, alone);
  if (!report) return report;
  Report& w = report.value();
  w.estimate.notes.insert(w.estimate.notes.begin(), *evicts);
  std::string names;
  for (const OtherModel& m : rr.options.other_models) names += (names.empty() ? "" : ", ") + m.name;
  w.verdict.message = message("headline.ollama_unloads_others", "Ollama unloads {names} first, then: {verdict}",
                              {arg::text("names", names), arg::message("verdict", w.verdict.message)});
  return report;
}

namespace {

// The newest release whose rules an engine takes for every later one (SGLang's, Ollama's and mlx-lm's newest rule
// has no end), with the project whose version engine_version is; none where a later version is refused (vLLM,
// llama.cpp) or not read (transformers).
struct NewestRelease {
  std::string_view project, version;
};
NewestRelease newest_release_followed(Engine engine) noexcept {
  switch (engine) {
    case Engine::sglang: return {"SGLang", kSglangVersionPrefillGraphs};
    case Engine::ollama: return {"Ollama", kOllamaVersionModelled};
    case Engine::mlx: return {"mlx-lm", kMlxVersionModelled};
    case Engine::vllm:          // refuses a version after the newest modelled (vllm_version_after_modelled)
    case Engine::llamacpp:      // refuses a build outside the ones modelled
    case Engine::transformers:  // has no version input
      return {};
  }
  return {};
}

// The notes on how the request was read: the context assumed, the names as read, what Ollama's version tried, a
// release after the newest one read.
void add_request_notes(Report& report, const Request& r, const ResolvedRequest& rr) {
  if (const NewestRelease newest = newest_release_followed(report.estimate.engine);
      !newest.version.empty() && version_after(r.engine_version, newest.version))
    report.estimate.notes.push_back(message("engine.version_after_newest",
                                            "{engine} {version} is estimated by the rules of {newest}, the newest "
                                            "release read for this estimate; what changed after it is not counted.",
                                            {arg::text("engine", newest.project),
                                             arg::text("version", without_v(r.engine_version)),
                                             arg::text("newest", newest.version)}));
  if (report.context_source == "engine_default" && !report.model.is_bare())
    report.estimate.notes.push_back(
        report.model.max_context
            ? message("context.engine_default_max",
                      "No context given: {context} tokens assumed (the engine's default; the model allows {max}).",
                      {arg::digits("context", rr.options.context_tokens), arg::digits("max", report.model.max_context)})
            : message("context.engine_default", "No context given: {context} tokens assumed (the engine's default).",
                      {arg::digits("context", rr.options.context_tokens)}));
  for (const auto& note : rr.name_notes) report.estimate.notes.push_back(note);
  if (report.estimate.engine == Engine::ollama && ollama_parallel_automatic(r.engine_version))
    report.estimate.notes.push_back(message("ollama.parallel_automatic",
                                            "Ollama before 0.10 tried 4 parallel sequences (2 from 0.6.7) before 1 "
                                            "when OLLAMA_NUM_PARALLEL was unset, which is not modelled: the figures "
                                            "are for the batch given (OLLAMA_NUM_PARALLEL)."));
  if (report.context_source == "engine_fit")
    report.estimate.notes.push_back(message("context.llamacpp_fit",
                                            "No context given: llama-server without -c runs {context} tokens of "
                                            "context on this GPU, as its --fit plan chose; the figures are for it.",
                                            {arg::digits("context", rr.options.context_tokens)}));
  if (report.context_source == "model_max") {
    const std::uint64_t context = rr.options.context_tokens;
    report.estimate.notes.push_back(
        report.estimate.engine == Engine::sglang
            ? message("context.sglang_model_max",
                      "No context given: SGLang sizes context_length to the model's maximum ({context} tokens); a "
                      "shorter context lowers it.",
                      {arg::digits("context", context)})
            : message("context.vllm_model_max",
                      "No context given: vLLM sizes max_model_len to the model's maximum ({context} tokens); a "
                      "shorter context lowers it.",
                      {arg::digits("context", context)}));
  }
}

}  // namespace

Result<Report> evaluate(const Catalog& catalog, const Request& r, const ResolvedRequest& rr,
                        OthersByCard* others_sized) {
  Report report;
  report.model = rr.model;
  report.published_params = rr.published_params;
  report.context_source = rr.context_source;
  report.headroom = rr.fit_headroom;
  report.missing_files = rr.missing_files;

  auto estimate = estimate_inference(report.model, rr.options);
  if (!estimate) return estimate.error();
  report.estimate = std::move(estimate).value();
  if (auto unloaded = ollama_unloading_others(catalog, r, rr, report.estimate)) return std::move(*unloaded);
  if (rr.options.explain)
    report.estimate.explanations.push_back(
        params_explanation(report.model, report.estimate.params, rr.published_params, rr.params_source));
  add_request_notes(report, r, rr);

  const double fit_headroom = rr.fit_headroom;
  if (rr.gpu) {
    report.gpus = check_fit(report.estimate, std::vector<Gpu>{*rr.gpu}, fit_headroom);
    // check_fit pointed into the temporary vector: point at the catalog's entry instead.
    report.gpus.front().gpu = rr.gpu;
  } else if (!rr.devices.empty()) {
    judge_devices(report, rr);
  } else {
    report.gpus = fit_rows(report.estimate, catalog.gpus, fit_headroom);
    judge_pools(report, rr, others_sized);
  }
  add_llamacpp_fit(report, rr);
  // llama-server without -c runs the context its --fit plan chose on this GPU: the figures are for that context. The
  // plan starts from the model's maximum whatever the context asked, so the second pass plans the same.
  if (report.llamacpp_fit && rr.context_source == "engine_default" &&
      report.llamacpp_fit->context != rr.options.context_tokens) {
    ResolvedRequest planned = rr;
    planned.options.context_tokens = report.llamacpp_fit->context;
    planned.context_source = "engine_fit";
    return evaluate(catalog, r, planned, others_sized);
  }
  add_ollama_server_notes(report, rr);
  if (report.estimate.engine == Engine::ollama)
    report.ollama_version = version_named(r.engine_version, kOllamaVersionModelled);
  check_gpus_needed(report, catalog, r, rr);
  // A pass that reads only the fit (explanations off: the GPU count's walk, the ranking) leaves it out.
  if (rr.options.explain) judge_certainty(report, catalog, r, rr);
  add_serving(report, rr, r);
  add_command(report, r, rr);
  explain_placement(report.estimate.explanations, report.estimate, report.verdict,
                    report.llamacpp_fit ? &*report.llamacpp_fit : nullptr);
  return report;
}


}  // namespace vramfit
