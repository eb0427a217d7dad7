#include "questions/command_line.hpp"

#include <cctype>       // std::isalnum, std::toupper
#include <optional>     // std::optional
#include <string>       // std::to_string
#include <string_view>  // std::string_view
#include <vector>  // std::vector

#include "memory/engines/ollama_server.hpp"
#include "util/number_text.hpp"
#include "util/text.hpp"

namespace vramfit {

namespace {

using detail::Text;

// A file name people would give the model's GGUF: its name and file type, no spaces ("Qwen3-30B-A3B-F16.gguf").
std::string gguf_file_name(const ModelSpec& model, const std::string& format) {
  std::string out;
  for (char c : model.name) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '.' || c == '_' || c == '-') out += c;
    else if (!out.empty() && out.back() != '-') out += '-';
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  out += '-';
  for (char c : format) out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out + ".gguf";
}

// A weight format asked for that differs from the checkpoint's: vLLM and SGLang quantize a 16-bit checkpoint to FP8
// online and cast to fp16; any other format has to be a checkpoint published in it.
// Returns the format a checkpoint has to be published in, or "" when the flags say it.
std::string weight_flags(Text& t, const Report& report, const Request& r) {
  const std::string& format = report.estimate.weights_format;
  if (r.weights.empty() || format == report.model.quantization || format == "bf16") return "";
  if (format == "fp8") t << " --quantization fp8";
  else if (format == "fp16") t << " --dtype float16";
  else return format;
  return "";
}

// vLLM's and SGLang's note: the checkpoint to serve for a format no flag gives, and MODEL to replace.
Message server_note(const char* engine, const std::string& format, bool model_named) {
  const std::vector<MessageArg> args{arg::text("engine", engine), arg::text("format", format)};
  if (format.empty())
    return model_named ? Message() : message("command.replace_model", "Replace MODEL with the model's Hugging Face "
                                                                      "repository or local folder.");
  if (model_named)
    return message("command.checkpoint_format",
                   "{engine} reads the quantization from the checkpoint: serve one published in {format}. ", args);
  return message("command.checkpoint_format_replace",
                 "{engine} reads the quantization from the checkpoint: serve one published in {format}. Replace MODEL "
                 "with the model's Hugging Face repository or local folder.",
                 args);
}

// vLLM's flags (https://docs.vllm.ai/en/latest/configuration/engine_args.html), each against its default:
// max_model_len the config's maximum, gpu_memory_utilization 0.92 (0.9 up to 0.20), kv_cache_dtype auto (the model's dtype or the
// checkpoint's KV quantization), quantization read from the checkpoint.
EngineCommand vllm_command(const Report& report, const Request& r, const ResolvedRequest& s, const std::string& repo) {
  const InferenceOptions& o = s.options;
  EngineCommand out;
  Text t;
  t << "vllm serve " << (repo.empty() ? std::string("MODEL") : repo);
  if (o.tensor_parallel > 1) t << " --tensor-parallel-size " << o.tensor_parallel;
  if (o.pipeline_parallel > 1) t << " --pipeline-parallel-size " << o.pipeline_parallel;
  if (report.context_source == "request" && o.context_tokens != report.model.max_context)
    t << " --max-model-len " << o.context_tokens;
  // With memory in use that stops vLLM at this fraction, the command asks for the most that starts, where it does.
  const auto& start = report.estimate.vllm_start;
  const double util = start && !start->starts && start->util_that_fits > 0 && start->fits_holds_sequence
                          ? start->util_that_fits
                          : o.gpu_util;
  if (util != vllm_default_gpu_util(o.vllm_rule)) t << " --gpu-memory-utilization " << detail::general_text(util, 6);
  if (o.enforce_eager) t << " --enforce-eager";
  if (r.kv_dtype && report.estimate.kv_dtype == KvDType::fp8 && report.model.checkpoint_kv_dtype.empty())
    t << " --kv-cache-dtype fp8";
  if (o.max_num_seqs) t << " --max-num-seqs " << *o.max_num_seqs;
  if (o.max_num_batched_tokens) t << " --max-num-batched-tokens " << *o.max_num_batched_tokens;
  if (o.language_model_only) t << " --language-model-only";
  // --limit-mm-per-prompt (vllm/config/multimodal.py): the images a request carries, and a size given as the
  // profile's dummy image (ImageDummyOptions count, width, height).
  if (const auto& v = report.estimate.vllm; v && v->encoder_profile && o.images) {
    if (o.image_width && v->encoder_profile->modelled && !report.estimate.vision->size_from_engine)
      t << " --limit-mm-per-prompt '{\"image\": {\"count\": " << o.images << ", \"width\": " << o.image_width
        << ", \"height\": " << o.image_height << "}}'";
    else
      t << " --limit-mm-per-prompt '{\"image\": " << o.images << "}'";
  }
  // --speculative-config (vllm/config/speculative.py): method "mtp", "eagle", "eagle3" or "draft_model".
  if (const auto& d = report.estimate.draft_detail) {
    const std::string method = d->kind == DraftKind::mtp      ? "mtp"
                               : d->kind == DraftKind::eagle  ? "eagle"
                               : d->kind == DraftKind::eagle3 ? "eagle3"
                                                              : "draft_model";
    t << " --speculative-config '{\"method\": \"" << method << "\"";
    // A preset's repository; a config.json read from a path has none: DRAFT stands for it.
    if (d->kind != DraftKind::mtp)
      t << ", \"model\": \"" << (o.draft && !o.draft->repo.empty() ? o.draft->repo : std::string("DRAFT")) << "\"";
    t << ", \"num_speculative_tokens\": " << d->tokens << "}'";
  }
  out.note = server_note("vLLM", weight_flags(t, report, r), !repo.empty());
  // The flags are measured against this version's defaults (gpu_memory_utilization, the graphs' place).
  t << "  # vLLM " << report.estimate.vllm->engine_version;
  out.text = t.str();
  return out;
}

// SGLang's flags (https://docs.sglang.ai/advanced_features/server_arguments.html), each against its default:
// context_length the config's maximum, mem_fraction_static chosen by SGLang for the GPU, kv_cache_dtype auto,
// quantization read from the checkpoint.
EngineCommand sglang_command(const Report& report, const Request& r, const ResolvedRequest& s, const std::string& repo) {
  const InferenceOptions& o = s.options;
  EngineCommand out;
  Text t;
  t << "python -m sglang.launch_server --model-path " << (repo.empty() ? std::string("MODEL") : repo);
  if (o.tensor_parallel > 1) t << " --tp " << o.tensor_parallel;
  if (o.pipeline_parallel > 1) t << " --pp-size " << o.pipeline_parallel;
  if (report.context_source == "request" && o.context_tokens != report.model.max_context)
    t << " --context-length " << o.context_tokens;
  if (o.mem_fraction_static) t << " --mem-fraction-static " << detail::general_text(*o.mem_fraction_static, 6);
  if (o.max_total_tokens) t << " --max-total-tokens " << *o.max_total_tokens;
  if (r.kv_dtype && report.estimate.kv_dtype == KvDType::fp8) t << " --kv-cache-dtype fp8_e4m3";
  // --speculative-algorithm EAGLE, EAGLE3, NEXTN (a model's MTP layers) or STANDALONE (a draft model).
  if (const auto& d = report.estimate.draft_detail) {
    t << " --speculative-algorithm "
      << (d->kind == DraftKind::mtp ? "NEXTN" : d->kind == DraftKind::eagle ? "EAGLE"
          : d->kind == DraftKind::eagle3 ? "EAGLE3" : "STANDALONE");
    if (d->kind != DraftKind::mtp)
      t << " --speculative-draft-model-path "
        << (o.draft && !o.draft->repo.empty() ? o.draft->repo : std::string("DRAFT"));
    t << " --speculative-num-steps " << d->tokens;
  }
  out.note = server_note("SGLang", weight_flags(t, report, r), !repo.empty());
  // The version the flags are measured against: as asked (its mem_fraction_static rule is the one the estimate used),
  // else the one modelled.
  t << "  # SGLang " << report.estimate.sglang->engine_version;
  out.text = t.str();
  return out;
}

// The cache type as llama.cpp's --cache-type-k/v spells it.
std::string_view ggml_cache_type(KvDType kv) {
  return kv_dtype_info(kv).name == "fp32" ? std::string_view("f32") : kv_dtype_info(kv).name;
}

// A revision or a path as a URL's path writes it: RFC 3986 unreserved characters kept, '/' kept in a path.
std::string url_path(std::string_view text, bool path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || (path && c == '/')) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

// llama-server fetches a Hub file from the repository's default branch only: common/hf-cache.cpp (ggml-org/llama.cpp
// at 0216dab3) get_repo_commit asks /api/models/<repo>/refs and keeps `if (_name == "main")`, else the first branch;
// get_repo_files lists that commit's tree, for -hf and -hfd alike. A revision other than "main" is another file.
bool other_revision(std::string_view revision) { return !revision.empty() && revision != "main"; }

// How llama-server gets the model's GGUF read from a Hub repository. -hf REPO:QUANT takes the first file its tag
// matches (llama_tag_pick); -hff names the file read where that would be another: "-hff, --hf-file FILE | Hugging
// Face model file. If specified, it will override the quant in --hf-repo" (tools/server/README.md at 00dc8057), and
// common/download.cpp takes the file whose path equals it (string_iequal). Another revision's file is fetched by its
// URL: "-mu, --model-url MODEL_URL | model download url" (same README), a split's further parts with it
// (common_download_get_all_parts in arg.cpp's build_url_tasks); -mu fetches no projector, so one the estimate counts
// keeps -hf, and the note says which file it fetches.
void hub_model_flags(Text& t, const Request& r, const ResolvedRequest& s, bool projector) {
  if (other_revision(r.model_revision) && !projector && !r.model_file.empty()) {
    t << "llama-server -mu https://huggingface.co/" << s.hub_gguf_repo << "/resolve/" << url_path(r.model_revision, false)
      << '/' << url_path(r.model_file, true);
    return;
  }
  t << "llama-server -hf " << s.hub_gguf_repo << ':' << s.hub_gguf_quant;
  if (!r.model_hf_file.empty()) t << " -hff " << r.model_hf_file;
  if (!projector) t << " --no-mmproj";
}

// The note of a llama-server command whose Hub files are not the ones read: the draft's first (-hfd names neither a
// revision nor a file: "--spec-draft-hf, -hfd, -hfrd, --hf-repo-draft <user>/<model>[:quant]" is its only Hub flag,
// tools/server/README.md at 00dc8057), then the model's kept on -hf.
std::optional<Message> llamacpp_hub_note(const Request& r, const InferenceOptions& o, bool drafting, bool hub_model,
                                         bool projector) {
  if (drafting && o.draft && !o.draft->repo.empty() && !o.draft->hub_quant.empty()) {
    const DraftOptions& d = *o.draft;
    if (other_revision(d.hub_revision))
      return message("command.llamacpp_draft_revision",
                     "llama-server fetches the draft's .gguf (-hfd) from the default branch of {repo}, not from revision "
                     "{revision} read here: fetch that file yourself and give its path to -md.",
                     {arg::text("repo", d.repo), arg::text("revision", d.hub_revision)});
    if (!d.hub_file.empty())
      return message("command.llamacpp_draft_file_named",
                     "llama-server's -hfd {repo}:{quant} fetches the first file labelled {quant}, not {file} read here: "
                     "fetch that file yourself and give its path to -md.",
                     {arg::text("repo", d.repo), arg::text("quant", d.hub_quant), arg::text("file", d.hub_file)});
  }
  if (hub_model && projector && other_revision(r.model_revision))
    return message("command.llamacpp_hub_revision",
                   "llama-server fetches the model's .gguf and its projector from the default branch of {repo}, not from "
                   "revision {revision} read here.",
                   {arg::text("repo", r.model_repo), arg::text("revision", r.model_revision)});
  return std::nullopt;
}

// llama-server's flags (https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md): -c 0 (the
// model's training context) and --fit on by default, -ngl all layers, -fa auto, -ctk/-ctv f16, -np 1.
EngineCommand llamacpp_command(const Report& report, const Request& r, const ResolvedRequest& s,
                               const LlamaCppFitPlan* fit) {
  const InferenceEstimate& e = report.estimate;
  const InferenceOptions& o = s.options;
  Text t;
  // A GGUF read from a Hub repository goes by the repository and its quantization, as the draft's -hfd does:
  // "-hf, -hfr, --hf-repo <user>/<model>[:quant]", whose "mmproj is also downloaded automatically if available. to
  // disable, add --no-mmproj" (ggml-org/llama.cpp tools/server/README.md at 25d5b0c5): the projector comes with it
  // when asked, and --no-mmproj keeps out one the estimate does not count (the lookup's note hub.mmproj names it).
  const bool hub_model = !s.hub_gguf_repo.empty();
  // The vision projector's own file, F16 as convert_hf_to_gguf.py --mmproj writes it by default.
  const bool projector = o.mmproj_offload && e.vision && !e.vision->apart;
  if (hub_model) hub_model_flags(t, r, s, projector);
  else t << "llama-server -m " << gguf_file_name(report.model, e.weights_format);
  if (projector && !hub_model) t << " --mmproj mmproj-" << gguf_file_name(report.model, "F16");
  const std::uint64_t cells = fit ? fit->context * o.batch : e.llamacpp ? e.llamacpp->n_ctx : e.context_tokens;
  if (cells != report.model.max_context || o.batch > 1) t << " -c " << cells;
  if (o.batch > 1) t << " -np " << o.batch;
  if (fit && fit->step != LlamaFitStep::none && fit->step != LlamaFitStep::context) t << " -ngl " << fit->gpu_layers;
  else if (!fit && o.gpu_layers) t << " -ngl " << *o.gpu_layers;
  if (fit && fit->n_cpu_moe) t << " --n-cpu-moe " << fit->n_cpu_moe;
  // The split the estimate assumed, said: llama.cpp's own default follows each GPU's free memory at start.
  for (std::size_t i = 0; i < o.device_split.size(); ++i)
    t << (i ? "," : " --tensor-split ") << detail::general_text(o.device_split[i], 6);
  const bool quantized_kv = e.kv_dtype == KvDType::q8_0 || e.kv_dtype == KvDType::q4_0;
  if (e.attention == Attention::eager) t << " -fa off";
  else if (quantized_kv) t << " -fa on";  // a quantized V cache needs flash attention
  if (e.kv_dtype != KvDType::fp16) {
    const std::string_view kv = ggml_cache_type(e.kv_dtype);
    t << " -ctk " << kv << " -ctv " << kv;
  }
  // The draft's tokens per step as every build modelled spells it: b9297 takes --spec-draft-n-max (the command line of
  // ggml-org/llama.cpp#23772), and by b10212 --draft-max is "the argument has been removed". -md alone loads the draft
  // without speculating: ggml-org/llama.cpp#23988 (2026-06-01) removed draft-simple's auto-enable ("users must now
  // explicitly enable it"), so --spec-type draft-simple (the name since #22964, 2026-05-12) switches it on; llama.cpp
  // drafts here with a separate model only (draft_refusal). A draft read from its .gguf file goes by that file's name.
  // One read from a Hub repository's .gguf goes by the repository and its quantization: llama-server's
  // "--spec-draft-hf, -hfd, -hfrd, --hf-repo-draft <user>/<model>[:quant]", "Same as --hf-repo, but for the draft
  // model" (tools/server/README.md, generated from common/arg.cpp); common/download.cpp's find_best_model takes the
  // first .gguf whose path matches QUANT followed by "." or "-", case-insensitive: the file read.
  const bool hub_draft = o.draft && !o.draft->repo.empty() && !o.draft->hub_quant.empty();
  if (const auto& d = e.draft_detail) {
    t << " --spec-type draft-simple";
    if (hub_draft) t << " -hfd " << o.draft->repo << ':' << o.draft->hub_quant;
    else
      t << " -md "
        << (o.draft && o.draft->name.ends_with(".gguf") ? o.draft->name
            : o.draft && !o.draft->spec.name.empty()    ? gguf_file_name(o.draft->spec, d->weights_format)
                                                        : std::string("DRAFT.gguf"));
    t << " --spec-draft-n-max " << d->tokens;
  }
  // The build whose defaults (--fit and its margin, -fa auto, -c 0) the flags are measured against.
  t << "  # llama.cpp " << llamacpp_version_name(e.llamacpp ? e.llamacpp->build : kLlamaCppBuildModelled);
  if (auto note = llamacpp_hub_note(r, o, e.draft_detail.has_value(), hub_model, projector))
    return {t.str(), std::move(*note)};
  if (e.draft_detail && !hub_draft)
    return {t.str(), hub_model
                         ? message("command.llamacpp_draft_file", "Replace the draft's .gguf name with its file's path.")
                         : message("command.llamacpp_draft", "Replace the .gguf names with your files' paths.")};
  if (hub_model)
    return {t.str(), message("command.llamacpp_hub", "llama-server fetches the model's .gguf from Hugging Face.")};
  return {t.str(), message("command.llamacpp", "Replace the .gguf name with your file's path.")};
}

// MLX's note: converting to a quantized format the checkpoint is not in, the prompt, and MODEL to replace.
Message mlx_note(const std::string& convert_to, const std::string& repo) {
  const std::vector<MessageArg> args{arg::text("format", convert_to),
                                     arg::text("model", repo.empty() ? std::string("MODEL") : repo)};
  if (convert_to.empty() && !repo.empty())
    return message("command.mlx", "The prompt is read from standard input; mlx_lm.server --model takes the same model.");
  if (convert_to.empty())
    return message("command.mlx_replace", "The prompt is read from standard input; mlx_lm.server --model takes the same "
                                          "model. Replace MODEL with the model's Hugging Face repository or local folder.");
  if (!repo.empty())
    return message("command.mlx_convert",
                   "MLX runs {format} from a checkpoint quantized to it: mlx_lm.convert --hf-path {model} -q, or an "
                   "mlx-community upload. The prompt is read from standard input; mlx_lm.server --model takes the "
                   "same model.",
                   args);
  return message("command.mlx_convert_replace",
                 "MLX runs {format} from a checkpoint quantized to it: mlx_lm.convert --hf-path {model} -q, or an "
                 "mlx-community upload. The prompt is read from standard input; mlx_lm.server --model takes the same "
                 "model. Replace MODEL with the model's Hugging Face repository or local folder.",
                 args);
}

// mlx_lm.generate's flags (mlx-lm generate.py): --max-kv-size none (every token kept), --kv-bits none (the model
// dtype), --kv-group-size 64; the prompt from standard input ("-"). The weights are the checkpoint's: a 16-bit one
// loads as it is, a quantized one has to be in MLX's format.
EngineCommand mlx_command(const Report& report, const ResolvedRequest& s, const std::string& repo) {
  const InferenceEstimate& e = report.estimate;
  EngineCommand out;
  Text t;
  t << "mlx_lm.generate --model " << (repo.empty() ? std::string("MODEL") : repo);
  if (s.options.max_kv_size) t << " --max-kv-size " << *s.options.max_kv_size;
  if (e.kv_dtype == KvDType::q8_0) t << " --kv-bits 8";
  if (e.kv_dtype == KvDType::q4_0) t << " --kv-bits 4";
  t << " --prompt -";
  t << "  # mlx-lm " << e.mlx->engine_version;
  out.text = t.str();
  const std::string& format = e.weights_format;
  out.note = mlx_note(format.rfind("mlx-", 0) == 0 && format != report.model.quantization ? format : "", repo);
  return out;
}

// How to run the model once the server has its environment, and what a session sets for it alone.
Message ollama_note(const InferenceOptions& o) {
  // Values inside a command stay as typed (text): no digit grouping in any language.
  const MessageArg context = arg::text("context", std::to_string(o.context_tokens));
  if (!o.gpu_layers)
    return message("command.ollama",
                   "The server reads these variables; then run the model with ollama run MODEL (its name in the "
                   "Ollama library, or hf.co/ and a GGUF repository). In a session, /set parameter num_ctx {context} "
                   "sets the context for that model alone.",
                   {context});
  return message("command.ollama_layers",
                 "The server reads these variables; then run the model with ollama run MODEL (its name in the Ollama "
                 "library, or hf.co/ and a GGUF repository). In a session, /set parameter num_ctx {context} sets the "
                 "context for that model alone, /set parameter num_gpu {layers} the layers on the GPU.",
                 {context, arg::text("layers", std::to_string(*o.gpu_layers))});
}

// Ollama's server reads its environment (envconfig): OLLAMA_CONTEXT_LENGTH the default num_ctx, OLLAMA_NUM_PARALLEL,
// OLLAMA_FLASH_ATTENTION, OLLAMA_KV_CACHE_TYPE (used only with flash attention), OLLAMA_GPU_OVERHEAD; a session
// sets num_ctx and num_gpu for one model with /set parameter.
EngineCommand ollama_command(const Report& report, const ResolvedRequest& s) {
  const InferenceEstimate& e = report.estimate;
  const InferenceOptions& o = s.options;
  Text t;
  if (report.context_source == "request") t << "OLLAMA_CONTEXT_LENGTH=" << o.context_tokens << " ";
  if (o.batch > 1) t << "OLLAMA_NUM_PARALLEL=" << o.batch << " ";
  if (e.attention == Attention::sdpa) t << "OLLAMA_FLASH_ATTENTION=1 ";
  if (e.ollama && e.ollama->kv_type != KvDType::fp16) t << "OLLAMA_KV_CACHE_TYPE=" << kv_dtype_info(e.ollama->kv_type).name << " ";
  if (o.ollama_gpu_overhead) t << "OLLAMA_GPU_OVERHEAD=" << o.ollama_gpu_overhead << " ";
  t << "ollama serve  # Ollama " << report.ollama_version;
  return {t.str(), ollama_note(o)};
}

// Ollama from 0.30 passes its environment to llama-server (llm/llama_server.go startLlamaServer): num_ctx
// (OLLAMA_CONTEXT_LENGTH) as -c, OLLAMA_NUM_PARALLEL as -np, OLLAMA_KV_CACHE_TYPE as --cache-type-k/v, and
// OLLAMA_FLASH_ATTENTION as --flash-attn on/off (auto when unset). The context is left out only where it is the
// default Ollama picks for the chosen GPU; without a GPU the 4096 assumed is pinned.
EngineCommand ollama_server_command(const Report& report, const Request& r, const ResolvedRequest& s) {
  const InferenceEstimate& e = report.estimate;
  const InferenceOptions& o = s.options;
  Text t;
  if (report.context_source != "engine_default" || !s.gpu) t << "OLLAMA_CONTEXT_LENGTH=" << o.context_tokens << " ";
  if (o.batch > 1) t << "OLLAMA_NUM_PARALLEL=" << o.batch << " ";
  if (r.attention) t << "OLLAMA_FLASH_ATTENTION=" << (e.attention == Attention::sdpa ? "1 " : "0 ");
  if (e.kv_dtype != KvDType::fp16) t << "OLLAMA_KV_CACHE_TYPE=" << ggml_cache_type(e.kv_dtype) << " ";
  if (o.ollama_gpu_overhead) t << "OLLAMA_GPU_OVERHEAD=" << o.ollama_gpu_overhead << " ";
  t << "ollama serve  # Ollama " << report.ollama_version;
  return {t.str(), ollama_note(o)};
}

}  // namespace

EngineCommand command_for(const Report& report, const Request& request, const ResolvedRequest& scenario,
                          const LlamaCppFitPlan* fit) {
  switch (report.estimate.engine) {
    case Engine::vllm: return vllm_command(report, request, scenario, scenario.hf_repo);
    case Engine::llamacpp: return llamacpp_command(report, request, scenario, fit);
    case Engine::sglang: return sglang_command(report, request, scenario, scenario.hf_repo);
    case Engine::mlx: return mlx_command(report, scenario, scenario.hf_repo);
    case Engine::ollama:
      return ollama_runs_llama_server(scenario.options) ? ollama_server_command(report, request, scenario)
                                                        : ollama_command(report, scenario);
    case Engine::transformers: break;
  }
  if (scenario.options.device_split.empty())
    return {"", message("command.transformers", "transformers is a library, not a server: there is no command to run; "
                                                "load the model with from_pretrained in your own script.")};
  return {"", message("command.transformers_gpus",
                      "transformers is a library, not a server: there is no command to run; load the model with "
                      "from_pretrained in your own script, with device_map=\"auto\" for the GPUs.")};
}

unsigned default_server_port(Engine engine) noexcept {
  switch (engine) {
    case Engine::vllm: return 8000;
    case Engine::sglang: return 30000;
    case Engine::llamacpp:
    case Engine::mlx: return 8080;
    case Engine::ollama:
    case Engine::transformers: break;
  }
  return 0;
}

std::string other_server_command(const std::string& command, Engine engine, unsigned nth) {
  const unsigned base = default_server_port(engine);
  if (!base || command.empty()) return command;
  const std::string port = " --port " + std::to_string(base + nth);
  if (engine == Engine::mlx) {
    // mlx_lm.server reads --model and --port; the prompt and the cache flags are mlx_lm.generate's.
    const std::string flag = "--model ";
    const auto at = command.find(flag);
    if (at == std::string::npos) return command;
    const auto start = at + flag.size(), end = command.find(' ', start);
    return "mlx_lm.server --model " +
           command.substr(start, end == std::string::npos ? std::string::npos : end - start) + port;
  }
  // Before the comment that names the version the flags are measured against.
  const auto comment = command.find("  # ");
  if (comment == std::string::npos) return command + port;
  return command.substr(0, comment) + port + command.substr(comment);
}

}  // namespace vramfit
