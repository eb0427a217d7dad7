#include "model/model_presets.hpp"

#include <mutex>     // std::once_flag, std::call_once
#include <optional>  // std::optional
#include <utility>   // std::move

#include "model/hf_config_json.hpp"
#include "util/text.hpp"  // lookup_key, lower_ascii, name_key, contains_name_part, closest_names

namespace vramfit {

using detail::FieldReader;
using detail::json;

struct PresetModel::State {
  std::string owned_config;
  std::string_view config_json;  // owned_config, or a text that outlives the program's presets
  std::string path, id, name;
  std::uint64_t default_context = 0;
  std::once_flag read;
  std::optional<Result<ModelSpec>> spec;
};

PresetModel::PresetModel(std::string config_json, std::string path, std::string id, std::string name,
                         std::uint64_t default_context)
    : PresetModel(std::string_view(), std::move(path), std::move(id), std::move(name), default_context) {
  state_->owned_config = std::move(config_json);
  state_->config_json = state_->owned_config;
}

PresetModel::PresetModel(std::string_view static_config_json, std::string path, std::string id, std::string name,
                         std::uint64_t default_context)
    : state_(std::make_shared<State>()) {
  state_->config_json = static_config_json;
  state_->path = std::move(path);
  state_->id = std::move(id);
  state_->name = std::move(name);
  state_->default_context = default_context;
}

namespace {

Result<ModelSpec> read_preset(std::string_view config_json, const std::string& path) {
  auto config = detail::parse_json(config_json, path);
  if (!config) return config.error();
  if (!config.value().is_object()) return make_error(path, message("catalog.expected_object", "expected an object"));
  return detail::model_from_config_object(config.value(), path);
}

}  // namespace

const Result<ModelSpec>& PresetModel::get() const {
  State& s = *state_;
  std::call_once(s.read, [&s] {
    auto spec = read_preset(s.config_json, s.path);
    if (spec) {
      spec.value().id = s.id;
      spec.value().name = s.name;
      if (s.default_context != 0) spec.value().default_context = s.default_context;
    }
    s.spec = std::move(spec);
    s.owned_config = std::string();  // read once: the text is no longer needed
    s.config_json = {};
  });
  return *s.spec;
}

namespace {

// A preset's config: an object (data/models.json) or the index of its JSON text in `configs` (the compiled-in
// copy, cmake/embed_data.cmake), so opening the catalog parses no config.
std::optional<PresetModel> preset_model(FieldReader& r, const json& item, std::span<const std::string_view> configs,
                                        const ModelPreset& p) {
  std::string path = r.path("config");
  const auto found = item.find("config");
  if (found != item.end() && found->is_number_unsigned()) {
    const auto index = found->get<std::uint64_t>();
    if (index >= configs.size()) return std::nullopt;
    return PresetModel(configs[index], std::move(path), p.id, p.name, p.default_context);
  }
  // not config->dump(): nlohmann's serializer stays out of the wasm
  if (const json* config = r.object("config"))
    return PresetModel(detail::dump(*config), std::move(path), p.id, p.name, p.default_context);
  return std::nullopt;
}

// A tag is its name ("llama3.1:8b"), or {tag, quant, source} where a page says which GGUF file type it ships.
Result<OllamaTag> ollama_tag(const json& item, const std::string& path) {
  if (item.is_string() && !item.get_ref<const std::string&>().empty()) return OllamaTag{item.get<std::string>(), "", ""};
  if (!item.is_object())
    return make_error(path, message("presets.tag", "must be an Ollama tag: a non-empty string, or {tag, quant, source}"));
  FieldReader r(item, path);
  OllamaTag out{r.string("tag").value_or(""), r.string("quant").value_or(""), r.string("source").value_or("")};
  if (r.error()) return *r.error();
  if (out.tag.empty())
    return make_error(path + ".tag", message("presets.tag_name", "must be a non-empty string (an Ollama tag)"));
  if (out.quant.empty() != out.source.empty())
    return make_error(path + (out.quant.empty() ? ".quant" : ".source"),
                      message("presets.tag_quant",
                              "a tag's quant goes with the source that publishes it: give both or neither"));
  return out;
}

}  // namespace

Result<std::vector<ModelPreset>> parse_model_presets(std::string_view json_text,
                                                     std::span<const std::string_view> configs) {
  auto parsed = detail::parse_json(json_text, "models.json");
  if (!parsed) return parsed.error();
  FieldReader root(parsed.value(), "");
  const json* list = root.array("models");
  if (!list) return root.error().value_or(make_error("models", message("presets.no_models", "missing the \"models\" array")));
  std::vector<ModelPreset> out;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const std::string path = "models[" + std::to_string(i) + "]";
    const json& item = (*list)[i];
    if (!item.is_object()) return make_error(path, message("catalog.expected_object", "expected an object"));
    FieldReader r(item, path);
    ModelPreset p;
    p.id = r.string("id").value_or("");
    p.name = r.string("name").value_or(p.id);
    p.default_context = r.uint("default_context").value_or(0);
    auto model = preset_model(r, item, configs, p);
    if (!model)
      return r.error().value_or(make_error(
          path + ".config", configs.empty() ? message("presets.no_config", "missing: give the config.json object")
                                            : message("presets.no_config_index", "missing, or not a config's index")));
    p.model = std::move(*model);
    p.hf_repo = r.string("hf_repo").value_or("");
    if (const json* tags = r.array("ollama")) {
      for (std::size_t t = 0; t < tags->size(); ++t) {
        auto tag = ollama_tag((*tags)[t], path + ".ollama[" + std::to_string(t) + "]");
        if (!tag) return tag.error();
        p.ollama.push_back(std::move(tag).value());
      }
    }
    p.config_source = r.string("config_source").value_or("");
    if (const json* published = r.object("published_params")) {
      FieldReader pub(*published, path + ".published_params");
      p.published_total = pub.uint("total").value_or(0);
      p.published_active = pub.uint("active").value_or(0);
      p.published_source = pub.string("source").value_or("");
      if (const json* rounded = pub.object("rounded_to")) {
        FieldReader unit(*rounded, pub.path("rounded_to"));
        p.published_total_rounded_to = unit.uint("total").value_or(0);
        p.published_active_rounded_to = unit.uint("active").value_or(0);
        if (unit.error()) return *unit.error();
      }
      if (pub.error()) return *pub.error();
    }
    if (r.error()) return *r.error();
    if (p.id.empty()) return make_error(path + ".id", message("presets.id", "must be a non-empty string"));
    for (const auto& existing : out)
      if (lookup_key(existing.id) == lookup_key(p.id))
        return make_error(path + ".id", message("catalog.duplicate_id", "duplicate id {id}", {arg::text("id", p.id)}));
    out.push_back(std::move(p));
  }
  return out;
}

namespace {

bool answers_to(const ModelPreset& p, const std::string& key) {
  if (lookup_key(p.id) == key || lookup_key(p.name) == key || lookup_key(p.hf_repo) == key) return true;
  for (const auto& tag : p.ollama)
    if (lookup_key(tag.tag) == key) return true;
  return false;
}

// "name" and "name:latest" are one tag, as `ollama pull` reads a name without one.
std::string with_tag(std::string_view name) {
  std::string out = lower_ascii(name);
  return out.find(':') == std::string::npos ? out + ":latest" : out;
}

// The preset's tag that `text` is written as, in Ollama's form (its letters as Ollama has them, any case). The
// preset's own id wins where a library has the same name ("glm-4.7-flash").
const OllamaTag* tag_named(const ModelPreset& p, std::string_view text) {
  if (lower_ascii(text) == lower_ascii(p.id)) return nullptr;
  const std::string wanted = with_tag(text);
  for (const auto& tag : p.ollama)
    if (with_tag(tag.tag) == wanted) return &tag;
  return nullptr;
}

}  // namespace

const ModelPreset* find_model(const std::vector<ModelPreset>& presets, std::string_view id) noexcept {
  const std::string key = lookup_key(id);
  if (key.empty()) return nullptr;
  for (const auto& p : presets)
    if (answers_to(p, key)) return &p;
  return nullptr;
}

namespace {

// Repository suffixes of fine-tuned or renamed variants whose architecture is the base model's.
constexpr std::string_view kVariantSuffixes[] = {"-instruct", "-it", "-chat", "-base", "-hf", "-fp16", "-bf16"};

std::string without_variant_suffixes(std::string name) {
  for (bool stripped = true; stripped;) {
    stripped = false;
    const std::string lower = lower_ascii(name);
    for (std::string_view suffix : kVariantSuffixes) {
      if (lower.size() > suffix.size() && lower.ends_with(suffix)) {
        name.resize(name.size() - suffix.size());
        stripped = true;
        break;
      }
    }
  }
  return name;
}

// The first `most` ids, comma-separated; the rest are counted in the message.
std::string listed(const std::vector<const ModelPreset*>& presets, std::size_t most) {
  std::string out;
  for (std::size_t i = 0; i < presets.size() && i < most; ++i) out += (i ? ", " : "") + presets[i]->id;
  return out;
}

Error ambiguous(std::string_view given, const std::vector<const ModelPreset*>& matches, std::size_t most) {
  const MessageArg g = arg::text("given", given);
  const MessageArg names = arg::text("names", listed(matches, most));
  if (matches.size() <= most)
    return make_error("model", message("model.ambiguous",
                                       "\"{given}\" could be {names}; name one, or for a model without a preset: drop "
                                       "or paste its config.json (or pass its path)",
                                       {g, names}));
  return make_error("model", message("model.ambiguous_more",
                                     "\"{given}\" could be {names} and {more} more; name one, or for a model without a "
                                     "preset: drop or paste its config.json (or pass its path)",
                                     {g, names, arg::digits("more", matches.size() - most)}));
}

// An Ollama library name without its tag ("llama3.3") is that library's "latest" tag, as `ollama pull` reads it: the
// preset listing that tag. When none lists it, the library's presets are the ones the name could mean, never the
// other names that contain it ("llama-3.3-nemotron-super-49b"); one of them alone is not picked, as "latest" may be
// another size. None: the name is not a library's.
std::optional<Result<ModelLookup>> ollama_library(const std::vector<ModelPreset>& presets, std::string_view text) {
  const std::string name = lower_ascii(text);
  if (name.empty() || name.find_first_of(":/") != std::string::npos) return std::nullopt;
  std::vector<const ModelPreset*> library;
  for (const auto& p : presets) {
    for (const auto& tag : p.ollama) {
      if (lower_ascii(tag.tag) != name + ":latest") continue;
      std::string same = tag.tag;
      for (const auto& other : p.ollama)
        if (lower_ascii(other.tag).starts_with(name + ":") && other.tag != tag.tag) same = other.tag;
      return ModelLookup{&p,
                         message("name.model_ollama_latest",
                                 "\"{given}\" read as {name}: Ollama's {given} is its tag latest, the same weights "
                                 "as {tag}.",
                                 {arg::text("given", text), arg::text("name", p.name), arg::text("tag", same)}),
                         &tag};
    }
    for (const auto& tag : p.ollama)
      if (lower_ascii(tag.tag).starts_with(name + ":") && (library.empty() || library.back() != &p)) library.push_back(&p);
  }
  if (library.empty()) return std::nullopt;
  return Result<ModelLookup>(ambiguous(text, library, 8));
}

}  // namespace

Result<ModelLookup> resolve_model(const std::vector<ModelPreset>& presets, std::string_view text) {
  if (const ModelPreset* exact = find_model(presets, text)) return ModelLookup{exact, {}, tag_named(*exact, text)};
  const auto slash = text.rfind('/');
  const std::string repo_name = std::string(slash == std::string_view::npos ? text : text.substr(slash + 1));
  const std::string base = without_variant_suffixes(repo_name);
  for (const std::string& candidate : {repo_name, base}) {
    if (const ModelPreset* p = find_model(presets, candidate))
      return ModelLookup{p, message("name.model_same_architecture", "\"{given}\" read as {name} (the same architecture).",
                                    {arg::text("given", text), arg::text("name", p->name)})};
  }
  if (auto library = ollama_library(presets, text)) return std::move(library).value();
  const std::string key = name_key(base);
  std::vector<const ModelPreset*> matches;
  for (const auto& p : presets)
    if (contains_name_part(name_key(p.id), key) || contains_name_part(name_key(p.name), key))
      matches.push_back(&p);
  if (matches.size() == 1)
    return ModelLookup{matches.front(), message("name.model_read_as", "\"{given}\" read as {name}.",
                                                {arg::text("given", text), arg::text("name", matches.front()->name)})};
  if (matches.size() > 1) return ambiguous(text, matches, 8);
  std::vector<std::string> ids;
  for (const auto& p : presets) ids.push_back(p.id);
  const auto closest = closest_names(ids, base, 3);
  std::string hint;
  for (std::size_t i = 0; i < closest.size(); ++i) hint += (i ? ", " : "") + closest[i];
  if (hint.empty())
    return make_error("model", message("model.unknown",
                                       "no preset is called \"{given}\"; for a model without a preset: drop or paste "
                                       "its config.json (or pass its path)",
                                       {arg::text("given", text)}));
  return make_error("model", message("model.unknown_closest",
                                     "no preset is called \"{given}\" (closest: {closest}); for a model without a "
                                     "preset: drop or paste its config.json (or pass its path)",
                                     {arg::text("given", text), arg::text("closest", hint)}));
}

}  // namespace vramfit
