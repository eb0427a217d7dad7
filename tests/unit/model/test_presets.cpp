// The preset catalog (data/models.json): published parameter counts and how people find a preset.
#include <algorithm>  // std::max
#include <cmath>      // std::abs
#include <cstdint>    // std::uint64_t
#include <string>     // std::string

#include "../test_support.hpp"
#include "vramfit/vramfit.hpp"  // catalog_to_json

using namespace vramfit;

namespace {

// A published count holds to 0.5 %, or to half the unit its figure is rounded to when the publisher rounded
// harder than that ("1T", "17B": data/models.json says so in published_params.rounded_to).
bool matches_published(std::uint64_t computed, std::uint64_t published, std::uint64_t rounded_to) {
  const double allowed = std::max(0.005 * static_cast<double>(published), static_cast<double>(rounded_to) / 2);
  return std::abs(static_cast<double>(computed) - static_cast<double>(published)) <= allowed;
}

}  // namespace

TEST_CASE("every preset's computed parameter count matches its published count") {
  // The figures and their sources are in data/models.json ("published_params": source and what the figure
  // includes). Where a figure counts something our count does not (an MTP module, a vision tower, the input
  // embedding in active counts), the data holds the comparable figure and says how it follows from the published one.
  const char* required[] = {"llama-2-7b",  "llama-2-13b", "llama-2-70b", "llama-3.1-8b", "llama-3.1-70b",
                            "llama-3.1-405b", "mistral-7b", "mixtral-8x7b", "qwen2.5-7b", "qwen2.5-72b",
                            "gemma-2-9b", "gemma-2-27b", "phi-3-mini", "gpt2", "bert-base", "falcon-7b",
                            "falcon-40b", "deepseek-v3", "gpt-oss-20b", "qwen3-30b-a3b", "kimi-k2", "qwen3.5-27b",
                            "qwen3.5-35b-a3b", "qwen3.5-122b-a10b", "qwen3.5-397b-a17b", "qwen3.6-27b",
                            "qwen3.6-35b-a3b", "qwen3-next-80b-a3b", "qwen3-vl-8b", "qwen3-vl-30b-a3b",
                            "qwen3-vl-235b-a22b", "gemma-4-26b-a4b", "gemma-4-31b", "llama-4-scout",
                            "llama-4-maverick", "nemotron-3-nano-30b-a3b", "nemotron-3-super-120b-a12b",
                            "nemotron-3-ultra-550b-a55b", "nemotron-h-56b", "mimo-v2-flash", "kimi-k2.5",
                            "glm-4.7-flash"};
  for (const char* id : required) {
    const ModelPreset* p = find_model(test::catalog().models, id);
    REQUIRE_MESSAGE(p != nullptr, id);
    CHECK_MESSAGE(p->published_total > 0, id << " needs a published parameter count");
  }
  int totals = 0;
  int actives = 0;
  for (const auto& p : test::catalog().models) {
    if (p.published_total == 0) continue;
    CAPTURE(p.id);
    REQUIRE(p.model.get().ok());
    const ModelSpec& spec = p.model.get().value();
    auto counts = count_params(spec);
    REQUIRE(counts.ok());
    std::uint64_t total = counts.value().total;
    // Falcon checkpoints store lm_head as a second copy of the embeddings (vLLM PR #3590), so the
    // published file count has vocab × hidden more than the tied model transformers loads.
    if (spec.architecture == "falcon") total += spec.vocab_size * spec.hidden_size;
    CHECK(matches_published(total, p.published_total, p.published_total_rounded_to));
    ++totals;
    if (p.published_active == 0) continue;
    CHECK(matches_published(counts.value().active, p.published_active, p.published_active_rounded_to));
    ++actives;
  }
  CHECK(totals >= 69);
  CHECK(actives >= 25);
}

TEST_CASE("every preset's config reads") {
  // The catalog reads a preset's config when a question first uses it, so opening it checks none.
  for (const auto& p : test::catalog().models) {
    CAPTURE(p.id);
    const Result<ModelSpec>& spec = p.model.get();
    CHECK_MESSAGE(spec.ok(), (spec.ok() ? "" : spec.error().field + ": " + spec.error().message.text));
    if (spec.ok()) CHECK(spec.value().id == p.id);
  }
}

TEST_CASE("a preset's config is read when it is used, and its fault names the field") {
  // The compiled-in copy names each config's JSON text by its index (cmake/embed_data.cmake); data/models.json
  // holds the object.
  using namespace std::string_view_literals;
  const std::string_view configs[] = {
      R"({"model_type":"llama","hidden_size":64,"num_hidden_layers":1,"num_attention_heads":1,)"
      R"("intermediate_size":64,"vocab_size":10})"sv};
  const char* text = R"({"models":[{"id":"a","config":0},{"id":"b","config":{"model_type":"llama","hidden_size":-1}}]})";
  auto presets = parse_model_presets(text, configs);
  REQUIRE(presets.ok());
  REQUIRE(presets.value().size() == 2);
  const Result<ModelSpec>& a = presets.value()[0].model.get();
  REQUIRE(a.ok());
  CHECK(a.value().id == "a");
  CHECK(a.value().hidden_size == 64);
  const Result<ModelSpec>& b = presets.value()[1].model.get();
  REQUIRE_FALSE(b.ok());
  CHECK(b.error().field.starts_with("models[1].config"));
  // An index past the texts given, or a config as a string, is refused when the catalog opens.
  auto past = parse_model_presets(R"({"models":[{"id":"a","config":1}]})", configs);
  REQUIRE_FALSE(past.ok());
  CHECK(past.error().field == "models[0].config");
  auto as_text = parse_model_presets(R"({"models":[{"id":"a","config":"{}"}]})", configs);
  REQUIRE_FALSE(as_text.ok());
  CHECK(as_text.error().field == "models[0].config");
}

TEST_CASE("a rounded published count allows half its unit, never more") {
  // Kimi K2's card says "1T": any count from 0.5T to 1.5T is consistent with it. Without a rounding unit 0.5 %
  // holds: 100B published allows 100.5B, not 101B; "100B" rounded to 10B allows 104B, not 106B.
  CHECK(matches_published(1'026'408'000'000ULL, 1'000'000'000'000ULL, 1'000'000'000'000ULL));
  CHECK(matches_published(100'500'000'000ULL, 100'000'000'000ULL, 0));
  CHECK_FALSE(matches_published(101'000'000'000ULL, 100'000'000'000ULL, 0));
  CHECK(matches_published(104'000'000'000ULL, 100'000'000'000ULL, 10'000'000'000ULL));
  CHECK_FALSE(matches_published(106'000'000'000ULL, 100'000'000'000ULL, 10'000'000'000ULL));
}

TEST_CASE("today's models come before the old presets") {
  const auto& models = test::catalog().models;
  REQUIRE(models.size() >= 60);
  auto position = [&](const char* id) {
    for (std::size_t i = 0; i < models.size(); ++i)
      if (models[i].id == id) return i;
    FAIL("missing preset " << id);
    return models.size();
  };
  for (const char* old : {"llama-2-7b", "gpt2", "bert-base", "falcon-7b", "opt-13b"})
    for (const char* current : {"glm-5", "gpt-oss-120b", "qwen3-30b-a3b", "deepseek-r1", "llama-3.1-8b",
                                "qwen3.5-397b-a17b", "gemma-4-31b", "llama-4-scout", "nemotron-3-super-120b-a12b"}) {
      CAPTURE(old);
      CAPTURE(current);
      CHECK(position(current) < position(old));
    }
}

TEST_CASE("a preset is found by its id, name, Hugging Face repo or Ollama tag, in any case") {
  const auto& models = test::catalog().models;
  auto id_of = [&](const char* text) {
    const ModelPreset* p = find_model(models, text);
    return p ? p->id : std::string("(none)");
  };
  CHECK(id_of("Qwen/Qwen3-30B-A3B") == "qwen3-30b-a3b");
  CHECK(id_of("qwen/qwen3-30b-a3b") == "qwen3-30b-a3b");
  CHECK(id_of("qwen3:30b-a3b") == "qwen3-30b-a3b");
  CHECK(id_of("qwen3:30b") == "qwen3-30b-a3b");
  CHECK(id_of("gpt-oss:20b") == "gpt-oss-20b");
  CHECK(id_of("openai/gpt-oss-120b") == "gpt-oss-120b");
  CHECK(id_of("GPT-OSS-120B") == "gpt-oss-120b");
  CHECK(id_of("llama3.1:8b") == "llama-3.1-8b");
  CHECK(id_of("meta-llama/Llama-3.1-8B") == "llama-3.1-8b");
  CHECK(id_of("Kimi-K2-Instruct") == "kimi-k2");
  CHECK(id_of("deepseek-r1:671b") == "deepseek-r1");
  CHECK(id_of("gemma4:26b") == "gemma-4-26b-a4b");
  CHECK(id_of("Qwen/Qwen3.5-397B-A17B") == "qwen3.5-397b-a17b");
  CHECK(id_of("meta-llama/Llama-4-Scout-17B-16E-Instruct") == "llama-4-scout");
  CHECK(id_of("nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-BF16") == "nemotron-3.5-lightning-30b-a3b");
  CHECK(id_of("Kimi-K2.5") == "kimi-k2.5");
  CHECK(id_of("qwen3:") == "(none)");
  CHECK(id_of("") == "(none)");
  CHECK(id_of("qwen3:31b") == "(none)");
}

TEST_CASE("an Ollama library name is its tag latest, never another name that contains it") {
  const auto& models = test::catalog().models;
  // `ollama pull llama3.3` pulls llama3.3:latest (a name without a tag gets "latest"); Llama 3.3 is published in one
  // size, 70B (meta-llama/Llama-3.3-70B-Instruct), so Ollama's latest is its 70b tag.
  auto found = resolve_model(models, "llama3.3");
  REQUIRE(found.ok());
  CHECK(found.value().preset->id == "llama-3.3-70b");
  CHECK(found.value().note.text == "\"llama3.3\" read as Llama-3.3-70B-Instruct: Ollama's llama3.3 is its tag latest, the "
                              "same weights as llama3.3:70b.");
  // A library whose latest no preset lists: its own presets only, not Llama-3.3-Nemotron or a distilled Llama.
  auto library = resolve_model(models, "llama3.1");
  REQUIRE_FALSE(library.ok());
  CHECK(library.error().message.text.starts_with("\"llama3.1\" could be llama-3.1-405b, llama-3.1-70b, llama-3.1-8b; name one"));
  // One preset of a library is not picked either: qwen3-coder's latest is not known to be the 480b one.
  auto one = resolve_model(models, "qwen3-coder");
  REQUIRE_FALSE(one.ok());
  CHECK(one.error().message.text.starts_with("\"qwen3-coder\" could be qwen3-coder-480b-a35b; name one"));
}

TEST_CASE("every id, name, repo and tag leads to its own preset") {
  // find_model takes the first match: a key two presets share would hide the second one.
  for (const auto& p : test::catalog().models) {
    CAPTURE(p.id);
    CHECK(find_model(test::catalog().models, p.id) == &p);
    CHECK(find_model(test::catalog().models, p.name) == &p);
    if (!p.hf_repo.empty()) CHECK(find_model(test::catalog().models, p.hf_repo) == &p);
    for (const auto& tag : p.ollama) {
      CAPTURE(tag.tag);
      CHECK(find_model(test::catalog().models, tag.tag) == &p);
    }
  }
}

TEST_CASE("an Ollama tag is a non-empty string, or its quant with the source that publishes it") {
  const char* base = R"({"models":[{"id":"m","config":{"model_type":"llama","hidden_size":64,"num_hidden_layers":1,
      "num_attention_heads":1,"intermediate_size":64,"vocab_size":10},"ollama":)";
  auto bad = parse_model_presets(std::string(base) + R"(["m:1b", 3]}]})");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().field == "models[0].ollama[1]");
  auto unsourced = parse_model_presets(std::string(base) + R"([{"tag":"m:1b","quant":"Q4_K_M"}]}]})");
  REQUIRE_FALSE(unsourced.ok());
  CHECK(unsourced.error().field == "models[0].ollama[0].source");
  auto good = parse_model_presets(std::string(base) + R"(["m:1b",{"tag":"m:2b","quant":"Q8_0","source":"a page"}]}]})");
  REQUIRE(good.ok());
  const auto& tags = good.value().front().ollama;
  REQUIRE(tags.size() == 2);
  CHECK(tags[0].tag == "m:1b");
  CHECK(tags[0].quant.empty());
  CHECK(tags[1].tag == "m:2b");
  CHECK(tags[1].quant == "Q8_0");
  CHECK(tags[1].source == "a page");
}

TEST_CASE("a name in Ollama's form is read as that tag; the preset's id, name or repository is not") {
  const auto& models = test::catalog().models;
  auto tag_of = [&](const char* text) {
    auto found = resolve_model(models, text);
    REQUIRE(found.ok());
    return found.value().ollama ? found.value().ollama->tag : std::string("(none)");
  };
  CHECK(tag_of("llama3.1:8b") == "llama3.1:8b");
  CHECK(tag_of("Llama3.1:8B") == "llama3.1:8b");
  CHECK(tag_of("qwen3:30b-a3b") == "qwen3:30b-a3b");
  CHECK(tag_of("llama3.3") == "llama3.3:latest");  // `ollama pull llama3.3` pulls its tag latest
  CHECK(tag_of("llama-3.1-8b") == "(none)");
  CHECK(tag_of("meta-llama/Llama-3.1-8B") == "(none)");
  CHECK(tag_of("Llama-3.1-8B") == "(none)");
  CHECK(tag_of("glm-4.7-flash") == "(none)");  // the preset's own id, though Ollama has a library of that name
}

TEST_CASE("the catalog JSON carries each preset's Ollama tags for the page's search") {
  const std::string json = catalog_to_json(test::catalog());
  CHECK(json.find(R"("hf_repo":"Qwen/Qwen3-30B-A3B","id":"qwen3-30b-a3b")") != std::string::npos);
  CHECK(json.find(R"("ollama":["qwen3:30b","qwen3:30b-a3b"])") != std::string::npos);
  CHECK(json.find(R"j("id":"gpt2","name":"GPT-2 (124M)","ollama":[])j") != std::string::npos);
}

TEST_CASE("a model is found by the names people write, and the reading is said") {
  const auto& presets = test::catalog().models;
  // A fine-tuned variant's Hugging Face id has the base model's architecture (the same config.json shapes).
  auto instruct = resolve_model(presets, "meta-llama/Llama-3.1-70B-Instruct");
  REQUIRE(instruct.ok());
  CHECK(instruct.value().preset->id == "llama-3.1-70b");
  CHECK(instruct.value().note.text.find("read as Llama 3.1 70B") != std::string::npos);
  // A preset's own id: no note.
  auto own = resolve_model(presets, "Llama-3.1-8B");
  REQUIRE(own.ok());
  CHECK(own.value().note.empty());
  // A family name: refused with the presets it could be and how to use another model.
  auto family = resolve_model(presets, "gpt-oss");
  REQUIRE_FALSE(family.ok());
  CHECK(family.error().field == "model");
  CHECK(family.error().message.text.find("gpt-oss-120b, gpt-oss-20b; name one") != std::string::npos);
  CHECK(family.error().message.text.find("config.json") != std::string::npos);
  // A typo: the closest ids, never the whole list.
  auto typo = resolve_model(presets, "llma-3.1-8b");
  REQUIRE_FALSE(typo.ok());
  CHECK(typo.error().message.text.find("closest: llama-3.1-8b") != std::string::npos);
  CHECK(typo.error().message.text.size() < 250);
}
