#include "model_lookup.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>  // std::min
#include <cstddef>    // std::byte
#include <cctype>     // std::toupper
#include <cstdlib>    // std::getenv, std::strtol
#include <utility>    // std::move
#include <vector>     // std::vector

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

FileAnswer core_error(const std::string& error_json) {
  const json e = json::parse(error_json, nullptr, false);
  if (!e.is_object() || !e.contains("error")) return {"", Error{"--model", "the lookup failed"}};
  return {"", Error{"--model", e["error"].value("message", std::string("the lookup failed"))}};
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
  lookup["summary"] = plan.value("summary", std::string());
  if (plan.contains("summary_i18n")) lookup["summary_i18n"] = plan["summary_i18n"];
  lookup["notes"] = plan.value("notes", json::array());
  lookup["notes_i18n"] = plan.value("notes_i18n", json::array());
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

FileAnswer from_hub(const Catalog& catalog, const json& named, const std::string& name, const std::string& request,
                    const LookupSettings& settings) {
  const FetchSettings& s = settings.fetch;
  const std::string repo = named.value("repo", std::string());
  const std::uint64_t limit = named.value("max_bytes", std::uint64_t{0});
  Fetched listing = fetch(s, settings.hub_endpoint + named.value("listing", std::string()), 0, limit);
  if (!listing.failure.empty() || listing.status >= 400) return failed("hub", repo, listing, s, limit);
  bool fell_back = listing.fell_back;
  const std::string plan_text = plan_hub_reads(name, settings.revision, listing.body);
  const json plan = json::parse(plan_text, nullptr, false);
  if (!plan.is_object() || !plan.value("ok", false)) return core_error(plan_text);
  std::vector<std::pair<std::string, std::string>> texts;
  for (const auto& t : plan.value("texts", json::array())) {
    const std::uint64_t text_limit = t.value("max_bytes", std::uint64_t{8} << 20);
    Fetched got = fetch(s, settings.hub_endpoint + t.value("path", std::string()), 0, text_limit);
    if (!got.failure.empty() || got.status >= 400)
      return failed("hub", repo, got, s, text_limit, !plan.value("gated", std::string()).empty());
    fell_back = fell_back || got.fell_back;
    texts.emplace_back(t.value("role", std::string()), std::move(got.body));
  }
  texts.emplace_back("model_name", repo);
  const std::string full_request = with_texts(request, texts);
  const std::string source = settings.hub_endpoint + "/" + repo;
  std::vector<Header> headers = headers_of(plan, settings.hub_endpoint);
  if (headers.empty()) return with_lookup({answer(catalog, full_request), std::nullopt}, source, plan, s, fell_back);
  auto answered = answer_from_headers(catalog, headers, full_request, plan, "hub", repo, s, fell_back);
  return with_lookup(std::move(answered), source, plan, s, fell_back);
}

FileAnswer from_ollama(const Catalog& catalog, const json& named, const std::string& name, const std::string& request,
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
    const std::string preset_error = named.value("preset_error", std::string());
    if (f.error && !preset_error.empty()) f.error->message += "; " + preset_error;
    return f;
  }
  const std::string plan_text = plan_ollama_reads(name, manifest.body);
  const json plan = json::parse(plan_text, nullptr, false);
  if (!plan.is_object() || !plan.value("ok", false)) return core_error(plan_text);
  bool fell_back = manifest.fell_back;
  std::vector<Header> headers = headers_of(plan, settings.ollama_registry);
  // The file is what Ollama runs under that name: the core takes Ollama as its engine unless the request names one.
  const json asked = json::parse(request);
  const std::string mode = asked.value("mode", std::string());
  std::vector<std::pair<std::string, std::string>> names{{"model_name", shown}};
  if (mode.empty() || mode == "inference") names.emplace_back("ollama_tag", shown);
  const std::string named_request = with_texts(request, names);
  auto answered = answer_from_headers(catalog, headers, named_request, plan, "ollama", shown, s, fell_back);
  return with_lookup(std::move(answered), settings.ollama_registry + "/library/" + shown, plan, s, fell_back);
}

}  // namespace

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
  std::string why;
  if (read.error) {
    why = read.error->message;
  } else {
    const json answered = json::parse(read.json, nullptr, false);
    if (answered.is_object() && answered.value("ok", false)) return read;
    why = answered.is_object() && answered.contains("error") ? answered["error"].value("message", std::string()) : "";
  }
  json answer = json::parse(preset.json, nullptr, false);
  if (!answer.is_object() || !answer.value("ok", false)) return preset;
  const std::string shown = ollama.value("name", std::string()) + ":" + ollama.value("tag", std::string());
  answer["lookup"] = {{"source", settings.ollama_registry + "/library/" + shown}, {"offline", false}, {"fell_back", false},
                      {"summary", "Ollama's " + shown + " was not read (" + why + "); answered without its file."},
                      {"notes", json::array()}, {"notes_i18n", json::array()}};
  preset.json = answer.dump(-1, ' ', false, json::error_handler_t::replace);
  return preset;
}

}  // namespace vramfit::cli
