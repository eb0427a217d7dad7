#include "formats/hub_repo.hpp"

#include <algorithm>  // std::sort, std::none_of, std::max
#include <cctype>     // std::isalnum
#include <map>        // std::map

#include "util/json_fields.hpp"  // FieldReader, parse_json
#include "util/text.hpp"         // lower_ascii

namespace vramfit {

namespace {

using detail::FieldReader;
using detail::json;

// huggingface_hub's validate_repo_id: letters, digits, '-', '_', '.', at most 96, no "--" or "..", and neither '-'
// nor '.' at either end.
bool valid_repo_part(std::string_view s) {
  if (s.empty() || s.size() > 96) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) return false;
  if (s.front() == '-' || s.front() == '.' || s.back() == '-' || s.back() == '.') return false;
  return s.find("--") == std::string_view::npos && s.find("..") == std::string_view::npos;
}

bool valid_tag(std::string_view s) {
  if (s.empty() || s.size() > 128) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) return false;
  return true;
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split_path(std::string_view s) {
  std::vector<std::string_view> parts;
  while (!s.empty()) {
    const auto slash = s.find('/');
    if (slash != 0) parts.push_back(s.substr(0, slash));
    if (slash == std::string_view::npos) break;
    s.remove_prefix(slash + 1);
  }
  return parts;
}

Error not_a_repo(std::string_view text, Message why) {
  return make_error("model", message("hub.not_a_repo", "\"{given}\" is not a Hugging Face model id: {why}",
                                     {arg::text("given", text), arg::message("why", why)}));
}

Message bad_id() {
  return message("hub.why_owner_name",
                 "a model id is owner/name, each part letters, digits, '-', '_' or '.' (at most 96)");
}

// A link's path segment as text: "refs%2Fpr%2F1" is the revision refs/pr/1 (the Hub quotes it in its links).
std::string percent_decoded(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto hex = [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; };
    if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) && hex(s[i + 2])) {
      out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// "name:QUANT" → the quant apart; Ollama's "latest" (ollama run hf.co/owner/name:latest) asks for no quant.
std::string_view split_quant(std::string_view name, HubRef& ref) {
  const auto colon = name.find(':');
  if (colon == std::string_view::npos) return name;
  ref.quant = std::string(name.substr(colon + 1));
  if (lower_ascii(ref.quant) == "latest") ref.quant.clear();
  return name.substr(0, colon);
}

// After "huggingface.co" or "hf.co": /owner/name[/tree/rev[/folder] | /blob/rev/path | /resolve/rev/path][?…][#…].
Result<HubRef> ref_from_url_path(std::string_view text, std::string_view path) {
  path = path.substr(0, path.find_first_of("?#"));
  auto parts = split_path(path);
  if (!parts.empty() && (parts[0] == "datasets" || parts[0] == "spaces"))
    return not_a_repo(text, message("hub.why_not_model", "the link is to a dataset or a Space, not a model"));
  if (!parts.empty() && parts[0] == "models") parts.erase(parts.begin());
  if (parts.size() < 2) return not_a_repo(text, message("hub.why_no_repo", "the link names no repository"));
  HubRef ref;
  const std::string_view name = split_quant(parts[1], ref);
  if (!valid_repo_part(parts[0]) || !valid_repo_part(name)) return not_a_repo(text, bad_id());
  ref.repo = std::string(parts[0]) + "/" + std::string(name);
  if (parts.size() >= 4 && (parts[2] == "tree" || parts[2] == "blob" || parts[2] == "resolve")) {
    ref.revision = percent_decoded(parts[3]);
    std::string rest;
    for (std::size_t i = 4; i < parts.size(); ++i) rest += (i > 4 ? "/" : "") + percent_decoded(parts[i]);
    // A folder in the tree view holds one quantization's files (unsloth's UD-Q4_K_XL/, bartowski's Q8_0/).
    if (parts[2] == "tree" && !rest.empty() && rest.find('/') == std::string::npos && ref.quant.empty()) ref.quant = rest;
    else if (parts[2] != "tree") ref.file = rest;
  }
  if (!ref.quant.empty() && !valid_tag(ref.quant)) return not_a_repo(text, bad_id());
  return ref;
}

}  // namespace

std::optional<Result<HubRef>> parse_hub_ref(std::string_view raw) {
  std::string_view text = trimmed(raw);
  std::string_view rest = text;
  for (std::string_view scheme : {"https://", "http://"})
    if (lower_ascii(rest.substr(0, scheme.size())) == scheme) rest.remove_prefix(scheme.size());
  for (std::string_view host : {"huggingface.co/", "www.huggingface.co/", "hf.co/"})
    if (lower_ascii(rest.substr(0, host.size())) == host) return ref_from_url_path(text, rest.substr(host.size() - 1));
  if (rest.size() != text.size()) return std::nullopt;  // a link to another site
  while (text.size() > 1 && text.back() == '/') text.remove_suffix(1);  // "owner/name/" as copied from a path
  const auto slash = text.find('/');
  if (slash == std::string_view::npos || text.find('/', slash + 1) != std::string_view::npos) return std::nullopt;
  const std::string_view owner = text.substr(0, slash);
  if (lower_ascii(owner) == "library") return std::nullopt;  // Ollama's namespace for its own library
  HubRef ref;
  const std::string_view name = split_quant(text.substr(slash + 1), ref);
  if (!ref.quant.empty() && !valid_tag(ref.quant)) return Result<HubRef>(not_a_repo(text, bad_id()));
  // A name with a space is a typed model name, not an id.
  if (!valid_repo_part(owner) || !valid_repo_part(name)) {
    if (text.find(' ') != std::string_view::npos) return std::nullopt;
    return Result<HubRef>(not_a_repo(text, bad_id()));
  }
  ref.repo = std::string(owner) + "/" + std::string(name);
  return Result<HubRef>(std::move(ref));
}

std::optional<OllamaRef> parse_ollama_ref(std::string_view raw) {
  std::string_view text = trimmed(raw);
  for (std::string_view scheme : {"https://", "http://"})
    if (lower_ascii(text.substr(0, scheme.size())) == scheme) text.remove_prefix(scheme.size());
  for (std::string_view host : {"registry.ollama.ai/", "ollama.com/", "www.ollama.com/"})
    if (lower_ascii(text.substr(0, host.size())) == host) text.remove_prefix(host.size());
  OllamaRef ref;
  if (const auto colon = text.rfind(':'); colon != std::string_view::npos) {
    ref.tag = std::string(text.substr(colon + 1));
    text = text.substr(0, colon);
    if (!valid_tag(ref.tag)) return std::nullopt;
  }
  const auto parts = split_path(text);
  if (parts.empty() || parts.size() > 2) return std::nullopt;
  if (parts.size() == 2) ref.ns = std::string(parts[0]);
  ref.name = std::string(parts.back());
  if (!valid_repo_part(ref.name) || !valid_repo_part(ref.ns)) return std::nullopt;
  return ref;
}

Result<RepoListing> read_repo_listing(std::string_view json_text) {
  auto parsed = detail::parse_json(json_text, "the Hub's model API");
  if (!parsed) return parsed.error();
  const json& root = parsed.value();
  if (!root.is_object())
    return make_error("api/models", message("hub.listing_not_object", "the Hub's answer is not a JSON object"));
  FieldReader r(root, "api/models");
  RepoListing out;
  out.id = r.string("id").value_or("");
  out.sha = r.string("sha").value_or("");
  out.pipeline_tag = r.string("pipeline_tag").value_or("");
  if (const json* gated = r.find("gated")) {
    if (gated->is_string()) out.gated = gated->get<std::string>();
    else if (gated->is_boolean()) out.gated = gated->get<bool>() ? "manual" : "";
    else
      r.fail_message("gated", message("hub.gated", "expected false, \"auto\" or \"manual\", got {got}",
                                      {FieldReader::got(*gated)}));
  }
  if (const json* siblings = r.array("siblings")) {
    for (std::size_t i = 0; i < siblings->size(); ++i) {
      FieldReader s((*siblings)[i], r.path("siblings") + "[" + std::to_string(i) + "]");
      RepoFile f;
      f.path = s.string("rfilename").value_or("");
      f.size = s.uint("size").value_or(0);
      if (const json* lfs = s.object("lfs")) {
        FieldReader l(*lfs, s.path("lfs"));
        f.lfs = true;
        f.size = l.uint("size").value_or(f.size);
        if (l.error()) return *l.error();
      }
      if (s.error()) return *s.error();
      if (f.path.empty()) return make_error(s.path("rfilename"), message("hub.sibling_no_name", "missing: every file has a name"));
      out.files.push_back(std::move(f));
    }
  }
  if (const json* st = r.object("safetensors")) {
    FieldReader s(*st, r.path("safetensors"));
    if (const json* params = s.object("parameters")) {
      for (const auto& [dtype, count] : params->items()) {
        FieldReader p(*params, s.path("parameters"));
        const auto n = p.uint(dtype);
        if (p.error()) return *p.error();
        out.safetensors_params.emplace_back(dtype, n.value_or(0));
      }
    }
    out.safetensors_total = s.uint("total").value_or(0);
    if (s.error()) return *s.error();
  }
  if (r.error()) return *r.error();
  return out;
}

namespace {

bool ends_with_ci(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && lower_ascii(s.substr(s.size() - suffix.size())) == suffix;
}

struct GgufName {
  std::string group;  // the path without the split suffix: one quantization's key
  std::string quant;
  unsigned part = 0, parts = 0;  // "-00001-of-00003"; 0 when not split
};

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

// "Q4_K_M/Qwen3-235B-A22B-Q4_K_M-00001-of-00003.gguf" → group without the split suffix, label "Q4_K_M", part 1 of 3.
GgufName read_gguf_name(std::string_view path) {
  GgufName out;
  std::string_view stem = path.substr(0, path.size() - 5);  // ".gguf"
  // gguf-split names its parts "-%05d-of-%05d".
  // llama.cpp reads the suffix with std::regex::icase (get_gguf_split_info), so "-OF-" splits a file as well.
  if (stem.size() > 15 && stem[stem.size() - 15] == '-' && lower_ascii(stem.substr(stem.size() - 9, 4)) == "-of-" &&
      all_digits(stem.substr(stem.size() - 14, 5)) && all_digits(stem.substr(stem.size() - 5))) {
    out.part = static_cast<unsigned>(std::stoul(std::string(stem.substr(stem.size() - 14, 5))));
    out.parts = static_cast<unsigned>(std::stoul(std::string(stem.substr(stem.size() - 5))));
    stem.remove_suffix(15);
  }
  out.group = std::string(stem);
  const auto slash = stem.rfind('/');
  const std::string_view base = slash == std::string_view::npos ? stem : stem.substr(slash + 1);
  const auto cut = base.find_last_of("-.");
  out.quant = std::string(cut == std::string_view::npos ? base : base.substr(cut + 1));
  // unsloth's dynamic quants: "…-UD-Q4_K_XL".
  if (cut != std::string_view::npos && cut >= 3 && lower_ascii(base.substr(cut - 3, 3)) == "-ud")
    out.quant = std::string(base.substr(cut - 2, 3)) + out.quant;
  return out;
}

// The part after the last "/": llama.cpp tests a file's name, not its folders, for "mmproj" and the other sidecars.
std::string_view file_name(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::string gguf_quant_label(std::string_view path) {
  return ends_with_ci(path, ".gguf") ? read_gguf_name(path).quant : std::string();
}

bool is_projector(std::string_view path) {
  return lower_ascii(file_name(path)).find("mmproj") != std::string::npos;
}

std::vector<RepoFile> safetensors_weights(const RepoListing& l, std::vector<std::string>& left_out) {
  std::vector<RepoFile> top, sharded, single;
  for (const RepoFile& f : l.files) {
    if (f.path.find('/') != std::string::npos || !ends_with_ci(f.path, ".safetensors")) continue;
    top.push_back(f);
    const std::string_view stem = std::string_view(f.path).substr(0, f.path.size() - 12);
    if (stem.size() > 15 && stem.substr(stem.size() - 9, 4) == "-of-" && all_digits(stem.substr(stem.size() - 5)))
      sharded.push_back(f);
    else if (f.path == "model.safetensors")
      single.push_back(f);
  }
  std::vector<RepoFile> chosen = !sharded.empty() ? sharded : !single.empty() ? single : std::vector<RepoFile>{};
  if (chosen.empty())
    for (const RepoFile& f : top)
      if (lower_ascii(f.path).find("adapter") == std::string::npos) chosen.push_back(f);
  for (const RepoFile& f : top)
    if (std::none_of(chosen.begin(), chosen.end(), [&](const RepoFile& c) { return c.path == f.path; }))
      left_out.push_back(f.path);
  return chosen;
}

std::vector<GgufChoice> gguf_choices(const RepoListing& listing) {
  std::vector<GgufChoice> out;
  std::map<std::string, std::size_t> by_group;
  std::vector<std::vector<std::pair<unsigned, RepoFile>>> parts;
  for (const RepoFile& f : listing.files) {
    if (!ends_with_ci(f.path, ".gguf") || is_projector(f.path)) continue;
    const GgufName name = read_gguf_name(f.path);
    auto [it, added] = by_group.emplace(name.group, out.size());
    if (added) {
      out.push_back(GgufChoice{name.quant, {}, 0, std::max(name.parts, 1u)});
      parts.emplace_back();
    }
    parts[it->second].emplace_back(name.part, f);
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    std::sort(parts[i].begin(), parts[i].end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& [part, file] : parts[i]) {
      out[i].size += file.size;
      out[i].files.push_back(std::move(file));
    }
  }
  return out;
}

// ggml-org/llama.cpp common/download.cpp at 0216dab3, find_best_model: `std::regex pattern(t + "[.-]",
// std::regex::icase);` over the files in listing order, `if (gguf_filename_is_model(f.path) &&
// std::regex_search(f.path, pattern))`, skipping `split.count > 1 && split.index != 1`; gguf_filename_is_model keeps a
// path ending ".gguf" whose file name holds none of "mmproj", "imatrix", "mtp-", "eagle3-", "dflash-", "dspark-".
std::string llama_tag_pick(const RepoListing& listing, std::string_view quant) {
  const std::string tag = lower_ascii(quant);
  if (tag.empty()) return {};
  for (const RepoFile& f : listing.files) {
    if (!f.path.ends_with(".gguf")) continue;
    // gguf_filename_is_model's find() is case-sensitive: "MMPROJ-…" stays a model file for -hf, unlike is_projector.
    const std::string_view name = file_name(f.path);
    bool sidecar = false;
    for (std::string_view word : {"mmproj", "imatrix", "mtp-", "eagle3-", "dflash-", "dspark-"})
      sidecar = sidecar || name.find(word) != std::string_view::npos;
    if (sidecar) continue;
    const std::string path = lower_ascii(f.path);
    bool matches = false;
    for (auto at = path.find(tag); at != std::string::npos && !matches; at = path.find(tag, at + 1))
      matches = at + tag.size() < path.size() && (path[at + tag.size()] == '.' || path[at + tag.size()] == '-');
    if (!matches) continue;
    const GgufName parts = read_gguf_name(f.path);
    if (parts.parts > 1 && parts.part != 1) continue;
    return f.path;
  }
  return {};
}

std::optional<std::pair<std::size_t, GgufPick>> pick_gguf(const std::vector<GgufChoice>& choices,
                                                           std::string_view quant) {
  const std::string wanted = lower_ascii(quant.empty() ? std::string_view("q4_k_m") : quant);
  const GgufPick how = quant.empty() ? GgufPick::default_q4_k_m : GgufPick::asked;
  for (std::size_t i = 0; i < choices.size(); ++i)
    if (lower_ascii(choices[i].quant) == wanted) return std::pair{i, how};
  // unsloth's docs write ":Q4_K_XL" for the file labelled UD-Q4_K_XL: one label ending so is the one meant.
  if (!quant.empty()) {
    std::vector<std::size_t> ending;
    for (std::size_t i = 0; i < choices.size(); ++i)
      if (lower_ascii(choices[i].quant).ends_with("-" + wanted)) ending.push_back(i);
    if (ending.size() == 1) return std::pair{ending.front(), how};
  }
  if (quant.empty() && !choices.empty()) return std::pair{std::size_t{0}, GgufPick::first_file};
  return std::nullopt;
}

Result<std::vector<OllamaLayer>> read_ollama_manifest(std::string_view json_text) {
  auto parsed = detail::parse_json(json_text, "manifest");
  if (!parsed) return parsed.error();
  FieldReader r(parsed.value(), "manifest");
  std::vector<OllamaLayer> out;
  if (const json* layers = r.array("layers")) {
    for (std::size_t i = 0; i < layers->size(); ++i) {
      FieldReader l((*layers)[i], r.path("layers") + "[" + std::to_string(i) + "]");
      OllamaLayer layer{l.string("mediaType").value_or(""), l.string("digest").value_or(""), l.uint("size").value_or(0)};
      if (l.error()) return *l.error();
      const std::string_view d = layer.digest;
      bool hex = d.size() == 71 && d.starts_with("sha256:");
      for (std::size_t k = 7; hex && k < d.size(); ++k) hex = (d[k] >= '0' && d[k] <= '9') || (d[k] >= 'a' && d[k] <= 'f');
      if (!hex)
        return make_error(l.path("digest"), message("ollama.digest", "expected sha256: and 64 hex digits"));
      out.push_back(std::move(layer));
    }
  }
  if (r.error()) return *r.error();
  if (!parsed.value().is_object() || !r.find("layers"))
    return make_error("manifest.layers", message("ollama.no_layers", "missing: a manifest lists its layers"));
  return out;
}

}  // namespace vramfit
