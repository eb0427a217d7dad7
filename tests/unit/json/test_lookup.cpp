// Looking a model up by name: what a client must read (bounded) and how a failed read reads to a person.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cstdio>  // std::snprintf

#include "../test_support.hpp"
#include "vramfit/lookup.hpp"

using namespace vramfit;
using nlohmann::json;

namespace {
json named(std::string_view name, std::string_view revision = "") {
  return json::parse(read_model_name(test::catalog(), name, revision));
}
json plan(std::string_view name, const json& listing) { return json::parse(plan_hub_reads(name, "", listing.dump())); }
std::string failure(const json& f) { return json::parse(lookup_failure(f.dump()))["error"]["message"]["text"]; }

const json kPhi4 = {
    {"id", "microsoft/phi-4"}, {"sha", "187ef0342fff0eb3333be9f00389385e95ef0b61"}, {"gated", false},
    {"siblings", {{{"rfilename", "config.json"}, {"size", 820}},
                  {{"rfilename", "model-00001-of-00002.safetensors"}, {"size", 4933658528}},
                  {{"rfilename", "model-00002-of-00002.safetensors"}, {"size", 100}},
                  {{"rfilename", "model.safetensors.index.json"}, {"size", 20000}}}},
    {"safetensors", {{"parameters", {{"BF16", 14659507200}}}, {"total", 14659507200}}}};
}  // namespace

TEST_CASE("a path is a file for every client: its ending or a leading / or ./, never a link") {
  for (const char* path : {"m.gguf", "Model.GGUF", "./config.json", "/models/qwen3", "../checkpoint",
                           "org/repo/model-Q4_K_M.gguf", "x.safetensors"}) {
    CAPTURE(path);
    CHECK(names_a_path(path));
    CHECK(named(path)["kind"] == "file");
    CHECK(named(path)["name"] == path);
  }
  for (const char* name : {"phi4", "qwen3:32b", "microsoft/phi-4", ".hidden", "mtp",
                           "https://huggingface.co/unsloth/gpt-oss-20b-GGUF/blob/main/gpt-oss-20b-Q4_K_M.gguf",
                           "hf.co/unsloth/gpt-oss-20b-GGUF/blob/main/gpt-oss-20b-Q4_K_M.gguf"}) {
    CAPTURE(name);
    CHECK_FALSE(names_a_path(name));
  }
}

TEST_CASE("a preset's own repository stays the preset; another repository, a :QUANT or a link goes to the Hub") {
  CHECK(named("llama-3.1-8b")["kind"] == "preset");
  const json own = named("meta-llama/Llama-3.1-8B-Instruct");  // the -Instruct twin of the preset's repository
  CHECK(own["kind"] == "preset");
  const json other = named("microsoft/phi-4");
  CHECK(other["kind"] == "hub");
  CHECK(other["listing"] == "/api/models/microsoft/phi-4?blobs=true");
  CHECK(other["max_bytes"] == 16 * 1024 * 1024);  // 16 MiB: a listing of thousands of files is a few MB
  // huggingface_hub quotes a revision with quote(revision, safe=""): refs/pr/1 → refs%2Fpr%2F1.
  CHECK(named("microsoft/phi-4", "refs/pr/1")["listing"] == "/api/models/microsoft/phi-4/revision/refs%2Fpr%2F1?blobs=true");
  CHECK(named("meta-llama/Llama-3.1-8B", "main")["kind"] == "hub");
  CHECK(named("unsloth/gpt-oss-20b-GGUF:Q4_K_M")["quant"] == "Q4_K_M");
}

TEST_CASE("a preset named by its Ollama tag says where the registry keeps that tag's file") {
  const json tag = named("llama3.1:8b");
  CHECK(tag["kind"] == "preset");
  CHECK(tag["model"] == "llama-3.1-8b");
  CHECK(tag["ollama"]["manifest"] == "/v2/library/llama3.1/manifests/8b");
  CHECK(tag["ollama"]["tag"] == "8b");
  // Where that file cannot be read the preset answers, and the client's summary says so in the page's languages.
  CHECK(tag["ollama"]["unread"]["id"] == "lookup.ollama_unread");
  CHECK(tag["ollama"]["unread"]["text"] == "Ollama's llama3.1:8b was not read; answered without its file.");
  CHECK(named("llama3.3")["ollama"]["manifest"] == "/v2/library/llama3.3/manifests/latest");
  CHECK_FALSE(named("llama-3.1-8b").contains("ollama"));
}

TEST_CASE("a bare name no preset holds is an Ollama model, with why it is no preset beside it") {
  const json phi = named("phi4");
  CHECK(phi["kind"] == "ollama");
  CHECK(phi["manifest"] == "/v2/library/phi4/manifests/latest");  // Docker registry v2: /v2/<name>/manifests/<ref>
  CHECK(phi["preset_error"]["text"].get<std::string>().find("no preset") != std::string::npos);
  CHECK(named("granite4:tiny-h")["manifest"] == "/v2/library/granite4/manifests/tiny-h");
  CHECK(named("Some Model 7B")["ok"] == false);
}

TEST_CASE("a safetensors repository is read by config.json and each shard's header, from the listing's commit") {
  const json p = plan("microsoft/phi-4", kPhi4);
  REQUIRE(p["ok"] == true);
  CHECK(p["kind"] == "safetensors");
  CHECK(p["texts"][0]["path"] == "/microsoft/phi-4/resolve/187ef0342fff0eb3333be9f00389385e95ef0b61/config.json");
  REQUIRE(p["headers"].size() == 2);
  CHECK(p["headers"][0]["size"] == 4933658528);
  // "14,659,507,200 parameters (BF16)": the model API's safetensors.total, as the listing gives it.
  CHECK(p["summary"]["text"].get<std::string>().find("14,659,507,200 parameters (BF16)") != std::string::npos);
  CHECK(p["summary"]["text"].get<std::string>().find("4,933,658,628 B") != std::string::npos);  // 4,933,658,528 + 100
  // Two shards: the plural, said apart so each language words its own ("2 safetensors-Dateien").
  CHECK(p["summary"]["text"].get<std::string>().find("the headers of 2 safetensors files (") != std::string::npos);
  CHECK(p["summary"]["args"]["files"]["id"] == "hub.safetensors_files");
}

TEST_CASE("a GGUF repository offers its quantizations with their summed sizes and says which was picked") {
  json l = {{"id", "o/M-GGUF"}, {"sha", "s"},
            {"siblings", {{{"rfilename", "M-Q8_0.gguf"}, {"size", 900}},
                          {{"rfilename", "Q4_K_M/M-Q4_K_M-00001-of-00002.gguf"}, {"size", 500}},
                          {{"rfilename", "Q4_K_M/M-Q4_K_M-00002-of-00002.gguf"}, {"size", 300}}}}};
  const json p = plan("o/M-GGUF", l);
  REQUIRE(p["ok"] == true);
  CHECK(p["kind"] == "gguf");
  CHECK(p["gguf"]["quant"] == "Q4_K_M");
  CHECK(p["gguf"]["picked"] == "default");
  CHECK(p["gguf"]["choices"][1]["size"] == 800);  // 500 + 300
  REQUIRE(p["headers"].size() == 2);
  CHECK(p["headers"][1]["path"] == "/o/M-GGUF/resolve/s/Q4_K_M/M-Q4_K_M-00002-of-00002.gguf");
  const json asked = plan("o/M-GGUF:q8_0", l);
  CHECK(asked["gguf"]["picked"] == "asked");
  CHECK(asked["headers"][0]["size"] == 900);
  // One file: the singular, not "1 file(s)".
  CHECK(asked["summary"]["text"].get<std::string>().find(", 900 B in 1 file (") != std::string::npos);
  CHECK(p["summary"]["text"].get<std::string>().find(", 800 B in 2 files (") != std::string::npos);
  CHECK(p["notes"].empty());
  // llama.cpp's -hf: "mmproj is also downloaded automatically if available. to disable, add --no-mmproj".
  json with_projector = l;
  with_projector["siblings"].push_back({{"rfilename", "mmproj-F16.gguf"}, {"size", 851251104}});
  const json pv = plan("o/M-GGUF", with_projector);
  CHECK(pv["gguf"]["choices"].size() == 2);  // the projector is no quantization of the model
  REQUIRE(pv["notes"].size() == 1);
  CHECK(pv["notes"][0]["text"] == "o/M-GGUF also holds a vision projector, mmproj-F16.gguf (851,251,104 B): llama-server -hf "
                                  "loads it too unless --no-mmproj is given. It is not counted here.");
  json short_split = l;
  short_split["siblings"].erase(2);  // part 2 of 2 missing
  CHECK(plan("o/M-GGUF", short_split)["error"]["message"]["text"] ==
        "o/M-GGUF's Q4_K_M file is split in 2 parts, but the repository holds 1 of them");
  const json missing = plan("o/M-GGUF:Q2_K", l);
  CHECK(missing["error"]["message"]["text"] == "o/M-GGUF has no Q2_K file; it offers Q8_0, Q4_K_M");
}

TEST_CASE("a repository with neither config.json nor weights is refused by name; config.json alone is read alone") {
  const json empty = plan("o/empty", {{"siblings", {{{"rfilename", "README.md"}, {"size", 5}}}}});
  CHECK(empty["error"]["message"]["text"] == "o/empty has no config.json and no weights (.safetensors or .gguf) to read");
  const json config = plan("o/cfg", {{"siblings", {{{"rfilename", "config.json"}, {"size", 5}},
                                                   {{"rfilename", "hf_quant_config.json"}, {"size", 5}}}}});
  CHECK(config["kind"] == "config");
  CHECK(config["texts"].size() == 2);
  CHECK(config["texts"][1]["role"] == "quant_config");
}

TEST_CASE("more shards than the reads allow are costed from config.json, with the Hub's count said beside it") {
  // DeepSeek-V3 ships 163 shards: 163 header reads would take minutes; config.json describes the same model.
  json l = {{"id", "deepseek-ai/DeepSeek-V3"}, {"sha", "s"},
            {"safetensors", {{"parameters", {{"BF16", 3918786560}, {"F8_E4M3", 680571043840}, {"F32", 41555600}}},
                             {"total", 684531386000}}}};
  l["siblings"] = {{{"rfilename", "config.json"}, {"size", 1700}}};
  for (int i = 1; i <= 163; ++i) {
    char name[64];
    std::snprintf(name, sizeof name, "model-%05d-of-000163.safetensors", i);
    l["siblings"].push_back({{"rfilename", name}, {"size", 4000000000}});
  }
  const json p = plan("deepseek-ai/DeepSeek-V3", l);
  CHECK(p["kind"] == "config");
  CHECK(p["headers"].empty());
  CHECK(p["texts"].size() == 1);
  CHECK(p["summary"]["text"] == "deepseek-ai/DeepSeek-V3: config.json; its 163 safetensors files (652,000,000,000 B) are more "
                        "than 64, so their headers were not read and the weights follow config.json; the Hub counts "
                        "684,531,386,000 parameters (BF16, F32, F8_E4M3).");  // 163 × 4,000,000,000 by hand; dtypes in byte order
}

TEST_CASE("a failed read says what happened: not found, gated, rate-limited, offline, too large") {
  // The Hub answers 401 RepoNotFound to a request without a token (huggingface_hub utils/_http.py).
  CHECK(failure({{"service", "hub"}, {"name", "o/m"}, {"status", 401}, {"error_code", "RepoNotFound"}}) ==
        "the Hugging Face Hub has no model o/m (or it is private)");
  CHECK(failure({{"service", "hub"}, {"name", "o/m"}, {"status", 401}, {"error_code", "GatedRepo"}})
            .starts_with("o/m is gated: its files need an approved Hugging Face account"));
  CHECK(failure({{"service", "hub"}, {"name", "o/m"}, {"status", 403}, {"error_code", "GatedRepo"}, {"token", true}})
            .find("HF_TOKEN") != std::string::npos);
  CHECK(failure({{"service", "hub"}, {"name", "o/m"}, {"status", 429}}).find("too many requests") != std::string::npos);
  // An unknown token: 401 with no error code ("Invalid credentials in Authorization header").
  CHECK(failure({{"service", "hub"}, {"name", "o/m"}, {"status", 401}, {"token", true}}).find("refused the token") !=
        std::string::npos);
  CHECK(failure({{"service", "ollama"}, {"name", "phi9:latest"}, {"status", 404}}) ==
        "Ollama's library has no model phi9:latest");
  CHECK(failure({{"service", "hub"}, {"name", "o/m"}, {"failure", "too_large"}, {"limit", 8388608}}) ==
        "a file of o/m is larger than the 8 MiB vramfit reads of it");  // 8,388,608 B = 8 × 2^20
  CHECK(failure({{"service", "hub"}, {"name", "o/m"}, {"failure", "insecure_redirect"}}).find("https") != std::string::npos);
}

TEST_CASE("a GGUF plan names the file read where llama-server's -hf tag would take another, and the revision read") {
  // Two files labelled Q4_K_M: -hf o/M-GGUF:Q4_K_M takes the first in listing order (llama_tag_pick, pinned in
  // test_hub_repo.cpp on llama.cpp's find_best_model), so the second, asked for by its link, is named (-hff).
  const json l = {{"id", "o/M-GGUF"}, {"sha", "s"},
                  {"siblings", {{{"rfilename", "M-Q4_K_M.gguf"}, {"size", 900}},
                                {{"rfilename", "v2/M-Q4_K_M.gguf"}, {"size", 800}}}}};
  const json first = plan("o/M-GGUF:Q4_K_M", l);
  REQUIRE(first["ok"] == true);
  CHECK_FALSE(first["gguf"].contains("hf_file"));
  CHECK_FALSE(first.contains("revision"));
  const json second = plan("https://huggingface.co/o/M-GGUF/blob/main/v2/M-Q4_K_M.gguf", l);
  REQUIRE(second["ok"] == true);
  CHECK(second["headers"][0]["name"] == "v2/M-Q4_K_M.gguf");
  CHECK(second["gguf"]["hf_file"] == "v2/M-Q4_K_M.gguf");
  // A revision asked for is said back, for the command that fetches the file.
  const json at = json::parse(plan_hub_reads("o/M-GGUF:Q4_K_M", "v1.1", l.dump()));
  CHECK(at["revision"] == "v1.1");
}
