// Names people type for models on the Hugging Face Hub and in Ollama's library, and the Hub's model API answer
// (huggingface.co/docs/hub/api: GET /api/models/{repo_id}?blobs=true; siblings carry size and lfs.size).
#include <doctest/doctest.h>

#include "formats/hub_repo.hpp"

using namespace vramfit;

namespace {
HubRef hub(std::string_view text) {
  auto r = parse_hub_ref(text);
  REQUIRE_MESSAGE(r.has_value(), text);
  REQUIRE_MESSAGE(r->ok(), r->error().message.text);
  return r->value();
}
}  // namespace

TEST_CASE("a Hub id, link or owner/name:QUANT names the repository as llama-server -hf and ollama run hf.co read it") {
  CHECK(hub("microsoft/phi-4").repo == "microsoft/phi-4");
  CHECK(hub("  microsoft/phi-4\n").repo == "microsoft/phi-4");
  const HubRef q = hub("unsloth/gpt-oss-20b-GGUF:Q4_K_M");  // llama.cpp's -hf example form <user>/<model>[:quant]
  CHECK(q.repo == "unsloth/gpt-oss-20b-GGUF");
  CHECK(q.quant == "Q4_K_M");
  CHECK(hub("https://huggingface.co/mistralai/Mistral-Small-3.2-24B-Instruct-2506").repo ==
        "mistralai/Mistral-Small-3.2-24B-Instruct-2506");
  CHECK(hub("hf.co/bartowski/Qwen_Qwen3-8B-GGUF:IQ4_XS").quant == "IQ4_XS");  // ollama run hf.co/{user}/{repo}:{quant}
  // The Hub quotes a revision in its links: refs%2Fpr%2F1 is the branch refs/pr/1.
  const HubRef tree = hub("https://huggingface.co/Qwen/Qwen3-8B/tree/refs%2Fpr%2F1?x=1#files");
  CHECK(tree.repo == "Qwen/Qwen3-8B");
  CHECK(tree.revision == "refs/pr/1");
  // A folder in the tree view holds one quantization (unsloth's UD-Q4_K_XL/).
  CHECK(hub("https://huggingface.co/unsloth/Qwen3-235B-A22B-GGUF/tree/main/UD-Q4_K_XL").quant == "UD-Q4_K_XL");
  CHECK(hub("microsoft/phi-4/").repo == "microsoft/phi-4");  // copied with a trailing slash
  CHECK(hub("hf.co/unsloth/phi-4-GGUF:latest").quant.empty());  // Ollama's "latest": no quantization asked
  const HubRef blob = hub("https://huggingface.co/unsloth/gpt-oss-20b-GGUF/blob/main/gpt-oss-20b-Q4_K_M.gguf");
  CHECK(blob.revision == "main");
  CHECK(blob.file == "gpt-oss-20b-Q4_K_M.gguf");
}

TEST_CASE("names that are no Hub repository are left to the presets and Ollama, or refused with what is wrong") {
  CHECK_FALSE(parse_hub_ref("llama-3.1-8b").has_value());
  CHECK_FALSE(parse_hub_ref("qwen3:32b").has_value());
  CHECK_FALSE(parse_hub_ref("library/gemma3:27b").has_value());  // Ollama's own namespace
  CHECK_FALSE(parse_hub_ref("https://example.com/a/b").has_value());
  CHECK_FALSE(parse_hub_ref("a/b/c").has_value());
  // huggingface_hub's validate_repo_id: no "--" and no '-' or '.' at either end.
  auto bad = parse_hub_ref("owner/-name");
  REQUIRE(bad.has_value());
  CHECK_FALSE(bad->ok());
  CHECK(bad->error().message.text.find("owner/name") != std::string::npos);
  auto dataset = parse_hub_ref("https://huggingface.co/datasets/HuggingFaceFW/fineweb");
  REQUIRE(dataset.has_value());
  CHECK(dataset->error().message.text.find("dataset or a Space") != std::string::npos);
}

TEST_CASE("an Ollama name reads as ollama pull reads it: library namespace and tag latest unless given") {
  const auto phi = parse_ollama_ref("phi4");
  REQUIRE(phi);
  CHECK(phi->ns == "library");
  CHECK(phi->name == "phi4");
  CHECK(phi->tag == "latest");
  const auto gemma = parse_ollama_ref("library/gemma3:27b");
  REQUIRE(gemma);
  CHECK(gemma->name == "gemma3");
  CHECK(gemma->tag == "27b");
  CHECK(parse_ollama_ref("registry.ollama.ai/library/qwen3:32b")->tag == "32b");
  CHECK(parse_ollama_ref("https://ollama.com/library/phi4")->name == "phi4");
  CHECK_FALSE(parse_ollama_ref("Llama 3.1 8B").has_value());
}

TEST_CASE("the model API's listing gives each file's size, the gated state and the Hub's parameter count") {
  // The shape of GET /api/models/{repo}?blobs=true: LFS files carry lfs.size, small files size alone.
  const auto l = read_repo_listing(R"({"id": "o/m", "sha": "abc", "gated": "manual", "pipeline_tag": "text-generation",
    "siblings": [{"rfilename": "config.json", "size": 820},
                 {"rfilename": "model-00001-of-00002.safetensors", "size": 134, "lfs": {"size": 4976698672, "sha256": "x", "pointerSize": 135}}],
    "safetensors": {"parameters": {"BF16": 14659507200}, "total": 14659507200}})");
  REQUIRE(l.ok());
  CHECK(l.value().gated == "manual");
  REQUIRE(l.value().files.size() == 2);
  CHECK(l.value().files[0].size == 820);
  CHECK(l.value().files[1].size == 4976698672);
  CHECK(l.value().safetensors_total == 14659507200);
  CHECK(read_repo_listing(R"({"gated": false})").value().gated.empty());
  auto wrong = read_repo_listing(R"({"siblings": [{"rfilename": 3}]})");
  REQUIRE_FALSE(wrong.ok());
  CHECK(wrong.error().field == "api/models.siblings[0].rfilename");
  CHECK_FALSE(read_repo_listing("[1]").ok());
  CHECK_FALSE(read_repo_listing("{").ok());
}

TEST_CASE("a GGUF repository's files group by quantization, a split's parts summed in order, projectors left out") {
  RepoListing l;
  l.files = {{"README.md", 100, false},
             {"Q4_K_M/M-Q4_K_M-00002-of-00002.gguf", 30, true},
             {"Q4_K_M/M-Q4_K_M-00001-of-00002.gguf", 50, true},
             {"M-UD-Q4_K_XL.gguf", 70, true},
             {"mmproj-F16.gguf", 9, true},
             {"M.Q8_0.gguf", 90, true}};
  const auto c = gguf_choices(l);
  REQUIRE(c.size() == 3);
  CHECK(c[0].quant == "Q4_K_M");
  CHECK(c[0].size == 80);  // 50 + 30 by hand
  REQUIRE(c[0].files.size() == 2);
  CHECK(c[0].files[0].path == "Q4_K_M/M-Q4_K_M-00001-of-00002.gguf");
  CHECK(c[1].quant == "UD-Q4_K_XL");
  CHECK(c[2].quant == "Q8_0");
}

TEST_CASE("with no quantization asked, the file is chosen as llama.cpp's -hf chooses it") {
  // llama.cpp common/arg.cpp, -hf: "quant is optional, case-insensitive, default to Q4_K_M, or falls back to the
  // first file in the repo if Q4_K_M doesn't exist."
  std::vector<GgufChoice> c = {{"IQ4_XS", {}, 1}, {"Q4_K_M", {}, 2}};
  CHECK(pick_gguf(c, "")->first == 1);
  CHECK(pick_gguf(c, "")->second == GgufPick::default_q4_k_m);
  CHECK(pick_gguf(c, "iq4_xs")->first == 0);
  CHECK(pick_gguf(c, "iq4_xs")->second == GgufPick::asked);
  CHECK_FALSE(pick_gguf(c, "Q2_K").has_value());
  // unsloth's docs write ":Q4_K_XL" for its file labelled UD-Q4_K_XL: the one label ending so.
  std::vector<GgufChoice> ud = {{"UD-Q4_K_XL", {}, 1}, {"UD-Q2_K_XL", {}, 1}};
  CHECK(pick_gguf(ud, "Q4_K_XL")->first == 0);
  c.erase(c.begin() + 1);
  CHECK(pick_gguf(c, "")->second == GgufPick::first_file);
}

TEST_CASE("an Ollama manifest names its model layer by digest and size") {
  const auto layers = read_ollama_manifest(R"({"schemaVersion": 2, "layers": [
    {"mediaType": "application/vnd.ollama.image.model",
     "digest": "sha256:fd7b6731c33c57f61767612f56517460ec2d1e2e5a3f0163e0eb3d8d8cb5df20", "size": 9053114464}]})");
  REQUIRE(layers.ok());
  CHECK(layers.value()[0].size == 9053114464);
  auto bad = read_ollama_manifest(R"({"layers": [{"mediaType": "m", "digest": "sha256:zz", "size": 1}]})");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().field == "manifest.layers[0].digest");
  CHECK_FALSE(read_ollama_manifest("{}").ok());
}

TEST_CASE("the safetensors a repository loads from: its shards, else model.safetensors; the rest is named") {
  RepoListing l;
  l.files = {{"consolidated.safetensors", 9, true}, {"model-00001-of-00002.safetensors", 5, true},
             {"model-00002-of-00002.safetensors", 4, true}, {"adapter_model.safetensors", 1, true},
             {"original/x.safetensors", 1, true}};
  std::vector<std::string> left_out;
  const auto shards = safetensors_weights(l, left_out);
  REQUIRE(shards.size() == 2);
  CHECK(left_out == std::vector<std::string>{"consolidated.safetensors", "adapter_model.safetensors"});
  l.files = {{"model.safetensors", 5, true}, {"adapter_model.safetensors", 1, true}};
  left_out.clear();
  CHECK(safetensors_weights(l, left_out).front().path == "model.safetensors");
  l.files = {{"consolidated.safetensors", 9, true}};  // Mistral's own format alone
  left_out.clear();
  CHECK(safetensors_weights(l, left_out).size() == 1);
}

TEST_CASE("a split GGUF remembers how many parts its names promise") {
  RepoListing l;
  l.files = {{"Q8_0/M-Q8_0-00001-of-00003.gguf", 5, true}, {"Q8_0/M-Q8_0-00003-of-00003.gguf", 5, true}};
  const auto c = gguf_choices(l);
  REQUIRE(c.size() == 1);
  CHECK(c[0].parts_named == 3);
  CHECK(c[0].files.size() == 2);
}

TEST_CASE("llama-server's -hf REPO:QUANT takes the first model file whose path holds QUANT then \".\" or \"-\"") {
  // ggml-org/llama.cpp common/download.cpp at 0216dab3, find_best_model: `std::regex pattern(t + "[.-]",
  // std::regex::icase);` and `if (gguf_filename_is_model(f.path) && std::regex_search(f.path, pattern))`, a split's
  // `split.count > 1 && split.index != 1` passed over; gguf_filename_is_model leaves out "mmproj", "imatrix", "mtp-",
  // "eagle3-", "dflash-" and "dspark-" files. The listing's order decides between two files of one label.
  RepoListing l;
  l.files = {{"mmproj-M-Q8_0.gguf", 1, true},        {"mtp-M-Q8_0.gguf", 1, true},
             {"a/M-Q4_K_M.gguf", 1, true},           {"M-Q4_K_M.gguf", 1, true},
             {"M-Q8_0-00002-of-00002.gguf", 1, true}, {"M-Q8_0-00001-of-00002.gguf", 1, true},
             {"m.q6_k.gguf", 1, true},                {"M-Q5_K_MX.gguf", 1, true}};
  CHECK(llama_tag_pick(l, "Q4_K_M") == "a/M-Q4_K_M.gguf");  // first in listing order, whatever its folder
  CHECK(llama_tag_pick(l, "Q8_0") == "M-Q8_0-00001-of-00002.gguf");  // no projector, no MTP head, no second part
  CHECK(llama_tag_pick(l, "Q6_K") == "m.q6_k.gguf");  // case-insensitive, "." after the tag
  CHECK(llama_tag_pick(l, "Q5_K_M").empty());  // "Q5_K_MX": the tag is followed by neither "." nor "-"
  // gguf_choices groups the two Q4_K_M files apart: pick_gguf takes the first group, the file -hf takes too.
  CHECK(gguf_choices(l)[pick_gguf(gguf_choices(l), "Q4_K_M")->first].files[0].path == "a/M-Q4_K_M.gguf");
}

TEST_CASE("llama-server's -hf matches the tag and the split suffix in any case, the sidecar words in lower case only") {
  // ggml-org/llama.cpp common/download.cpp at 0216dab3: find_best_model builds `std::regex pattern(t + "[.-]",
  // std::regex::icase);`; get_gguf_split_info reads the parts with
  // `static const std::regex re_split("^(.+)-([0-9]{5})-of-([0-9]{5})$", std::regex::icase);`;
  // gguf_filename_is_model takes `filename = filename.substr(pos + 1)` after the last '/' and tests
  // `filename.find("mmproj") == std::string::npos && filename.find("imatrix") == std::string::npos && …`, a
  // case-sensitive find, so "MMPROJ-" and "IMATRIX" name model files there.
  RepoListing l;
  l.files = {{"M-Q8_0-00002-OF-00002.gguf", 1, true}, {"M-Q8_0-00001-OF-00002.gguf", 1, true},
             {"mmproj/MMPROJ-M-Q4_K_M.gguf", 1, true}, {"Model-q4_k_m.gguf", 1, true},
             {"imatrix-M-Q6_K.gguf", 1, true}, {"M-IMATRIX-Q6_K.gguf", 1, true}};
  CHECK(llama_tag_pick(l, "Q8_0") == "M-Q8_0-00001-OF-00002.gguf");  // "-OF-" is a split suffix: part 2 passed over
  CHECK(llama_tag_pick(l, "Q4_K_M") == "mmproj/MMPROJ-M-Q4_K_M.gguf");  // the folder is not the name; upper case
  CHECK(llama_tag_pick(l, "Q6_K") == "M-IMATRIX-Q6_K.gguf");  // "imatrix-" skipped, "IMATRIX" kept
  l.files.erase(l.files.begin() + 2);
  CHECK(llama_tag_pick(l, "Q4_K_M") == "Model-q4_k_m.gguf");  // ":Q4_K_M" finds "q4_k_m" followed by "."
  // gguf_choices groups a split by the same case-blind suffix: one Q8_0 of two parts.
  CHECK(gguf_choices(l)[0].files.size() == 2);
  CHECK(gguf_choices(l)[0].files[0].path == "M-Q8_0-00001-OF-00002.gguf");
}
