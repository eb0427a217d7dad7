// Checkpoints that store tensors in more than one format: the config's recipe, the block-scaled formats it names,
// and the weight bytes pinned to the published checkpoints.
#include <filesystem>  // std::filesystem::path
#include <fstream>     // std::ifstream
#include <sstream>     // std::ostringstream
#include <string>      // std::string

#include "../test_support.hpp"
#include "formats/weight_formats.hpp"
#include "hardware/speed.hpp"  // speed_model_from
#include "model/hf_config.hpp"

using namespace vramfit;

namespace {

const std::filesystem::path kConfigs = std::filesystem::path(VRAMFIT_SOURCE_DIR) / "tests" / "data" / "configs";

ModelSpec imported(const std::string& name) {
  std::ifstream in(kConfigs / (name + "_config.json"));
  REQUIRE_MESSAGE(in.good(), "cannot read " << name);
  std::ostringstream text;
  text << in.rdbuf();
  auto spec = model_from_hf_config(text.str());
  REQUIRE_MESSAGE(spec.ok(), name << ": " << (spec.ok() ? "" : spec.error().message));
  return spec.value();
}

WeightBytes own_weights(const ModelSpec& spec) {
  auto format = parse_weight_format(spec.quantization);
  REQUIRE_MESSAGE(format.ok(), spec.quantization);
  auto bytes = weights_bytes(spec, format.value());
  REQUIRE_MESSAGE(bytes.ok(), bytes.error().message);
  return bytes.value();
}

}  // namespace

TEST_CASE("MXFP4 stores 4.25 bits per linear weight: 32 E2M1 values and one E8M0 scale per block") {
  // One 2880 x 2880 matrix (gpt-oss's hidden size): 8,294,400 weights / 2 = 4,147,200 B of E2M1 and
  // 8,294,400 / 32 = 259,200 one-byte scales: 4,406,400 B = 4.25 bits a weight (OCP MX v1.0 §5.1).
  auto spec = model_from_hf_config(R"({"model_type":"llama","hidden_size":2880,"num_hidden_layers":1,
    "num_attention_heads":45,"num_key_value_heads":45,"intermediate_size":2880,"vocab_size":32,"tie_word_embeddings":true})");
  REQUIRE(spec.ok());
  auto w = weights_bytes(spec.value(), parse_weight_format("MXFP4").value());
  REQUIRE(w.ok());
  // Seven such matrices (q, k, v, o, gate, up, down); embeddings (32 x 2880) and the two norms in bf16.
  CHECK(w.value().total == 7 * 4'406'400ULL + (32 * 2880 + 3 * 2880) * 2);
  CHECK(w.value().explanation.find("4.25 bits") != std::string::npos);
}

TEST_CASE("gpt-oss's recipe keeps attention, router, embeddings and lm_head in bf16 beside MXFP4 experts") {
  const ModelSpec spec = imported("openai--gpt-oss-20b");
  CHECK(spec.quantization == "mxfp4");
  REQUIRE(spec.quantization_rules.size() == 4);
  CHECK(spec.quantization_rules[0].tensors == "attn_");
  CHECK(spec.quantization_rules[1].tensors == "ffn_gate_inp");
  CHECK(spec.quantization_rules[2].tensors == "token_embd");
  CHECK(spec.quantization_rules[3].tensors == "output.");
  const WeightBytes w = own_weights(spec);
  // Embedding and lm_head: 201,088 x 2,880 x 2 B each.
  CHECK(w.embedding == 1'158'266'880ULL);
  CHECK(w.output == 1'158'266'880ULL);
  CHECK(w.explanation.find("model.layers.*.self_attn") != std::string::npos);
  CHECK(w.explanation.find("MXFP4") != std::string::npos);
  // Run in another format, the checkpoint's recipe does not apply: bf16 is 2 B per parameter.
  auto bf16 = weights_bytes(spec, parse_weight_format("bf16").value());
  REQUIRE(bf16.ok());
  CHECK(bf16.value().total == 2 * bf16.value().params);
}

TEST_CASE("gpt-oss-20b and -120b weigh what their published MXFP4 safetensors hold") {
  // huggingface.co/openai/gpt-oss-20b/blob/main/model.safetensors.index.json: "metadata": {"total_size":
  // 13761264768} (tensor data of the three shards).
  CHECK(static_cast<double>(own_weights(imported("openai--gpt-oss-20b")).total) ==
        doctest::Approx(13'761'264'768.0).epsilon(0.01));
  // huggingface.co/openai/gpt-oss-120b: the 15 shards' tensor data, 65,248,815,744 B (the files with their
  // headers: 65,248,893,184 B), as its model.safetensors.index.json totals them.
  CHECK(static_cast<double>(own_weights(imported("openai--gpt-oss-120b")).total) ==
        doctest::Approx(65'248'815'744.0).epsilon(0.01));
}

TEST_CASE("a token reads its MXFP4 experts at 4.25 bits and the bf16 tensors at 16") {
  const ModelSpec spec = imported("openai--gpt-oss-20b");
  const WeightBytes w = own_weights(spec);
  auto model = speed_model_from(spec, w);
  REQUIRE(model.ok());
  // By hand: experts 24 layers x 32 x (2880 x 5760 + 2880 x 2880) = 19,110,297,600 weights x 17/32 B =
  // 10,152,345,600 B, plus their bf16 biases 24 x 32 x 8,640 x 2 = 13,271,040 B. A token runs 4 of 32:
  // 28/32 of 10,165,616,640 = 8,894,914,560 B unread, and the 1,158,266,880 B embedding table is looked up,
  // not read: 13,761,264,768 - 1,158,266,880 - 8,894,914,560 = 3,708,083,328 B.
  CHECK(static_cast<double>(model.value().weight_bytes_read) == doctest::Approx(3'708'083'328.0).epsilon(0.001));
}

TEST_CASE("in bf16 a token reads its active parameters' two bytes each, the embedding table aside") {
  // One rule for every MoE model: the experts a token is not routed to are left out at their own width. With every
  // tensor in bf16 that is 2 B × (active parameters − the embedding table, which is looked up, not read).
  // Mixtral-8x7B's active parameters by hand: per layer q and o 2 × 4096², k and v 2 × 4096 × 1024, two norms
  // 2 × 4096, router 4096 × 8, two of eight experts 2 × 3 × 4096 × 14,336 = 394,305,536; × 32 layers
  // = 12,617,777,152, plus embedding and lm_head 2 × 32,000 × 4,096 and the final norm 4,096 = 12,879,925,248
  // (Mistral: "12.9B active"). Read per token: 2 × (12,879,925,248 − 131,072,000) = 25,497,706,496 B.
  const ModelSpec spec = imported("mistralai--Mixtral-8x7B-v0.1");
  auto counts = count_params(spec);
  REQUIRE(counts.ok());
  CHECK(counts.value().active == 12'879'925'248ULL);
  auto w = weights_bytes(spec, parse_weight_format("bf16").value());
  REQUIRE(w.ok());
  auto model = speed_model_from(spec, w.value());
  REQUIRE(model.ok());
  CHECK(model.value().weight_bytes_read == 25'497'706'496ULL);
}
