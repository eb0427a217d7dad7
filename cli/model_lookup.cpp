#include "model_lookup.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>  // std::min
#include <cstddef>    // std::byte
#include <cctype>     // std::tolower, std::toupper
#include <cstdlib>    // std::getenv, std::strtol
#include <utility>    // std::move
#include <vector>     // std::vector

#include "tables.hpp"  // message_text
#include "vramfit/lookup.hpp"

namespace vramfit::cli {

namespace {

using nlohmann::json;

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::string without_trailing_slash(std::string s) {
  while (!s.empty() && s.back() == '/') s.pop_back();
  return s;
}

// "scheme://host[:port]" of a URL.
std::string origin_of(const std::string& url) {
  const auto scheme = url.find("://");
  if (scheme == std::string::npos) return url;
  const auto slash = url.find('/', scheme + 3);
  return slash == std::string::npos ? url : url.substr(0, slash);
}

// The core's refusal as the CLI's error; `json` keeps the core's answer, whose message a fall-back quotes.
FileAnswer core_error(const std::string& error_json) {
  const json e = json::parse(error_json, nullptr, false);
  if (!e.is_object() || !e.contains("error")) return {"", Error{"--model", "the lookup failed"}};
  return {error_json, Error{"--model", message_text(e["error"].value("message", json("the lookup failed")))}};
}

FileAnswer failed(const std::string& service, const std::string& name, const Fetched& got, const FetchSettings& s,
                  std::uint64_t limit = 0, bool gated = false) {
  json failure = {{"service", service}, {"name", name}, {"token", !s.token.empty()}, {"status", got.status},
                  {"error_code", got.error_code}, {"limit", limit}, {"gated", gated}};
  if (!got.failure.empty()) failure["failure"] = got.failure;
  return core_error(lookup_failure(failure.dump()));
}

Fetched too_large() {
  Fetched f;
  f.failure = "too_large";
  return f;
}

// The request with the texts read added ("config", "quant_config").
std::string with_texts(const std::string& request_json, const std::vector<std::pair<std::string, std::string>>& texts) {
  json request = json::parse(request_json);
  for (const auto& [role, text] : texts) request[role] = text;
  return request.dump(-1, ' ', false, json::error_handler_t::replace);
}

struct Header {
  std::string name, url;
  std::uint64_t size = 0;
  std::string bytes;
};

// Reads each file's first bytes and asks the core, reading a longer prefix of whichever file it names until it
// has every header; never past max_header_bytes nor the file's end.
FileAnswer answer_from_headers(const Catalog& catalog, std::vector<Header>& headers, const std::string& request,
                               const json& plan, const std::string& service, const std::string& name,
                               const FetchSettings& s, bool& fell_back) {
  const std::uint64_t first = plan.value("first_read_bytes", std::uint64_t{1} << 20);
  const std::uint64_t most = plan.value("max_header_bytes", std::uint64_t{64} << 20);
  auto read = [&](Header& h, std::uint64_t want) -> std::optional<FileAnswer> {
    want = std::min(want, h.size);
    if (want == 0) return std::nullopt;
    Fetched got = fetch(s, h.url, want, want);
    if (!got.failure.empty() || got.status >= 400) return failed(service, name, got, s, want);
    fell_back = fell_back || got.fell_back;
    h.bytes = std::move(got.body);
    return std::nullopt;
  };
  for (auto& h : headers)
    if (auto error = read(h, first)) return *error;
  for (int round = 0; round < 16; ++round) {
    std::vector<SafetensorsFile> files;
    for (const auto& h : headers)
      files.push_back({h.name, {reinterpret_cast<const std::byte*>(h.bytes.data()), h.bytes.size()}, h.size});
    std::string reply = answer_shards(catalog, files, "", request);
    const json parsed = json::parse(reply, nullptr, false);
    const std::uint64_t need = parsed.is_object() ? parsed.value("need_prefix_bytes", std::uint64_t{0}) : 0;
    if (need == 0) return {std::move(reply), std::nullopt};
    const std::size_t which = parsed.value("need_file", std::size_t{0});
    if (which >= headers.size()) return {"", Error{"--model", "the core asked for a file that was not read"}};
    Header& h = headers[which];
    if (need > most) return failed(service, name, too_large(), s, most);
    if (need > h.size || need <= h.bytes.size())
      return {"", Error{"--model", "the header of " + h.name + " does not fit its file (" + std::to_string(h.size) + " bytes)"}};
    if (auto error = read(h, need)) return *error;
  }
  return {"", Error{"--model", "the headers asked for more reads than any model file needs"}};
}

// The answer with what was read: {"source", "summary", "notes", "offline" (answered from the cache), "fell_back"
// (the network failed and an earlier read answered), "gguf", "commit"}.
FileAnswer with_lookup(FileAnswer answered, const std::string& source, const json& plan, const FetchSettings& s,
                       bool fell_back) {
  if (answered.error) return answered;
  json answer = json::parse(answered.json, nullptr, false);
  if (!answer.is_object() || !answer.value("ok", false)) return answered;
  json lookup = {{"source", source}, {"offline", s.offline || fell_back}, {"fell_back", fell_back}};
  lookup["summary"] = plan.value("summary", json());
  lookup["notes"] = plan.value("notes", json::array());
  if (plan.contains("gguf")) lookup["gguf"] = plan["gguf"];
  if (plan.contains("commit")) lookup["commit"] = plan["commit"];
  answer["lookup"] = std::move(lookup);
  answered.json = answer.dump(-1, ' ', false, json::error_handler_t::replace);
  return answered;
}

std::vector<Header> headers_of(const json& plan, const std::string& base) {
  std::vector<Header> out;
  for (const auto& h : plan.value("headers", json::array()))
    out.push_back({h.value("name", std::string()), base + h.value("path", std::string()), h.value("size", std::uint64_t{0}), {}});
  return out;
}

// What a lookup read: the texts (config.json, hf_quant_config.json, the name), the files' headers as far as the core
// asked for them, the plan that said what to read, and the core's answer to the request with them.
struct Lookup {
  FileAnswer answered;
  json plan;
  std::vector<std::pair<std::string, std::string>> texts;
  std::vector<Header> headers;
  std::string source;
  std::string repo;  // the Hub repository read; empty for Ollama
  bool fell_back = false;
};

Lookup stopped(FileAnswer failure) {
  Lookup out;
  out.answered = std::move(failure);
  return out;
}

Lookup read_hub(const Catalog& catalog, const json& named, const std::string& name, const std::string& request,
                const LookupSettings& settings) {
  const FetchSettings& s = settings.fetch;
  Lookup out;
  out.repo = named.value("repo", std::string());
  const std::string& repo = out.repo;
  const std::uint64_t limit = named.value("max_bytes", std::uint64_t{0});
  Fetched listing = fetch(s, settings.hub_endpoint + named.value("listing", std::string()), 0, limit);
  if (!listing.failure.empty() || listing.status >= 400) return stopped(failed("hub", repo, listing, s, limit));
  out.fell_back = listing.fell_back;
  const std::string plan_text = plan_hub_reads(name, settings.revision, listing.body);
  out.plan = json::parse(plan_text, nullptr, false);
  if (!out.plan.is_object() || !out.plan.value("ok", false)) return stopped(core_error(plan_text));
  for (const auto& t : out.plan.value("texts", json::array())) {
    const std::uint64_t text_limit = t.value("max_bytes", std::uint64_t{8} << 20);
    Fetched got = fetch(s, settings.hub_endpoint + t.value("path", std::string()), 0, text_limit);
    if (!got.failure.empty() || got.status >= 400)
      return stopped(failed("hub", repo, got, s, text_limit, !out.plan.value("gated", std::string()).empty()));
    out.fell_back = out.fell_back || got.fell_back;
    out.texts.emplace_back(t.value("role", std::string()), std::move(got.body));
  }
  out.texts.emplace_back("model_name", repo);
  out.texts.emplace_back("model_repo", repo);
  // What llama-server's command needs to fetch the same file: the revision read, and the file where -hf's tag would
  // take another (plan_hub_reads).
  if (const std::string revision = out.plan.value("revision", std::string()); !revision.empty())
    out.texts.emplace_back("model_revision", revision);
  if (const auto gguf = out.plan.find("gguf"); gguf != out.plan.end() && gguf->contains("hf_file"))
    out.texts.emplace_back("model_hf_file", gguf->value("hf_file", std::string()));
  const std::string full_request = with_texts(request, out.texts);
  out.source = settings.hub_endpoint + "/" + repo;
  out.headers = headers_of(out.plan, settings.hub_endpoint);
  if (out.headers.empty()) out.answered = {answer(catalog, full_request), std::nullopt};
  else out.answered = answer_from_headers(catalog, out.headers, full_request, out.plan, "hub", repo, s, out.fell_back);
  return out;
}

FileAnswer from_hub(const Catalog& catalog, const json& named, const std::string& name, const std::string& request,
                    const LookupSettings& settings) {
  Lookup read = read_hub(catalog, named, name, request, settings);
  return with_lookup(std::move(read.answered), read.source, read.plan, settings.fetch, read.fell_back);
}

Lookup read_ollama(const Catalog& catalog, const json& named, const std::string& name, const std::string& request,
                   const LookupSettings& settings) {
  const FetchSettings& s = settings.fetch;
  const std::string shown = named.value("name", std::string()) + ":" + named.value("tag", std::string());
  // Docker's registry protocol answers with the manifest form the client accepts.
  Fetched manifest = fetch(s, settings.ollama_registry + named.value("manifest", std::string()), 0,
                           named.value("max_bytes", std::uint64_t{0}),
                           "application/vnd.docker.distribution.manifest.v2+json");
  if (!manifest.failure.empty() || manifest.status >= 400) {
    // The name may be a preset misspelt as much as an Ollama model: say both.
    FileAnswer f = failed("ollama", shown, manifest, s);
    const std::string preset_error = message_text(named.value("preset_error", json()));
    if (f.error && !preset_error.empty()) f.error->message += "; " + preset_error;
    return stopped(std::move(f));
  }
  Lookup out;
  const std::string plan_text = plan_ollama_reads(name, manifest.body);
  out.plan = json::parse(plan_text, nullptr, false);
  if (!out.plan.is_object() || !out.plan.value("ok", false)) return stopped(core_error(plan_text));
  out.fell_back = manifest.fell_back;
  out.headers = headers_of(out.plan, settings.ollama_registry);
  // The file is what Ollama runs under that name: the core takes Ollama as its engine unless the request names one.
  const json asked = json::parse(request);
  const std::string mode = asked.value("mode", std::string());
  out.texts = {{"model_name", shown}};
  if (mode.empty() || mode == "inference") out.texts.emplace_back("ollama_tag", shown);
  const std::string named_request = with_texts(request, out.texts);
  out.answered = answer_from_headers(catalog, out.headers, named_request, out.plan, "ollama", shown, s, out.fell_back);
  out.source = settings.ollama_registry + "/library/" + shown;
  return out;
}

FileAnswer from_ollama(const Catalog& catalog, const json& named, const std::string& name, const std::string& request,
                       const LookupSettings& settings) {
  Lookup read = read_ollama(catalog, named, name, request, settings);
  return with_lookup(std::move(read.answered), read.source, read.plan, settings.fetch, read.fell_back);
}

// A lookup's reading as the core's description of a model read (json/model_read.hpp): its name, repository,
// texts and the files' headers.
FileAnswer described(Lookup read, const std::string& flag) {
  if (!read.answered.error) {
    const json answered = json::parse(read.answered.json, nullptr, false);
    if (!answered.is_object() || !answered.value("ok", false)) read.answered = core_error(read.answered.json);
  }
  if (read.answered.error) {
    read.answered.error->field = flag;
    return read.answered;
  }
  json d = {{"files", json::array()}};
  for (const auto& [role, text] : read.texts) {
    if (role == "config" || role == "quant_config") d[role] = text;
    if (role == "model_name") d["name"] = text;
    if (role == "model_revision") d["revision"] = text;
    if (role == "model_hf_file") d["hf_file"] = text;
  }
  if (!read.repo.empty()) d["repo"] = read.repo;
  for (const Header& h : read.headers) d["files"].push_back({{"name", h.name}, {"size", h.size}, {"header", base64(h.bytes)}});
  return {d.dump(-1, ' ', false, json::error_handler_t::replace), std::nullopt};
}

}  // namespace

FileAnswer describe_named_model(const Catalog& catalog, const std::string& name, const std::string& flag,
                                const LookupSettings& settings) {
  if (is_model_path(name)) return describe_model_file(catalog, name, flag);
  const json named = json::parse(read_model_name(catalog, name, settings.revision), nullptr, false);
  const std::string kind = named.is_object() ? named.value("kind", std::string()) : "";
  if (kind == "hub") return described(read_hub(catalog, named, name, "{}", settings), flag);
  if (kind == "ollama") return described(read_ollama(catalog, named, name, "{}", settings), flag);
  return {"", std::nullopt};  // a preset, or a name the core refuses itself, naming the preset it could mean
}

namespace {

bool is_mtp(std::string name) {
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name == "mtp";
}

}  // namespace

std::optional<Error> with_named_models(const Catalog& catalog, std::string& request_json,
                                       const LookupSettings& settings) {
  json request = json::parse(request_json);
  const auto draft = request.find("draft");
  // "mtp" is the model's own layers, never a name to look up.
  if (draft != request.end() && draft->is_string() && !is_config_path(draft->get<std::string>()) &&
      !is_mtp(draft->get<std::string>())) {
    FileAnswer read = describe_named_model(catalog, draft->get<std::string>(), "--draft", settings);
    if (read.error) return read.error;
    if (!read.json.empty()) request["draft_read"] = json::parse(read.json);
  }
  const auto also = request.find("also");
  if (also != request.end() && also->is_string()) {
    json reads = json::object();
    // The core's split: comma-separated items, each a model before its first @.
    std::string text = also->get<std::string>();
    for (std::size_t start = 0; start <= text.size();) {
      const std::size_t comma = std::min(text.find(',', start), text.size());
      std::string item = text.substr(start, comma - start);
      start = comma + 1;
      while (!item.empty() && item.front() == ' ') item.erase(0, 1);
      while (!item.empty() && item.back() == ' ') item.pop_back();
      const std::string model = item.substr(0, item.find('@'));
      if (model.empty() || reads.contains(model)) continue;
      FileAnswer read = is_config_path(model) ? describe_model_file(catalog, model, "--also")
                                              : describe_named_model(catalog, model, "--also", settings);
      if (read.error) return read.error;
      if (!read.json.empty()) reads[model] = json::parse(read.json);
    }
    if (!reads.empty()) request["also_read"] = std::move(reads);
  }
  request_json = request.dump(-1, ' ', false, json::error_handler_t::replace);
  return std::nullopt;
}

LookupSettings lookup_settings_from_environment() {
  LookupSettings out;
  if (const std::string e = env("HF_ENDPOINT"); !e.empty()) out.hub_endpoint = without_trailing_slash(e);
  if (const std::string e = env("VRAMFIT_OLLAMA_REGISTRY"); !e.empty()) out.ollama_registry = without_trailing_slash(e);
  out.fetch.token = env("HF_TOKEN");
  out.fetch.token_origin = origin_of(out.hub_endpoint);
  // An endpoint the user set to plain http (a mirror on their network, or the tests' server) may redirect to itself.
  for (const std::string& e : {out.hub_endpoint, out.ollama_registry})
    if (e.starts_with("http://")) out.fetch.trusted_origins.push_back(origin_of(e));
  // huggingface_hub's _is_true: "1", "ON", "YES", "TRUE" in any case.
  std::string offline = env("HF_HUB_OFFLINE");
  for (char& c : offline) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  out.fetch.offline = offline == "1" || offline == "ON" || offline == "YES" || offline == "TRUE";
  if (const std::string t = env("HF_HUB_DOWNLOAD_TIMEOUT"); !t.empty()) {
    const long seconds = std::strtol(t.c_str(), nullptr, 10);
    if (seconds > 0) out.fetch.timeout_seconds = seconds;
  }
  std::string cache = env("XDG_CACHE_HOME");
  if (cache.empty() && !env("HOME").empty()) cache = env("HOME") + "/.cache";
  if (!cache.empty()) out.fetch.cache_dir = cache + "/vramfit/lookups";
  return out;
}

FileAnswer answer_about_name(const Catalog& catalog, const std::string& name, const std::string& request_json,
                             const LookupSettings& settings) {
  const json named = json::parse(read_model_name(catalog, name, settings.revision), nullptr, false);
  const std::string kind = named.is_object() ? named.value("kind", std::string()) : "";
  if (kind == "hub") return from_hub(catalog, named, name, request_json, settings);
  if (kind == "ollama") return from_ollama(catalog, named, name, request_json, settings);
  // A preset, or no name at all: the core reads it and says how (its error names the presets it could mean).
  json request = json::parse(request_json);
  request["model"] = name;
  FileAnswer preset{answer(catalog, request.dump(-1, ' ', false, json::error_handler_t::replace)), std::nullopt};
  // A preset's Ollama tag: the registry's file says which weights the tag ships (or an earlier read of it offline);
  // where it cannot be read the preset answers, its notes saying where the weights came from, and this says why.
  if (kind != "preset" || !named.contains("ollama")) return preset;
  const json& ollama = named["ollama"];
  FileAnswer read = from_ollama(catalog, ollama, name, request_json, settings);
  const json answered = json::parse(read.json, nullptr, false);
  // Why it was not read is the core's own message (a failed download, a header it could not read), said as a note;
  // a file at odds with the CLI's own checks (a header longer than its file) is an error, as for any lookup.
  if (!answered.is_object() || !answered.contains("error")) return read;
  json answer = json::parse(preset.json, nullptr, false);
  if (!answer.is_object() || !answer.value("ok", false)) return preset;
  json notes = json::array({answered["error"].value("message", json())});
  const std::string shown = ollama.value("name", std::string()) + ":" + ollama.value("tag", std::string());
  answer["lookup"] = {{"source", settings.ollama_registry + "/library/" + shown}, {"offline", false}, {"fell_back", false},
                      {"summary", ollama.value("unread", json())}, {"notes", std::move(notes)}};
  preset.json = answer.dump(-1, ' ', false, json::error_handler_t::replace);
  return preset;
}

}  // namespace vramfit::cli
