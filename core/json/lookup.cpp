#include "vramfit/lookup.hpp"

#include <algorithm>  // std::any_of
#include <cctype>     // std::isalnum
#include <optional>   // std::optional
#include <cstdio>     // std::snprintf

#include "formats/hub_repo.hpp"
#include "json/report_writer.hpp"  // error_to_json
#include "questions/evaluate.hpp"  // Catalog
#include "util/json_fields.hpp"    // FieldReader, parse_json
#include "util/json_writer.hpp"    // JsonWriter
#include "util/text.hpp"           // lower_ascii

namespace vramfit {

namespace {

using detail::FieldReader;
using detail::JsonWriter;

// Bounds on what a client reads: a config.json of today's largest models is under 100 KB, a GGUF header with a
// 256k-token vocabulary about 10 MB, a safetensors header of a 5 GB shard well under 1 MB.
constexpr std::uint64_t kTextLimit = 8ull << 20;
constexpr std::uint64_t kGgufFirstRead = 2ull << 20;
constexpr std::uint64_t kSafetensorsFirstRead = 256ull << 10;
constexpr std::uint64_t kHeaderLimit = 64ull << 20;
// The listing of a repository with thousands of files runs to a few MB; an Ollama manifest to a few KB.
constexpr std::uint64_t kListingLimit = 16ull << 20;
constexpr std::uint64_t kManifestLimit = 1ull << 20;
// More shards than this are not read one by one (DeepSeek-V3 ships 163): config.json and the Hub's count answer.
constexpr std::size_t kMostShards = 64;

// huggingface_hub quotes a revision or a path segment with urllib's quote(…, safe=""): all but unreserved.
std::string quoted(std::string_view s, bool keep_slash) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || (keep_slash && c == '/')) {
      out += static_cast<char>(c);
    } else {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", c);
      out += hex;
    }
  }
  return out;
}

std::string listing_path(const HubRef& ref, std::string_view revision) {
  const std::string rev(revision.empty() ? std::string_view(ref.revision) : revision);
  return "/api/models/" + ref.repo + (rev.empty() ? "" : "/revision/" + quoted(rev, false)) + "?blobs=true";
}

std::string resolve_path(const std::string& repo, const std::string& commit, const std::string& file) {
  return "/" + repo + "/resolve/" + quoted(commit, false) + "/" + quoted(file, true);
}

// A name with a repository's shape goes to the Hub unless a preset is that very repository (or its -Instruct
// twin of the same owner): a fine-tune or a re-upload may differ from the preset it resembles.
const ModelPreset* preset_for_repo(const Catalog& catalog, const HubRef& ref) {
  if (!ref.quant.empty() || !ref.file.empty() || !ref.revision.empty()) return nullptr;
  if (const ModelPreset* p = find_model(catalog.models, ref.repo)) return p;
  const std::string lower = lower_ascii(ref.repo);
  for (std::string_view suffix : {"-instruct", "-it", "-chat"}) {
    if (lower.size() > suffix.size() && lower.ends_with(suffix)) {
      const std::string base = ref.repo.substr(0, ref.repo.size() - suffix.size());
      for (const auto& p : catalog.models)
        if (!p.hf_repo.empty() && lower_ascii(p.hf_repo) == lower_ascii(base)) return &p;
    }
  }
  return nullptr;
}

// Where Ollama's registry keeps a name's manifest, and the bytes it may take.
void write_ollama_reading(JsonWriter& w, const OllamaRef& ref) {
  const std::string ns = lower_ascii(ref.ns), model = lower_ascii(ref.name);
  w.field("manifest", "/v2/" + ns + "/" + model + "/manifests/" + ref.tag);
  w.field("max_bytes", kManifestLimit);
  w.field("name", model);
  w.field("namespace", ns);
}

// A preset; named by one of its Ollama tags, also where the registry has that tag's file, whose header says which
// weights the tag ships, and the summary for when that file cannot be read (the preset answers without it).
std::string preset_answer(const ModelPreset& p, const std::optional<OllamaRef>& ollama = std::nullopt) {
  JsonWriter w;
  w.begin_object();
  w.field("kind", "preset");
  w.field("model", p.id);
  if (ollama) {
    w.begin_object("ollama");
    write_ollama_reading(w, *ollama);
    w.field("tag", ollama->tag);
    w.message_id("unread", message("lookup.ollama_unread", "Ollama's {name} was not read; answered without its file.",
                                   {arg::text("name", lower_ascii(ollama->name) + ":" + ollama->tag)}));
    w.end_object();
  }
  w.field("ok", true);
  w.end_object();
  return w.take();
}

}  // namespace

bool names_a_path(std::string_view name) {
  const std::string lower = lower_ascii(name);
  const bool file_ending = lower.ends_with(".json") || lower.ends_with(".gguf") || lower.ends_with(".safetensors");
  const bool link = name.find("://") != std::string_view::npos || lower.starts_with("hf.co/") ||
                    lower.starts_with("huggingface.co/");
  const bool folder = name.starts_with('/') || (name.starts_with('.') && name.find('/') != std::string_view::npos);
  return !link && (file_ending || folder);
}

std::string read_model_name(const Catalog& catalog, std::string_view name, std::string_view revision) {
  if (names_a_path(name)) {
    JsonWriter w;
    w.begin_object();
    w.field("kind", "file");
    w.field("name", name);
    w.field("ok", true);
    w.end_object();
    return w.take();
  }
  if (auto hub = parse_hub_ref(name)) {
    if (!*hub) return error_to_json(hub->error());
    const HubRef& ref = hub->value();
    if (const ModelPreset* p = preset_for_repo(catalog, ref); p && revision.empty()) return preset_answer(*p);
    JsonWriter w;
    w.begin_object();
    w.field("file", ref.file);
    w.field("kind", "hub");
    w.field("listing", listing_path(ref, revision));
    w.field("max_bytes", kListingLimit);
    w.field("ok", true);
    w.field("quant", ref.quant);
    w.field("repo", ref.repo);
    w.field("revision", revision.empty() ? ref.revision : std::string(revision));
    w.end_object();
    return w.take();
  }
  auto preset = resolve_model(catalog.models, name);
  if (preset && preset.value().ollama) return preset_answer(*preset.value().preset, parse_ollama_ref(name));
  if (preset) return preset_answer(*preset.value().preset);
  const auto ollama = parse_ollama_ref(name);
  if (!ollama) return error_to_json(preset.error());
  JsonWriter w;
  w.begin_object();
  w.field("kind", "ollama");
  write_ollama_reading(w, *ollama);
  w.field("ok", true);
  w.message_id("preset_error", preset.error().message);
  w.field("tag", ollama->tag);
  w.end_object();
  return w.take();
}

namespace {

struct Plan {
  std::string kind;
  std::vector<std::pair<std::string, std::string>> texts;  // role, file
  std::vector<RepoFile> headers;
  std::uint64_t first_read = 0;
  std::optional<std::size_t> gguf_choice;
  GgufPick pick = GgufPick::asked;
  Message summary;
  std::vector<Message> notes;
};

bool has_file(const RepoListing& l, std::string_view path) {
  return std::any_of(l.files.begin(), l.files.end(), [&](const RepoFile& f) { return f.path == path; });
}

std::string dtype_list(const RepoListing& l) {
  std::string out;
  for (const auto& [dtype, n] : l.safetensors_params) out += (out.empty() ? "" : ", ") + dtype;
  return out;
}

std::uint64_t summed(const std::vector<RepoFile>& files) {
  std::uint64_t total = 0;
  for (const auto& f : files) total += f.size;
  return total;
}

Message hub_params_clause(const RepoListing& l) {
  if (l.safetensors_total == 0) return message("hub.params_none", "the Hub gives no parameter count");
  return message("hub.params", "the Hub counts {params} parameters ({dtypes})",
                 {arg::count("params", l.safetensors_total), arg::text("dtypes", dtype_list(l))});
}

// A count of files with its noun in the singular or the plural, each language's own ("1 file", "3 Dateien").
Message files_clause(std::uint64_t n) {
  const MessageArg count = arg::count("n", n);
  return n == 1 ? message("hub.files_one", "{n} file", {count}) : message("hub.files", "{n} files", {count});
}
Message safetensors_clause(std::uint64_t n) {
  const MessageArg count = arg::count("n", n);
  return n == 1 ? message("hub.safetensors_files_one", "{n} safetensors file", {count})
                : message("hub.safetensors_files", "{n} safetensors files", {count});
}
Message weight_files_clause(std::uint64_t n) {
  const MessageArg count = arg::count("n", n);
  return n == 1 ? message("hub.weight_files_one", "{n} weight file", {count})
                : message("hub.weight_files", "{n} weight files", {count});
}

Result<Plan> gguf_plan(const HubRef& ref, const RepoListing& l) {
  const auto choices = gguf_choices(l);
  const MessageArg repo = arg::text("repo", ref.repo);
  if (choices.empty())
    return make_error("model", message("hub.no_gguf", "{repo} has no .gguf file to take {quant} from",
                                       {repo, arg::text("quant", ref.quant.empty() ? ref.file : ref.quant)}));
  std::optional<std::pair<std::size_t, GgufPick>> picked;
  if (!ref.file.empty()) {
    for (std::size_t i = 0; i < choices.size() && !picked; ++i)
      for (const auto& f : choices[i].files)
        if (f.path == ref.file) picked = std::pair{i, GgufPick::asked};
    if (!picked)
      return make_error("model", message("hub.no_file", "{repo} has no file {file}", {repo, arg::text("file", ref.file)}));
  } else {
    picked = pick_gguf(choices, ref.quant);
  }
  if (!picked) {
    std::string offered;
    for (const auto& c : choices) offered += (offered.empty() ? "" : ", ") + c.quant;
    return make_error("model", message("hub.no_quant", "{repo} has no {quant} file; it offers {offered}",
                                       {repo, arg::text("quant", ref.quant), arg::text("offered", offered)}));
  }
  const GgufChoice& c = choices[picked->first];
  if (c.files.size() != c.parts_named)
    return make_error("model", message("hub.split_incomplete", "{repo}'s {quant} file is split in {parts} parts, but "
                                                               "the repository holds {held} of them",
                                       {repo, arg::text("quant", c.quant), arg::count("parts", c.parts_named),
                                        arg::count("held", c.files.size())}));
  Plan plan;
  plan.kind = "gguf";
  plan.headers = c.files;
  plan.first_read = kGgufFirstRead;
  plan.gguf_choice = picked->first;
  plan.pick = picked->second;
  const Message how = picked->second == GgufPick::asked ? message("hub.pick_asked", "as asked")
                      : picked->second == GgufPick::default_q4_k_m
                          ? message("hub.pick_default", "llama.cpp's -hf default, Q4_K_M")
                          : message("hub.pick_first", "the first file: there is no Q4_K_M, and llama.cpp's -hf takes "
                                                      "the first then");
  // llama.cpp's -hf: "mmproj is also downloaded automatically if available. to disable, add --no-mmproj".
  for (const RepoFile& f : l.files) {
    if (lower_ascii(f.path).ends_with(".gguf") && is_projector(f.path)) {
      plan.notes.push_back(message("hub.mmproj", "{repo} also holds a vision projector, {file} ({size_bytes}): "
                                                 "llama-server -hf loads it too unless --no-mmproj is given. It is not "
                                                 "counted here.",
                                   {repo, arg::text("file", f.path), arg::bytes("size_bytes", f.size)}));
      break;
    }
  }
  plan.summary = message("hub.summary_gguf", "{repo}: {quant}, {size_bytes} in {files} ({how}); its header "
                                             "read, no weights downloaded.",
                         {repo, arg::text("quant", c.quant), arg::bytes("size_bytes", c.size),
                          arg::message("files", files_clause(c.files.size())), arg::message("how", how)});
  return plan;
}

Result<Plan> plan_for(const HubRef& ref, const RepoListing& l) {
  const bool wants_gguf = !ref.quant.empty() || lower_ascii(ref.file).ends_with(".gguf");
  std::vector<std::string> left_out;
  const auto shards = safetensors_weights(l, left_out);
  const bool has_config = has_file(l, "config.json");
  if (wants_gguf || (shards.empty() && !gguf_choices(l).empty())) return gguf_plan(ref, l);
  const MessageArg repo = arg::text("repo", ref.repo);
  Plan plan;
  if (!left_out.empty() && !shards.empty()) {
    std::string names;
    for (const auto& n : left_out) names += (names.empty() ? "" : ", ") + n;
    plan.notes.push_back(message("hub.safetensors_left_out", "{repo} also holds {files}, which transformers and vLLM "
                                                             "do not load beside its {shards}; not counted.",
                                 {repo, arg::text("files", names), arg::message("shards", weight_files_clause(shards.size()))}));
  }
  if (has_config) plan.texts.emplace_back("config", "config.json");
  if (has_file(l, "hf_quant_config.json")) plan.texts.emplace_back("quant_config", "hf_quant_config.json");
  if (!shards.empty() && shards.size() <= kMostShards) {
    plan.kind = "safetensors";
    plan.headers = shards;
    plan.first_read = kSafetensorsFirstRead;
    plan.summary = message("hub.summary_safetensors",
                           "{repo}: {what}the headers of {files} ({size_bytes}); {params}.",
                           {repo, arg::message("what", has_config ? message("hub.with_config", "config.json and ")
                                                                  : message("hub.without_config", "no config.json, ")),
                            arg::message("files", safetensors_clause(shards.size())),
                            arg::bytes("size_bytes", summed(shards)),
                            arg::message("params", hub_params_clause(l))});
    return plan;
  }
  if (!has_config) {
    if (!shards.empty())
      return make_error("model", message("hub.too_many_shards_no_config",
                                         "{repo} has {files} safetensors files and no config.json; vramfit reads at "
                                         "most {most} headers",
                                         {repo, arg::count("files", shards.size()), arg::count("most", kMostShards)}));
    return make_error("model", message("hub.nothing", "{repo} has no config.json and no weights (.safetensors or "
                                                      ".gguf) to read",
                                       {repo}));
  }
  plan.kind = "config";
  if (!shards.empty()) {
    plan.summary = message("hub.summary_many_shards",
                           "{repo}: config.json; its {files} safetensors files ({size_bytes}) are more than {most}, so "
                           "their headers were not read and the weights follow config.json; {params}.",
                           {repo, arg::count("files", shards.size()), arg::bytes("size_bytes", summed(shards)),
                            arg::count("most", kMostShards), arg::message("params", hub_params_clause(l))});
  } else if (std::any_of(l.files.begin(), l.files.end(), [](const RepoFile& f) {
               return f.path.find('/') != std::string::npos &&
                      (f.path.ends_with(".safetensors") || lower_ascii(f.path).ends_with(".gguf"));
             })) {
    plan.summary = message("hub.summary_config_subfolders",
                           "{repo}: config.json; its weight files lie in subfolders, which transformers and vLLM do "
                           "not load from, so they were not read and the weights follow config.json.",
                           {repo});
  } else {
    plan.summary = message("hub.summary_config", "{repo}: config.json only; the repository holds no .safetensors or "
                                                 ".gguf weights, so the weights follow config.json.",
                           {repo});
  }
  return plan;
}

void write_files(JsonWriter& w, const char* key, const std::vector<RepoFile>& files, const std::string& repo,
                 const std::string& commit) {
  w.begin_array(key);
  for (const auto& f : files) {
    w.begin_object();
    w.field("name", f.path);
    w.field("path", resolve_path(repo, commit, f.path));
    w.field("size", f.size);
    w.end_object();
  }
  w.end_array();
}

}  // namespace

std::string plan_hub_reads(std::string_view name, std::string_view revision, std::string_view listing_json) {
  auto hub = parse_hub_ref(name);
  if (!hub) return error_to_json(make_error("model", message("hub.not_hub_name", "\"{given}\" is not a Hub repository",
                                                             {arg::text("given", name)})));
  if (!*hub) return error_to_json(hub->error());
  HubRef ref = hub->value();
  if (!revision.empty()) ref.revision = std::string(revision);
  auto listing = read_repo_listing(listing_json);
  if (!listing) return error_to_json(listing.error());
  const RepoListing& l = listing.value();
  auto planned = plan_for(ref, l);
  if (!planned) return error_to_json(planned.error());
  const Plan& plan = planned.value();
  const std::string commit = !l.sha.empty() ? l.sha : ref.revision.empty() ? std::string("main") : ref.revision;
  JsonWriter w;
  w.begin_object();
  w.field("commit", commit);
  w.field("first_read_bytes", plan.first_read);
  w.field("gated", l.gated);
  if (plan.gguf_choice) {
    const auto choices = gguf_choices(l);
    w.begin_object("gguf");
    w.begin_array("choices");
    for (const auto& c : choices) {
      w.begin_object();
      w.field("files", static_cast<std::uint64_t>(c.files.size()));
      w.field("quant", c.quant);
      w.field("size", c.size);
      w.end_object();
    }
    w.end_array();
    w.field("picked", plan.pick == GgufPick::asked ? "asked" : plan.pick == GgufPick::default_q4_k_m ? "default" : "first");
    w.field("quant", choices[*plan.gguf_choice].quant);
    // The file read, when llama-server's -hf REPO:QUANT would take another from this listing: named by -hff.
    const std::string& read = choices[*plan.gguf_choice].files.front().path;
    if (llama_tag_pick(l, choices[*plan.gguf_choice].quant) != read) w.field("hf_file", read);
    w.end_object();
  }
  write_files(w, "headers", plan.headers, ref.repo, commit);
  w.field("kind", plan.kind);
  w.field("max_header_bytes", kHeaderLimit);
  if (!ref.revision.empty()) w.field("revision", ref.revision);  // the revision read; none: the default branch
  w.message_ids("notes", plan.notes);
  w.field("ok", true);
  w.begin_object("parameters");
  for (const auto& [dtype, n] : l.safetensors_params) w.field(dtype.c_str(), n);
  w.end_object();
  w.field("parameters_total", l.safetensors_total);
  w.field("repo", ref.repo);
  w.message_id("summary", plan.summary);
  w.begin_array("texts");
  for (const auto& [role, file] : plan.texts) {
    w.begin_object();
    w.field("max_bytes", kTextLimit);
    w.field("path", resolve_path(ref.repo, commit, file));
    w.field("role", role);
    w.end_object();
  }
  w.end_array();
  w.end_object();
  return w.take();
}

std::string plan_ollama_reads(std::string_view name, std::string_view manifest_json) {
  const auto ref = parse_ollama_ref(name);
  if (!ref) return error_to_json(make_error("model", message("ollama.not_name", "\"{given}\" is not an Ollama model name",
                                                             {arg::text("given", name)})));
  auto layers = read_ollama_manifest(manifest_json);
  if (!layers) return error_to_json(layers.error());
  const OllamaLayer* model = nullptr;
  const OllamaLayer* projector = nullptr;
  for (const auto& layer : layers.value()) {
    if (layer.media_type == "application/vnd.ollama.image.model" && !model) model = &layer;
    if (layer.media_type == "application/vnd.ollama.image.projector" && !projector) projector = &layer;
  }
  const std::string shown = lower_ascii(ref->name) + ":" + ref->tag;
  if (!model)
    return error_to_json(make_error("model", message("ollama.no_model_layer", "{name}'s manifest lists no model layer",
                                                     {arg::text("name", shown)})));
  const std::string blobs = "/v2/" + lower_ascii(ref->ns) + "/" + lower_ascii(ref->name) + "/blobs/";
  const Message summary =
      message("ollama.summary", "Ollama's {name}: its model file ({size_bytes}, {digest}); its header read, no weights "
                                "downloaded.",
              {arg::text("name", shown), arg::bytes("size_bytes", model->size), arg::text("digest", model->digest.substr(0, 19))});
  JsonWriter w;
  w.begin_object();
  w.field("first_read_bytes", kGgufFirstRead);
  w.begin_array("headers");
  w.begin_object();
  w.field("name", model->digest.substr(7) + ".gguf");
  w.field("path", blobs + model->digest);
  w.field("size", model->size);
  w.end_object();
  w.end_array();
  w.field("max_header_bytes", kHeaderLimit);
  w.field("name", lower_ascii(ref->name));
  w.field("ok", true);
  if (projector) {
    w.begin_object("projector");
    w.field("digest", projector->digest);
    w.field("size", projector->size);
    w.end_object();
  } else {
    w.field("projector", nullptr);
  }
  w.message_id("summary", summary);
  w.field("tag", ref->tag);
  w.end_object();
  return w.take();
}

namespace {

Message failure_message(FieldReader& r) {
  const std::string service = r.string("service").value_or("hub");
  const MessageArg name = arg::text("name", r.string("name").value_or(""));
  const std::string failure = r.string("failure").value_or("");
  if (failure == "timeout")
    return service == "ollama" ? message("lookup.timeout_ollama", "Ollama's registry did not answer in time about {name}; try again later", {name})
                               : message("lookup.timeout_hub", "the Hugging Face Hub did not answer in time about {name}; try again later", {name});
  if (failure == "offline")
    return service == "ollama" ? message("lookup.offline_ollama", "Ollama's registry cannot be reached (offline?) to look up {name}", {name})
                               : message("lookup.offline_hub", "the Hugging Face Hub cannot be reached (offline?) to look up {name}", {name});
  if (failure == "not_cached")
    return message("lookup.not_cached", "{name} was never looked up on this machine, so there is no copy to answer from offline", {name});
  if (failure == "too_large")
    return message("lookup.too_large", "a file of {name} is larger than the {limit} MiB vramfit reads of it",
                   {name, arg::count("limit", (r.uint("limit").value_or(0) + (1u << 20) - 1) >> 20)});
  if (failure == "insecure_redirect")
    return message("lookup.insecure_redirect", "a download of {name} was redirected to a plain-http address; vramfit "
                                               "follows redirects only to https",
                   {name});
  if (failure == "blocked")
    return message("lookup.blocked", "huggingface.co could not be reached about {name}: a network filter, the "
                                     "browser's cross-origin rules or a redirect to an insecure address stopped it",
                   {name});
  if (failure == "broken")
    return message("lookup.broken", "the connection broke off while reading {name}; try again", {name});
  if (failure == "redirects")
    return message("lookup.redirects", "a download of {name} was redirected more than five times", {name});
  if (failure == "bad_range")
    return message("lookup.bad_range", "the server did not return the part of a file of {name} that was asked for", {name});
  const std::uint64_t status = r.uint("status").value_or(0);
  const std::string code = r.string("error_code").value_or("");
  const bool token = r.boolean("token").value_or(false);
  if (code == "GatedRepo" || ((status == 401 || status == 403) && r.boolean("gated").value_or(false)))
    return token ? message("lookup.gated_denied", "{name} is gated: the token in HF_TOKEN has not been granted access; "
                                                  "ask for it on the model's page",
                           {name})
                 : message("lookup.gated", "{name} is gated: its files need an approved Hugging Face account. Drop or "
                                           "paste its config.json, or pick an ungated copy",
                           {name});
  // The Hub answers a token it does not know with 401 and no error code ("Invalid credentials in Authorization
  // header"), whatever the repository.
  if (status == 401 && token && code.empty())
    return message("lookup.token_invalid", "the Hugging Face Hub refused the token in HF_TOKEN (invalid or expired) "
                                           "while looking up {name}",
                   {name});
  if (code == "RevisionNotFound")
    return message("lookup.no_revision", "{name} has no such revision (branch, tag or commit)", {name});
  if (code == "EntryNotFound") return message("lookup.no_entry", "a file of {name} the listing names is missing", {name});
  if (status == 404 || status == 401 || code == "RepoNotFound")
    return service == "ollama"
               ? message("lookup.not_found_ollama", "Ollama's library has no model {name}", {name})
               : message("lookup.not_found_hub", "the Hugging Face Hub has no model {name} (or it is private)", {name});
  if (status == 429)
    return service == "ollama"
               ? message("lookup.rate_limited_ollama", "Ollama's registry asks to slow down (too many requests); try {name} again in a minute", {name})
               : message("lookup.rate_limited_hub", "the Hugging Face Hub asks to slow down (too many requests); try {name} again in a minute", {name});
  return message("lookup.http", "the request about {name} failed with HTTP status {status}",
                 {name, arg::digits("status", status)});
}

}  // namespace

std::string lookup_failure(std::string_view failure_json) {
  auto parsed = detail::parse_json(failure_json, "failure");
  if (!parsed) return error_to_json(parsed.error());
  FieldReader r(parsed.value(), "");
  Message m = failure_message(r);
  if (r.error()) return error_to_json(*r.error());
  return error_to_json(make_error("model", std::move(m)));
}

}  // namespace vramfit
