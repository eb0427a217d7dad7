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
#include "model/quant_recipe.hpp"  // rule_covers
#include "questions/evaluate.hpp"  // resolve_request

using namespace vramfit;

namespace {

const std::filesystem::path kConfigs = std::filesystem::path(VRAMFIT_SOURCE_DIR) / "tests" / "data" / "configs";

std::string text_of(const std::filesystem::path& path) {
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), "cannot read " << path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A checkpoint's config.json, with its hf_quant_config.json when it publishes one.
ModelSpec imported(const std::string& name) {
  const auto quant_path = kConfigs / (name + "_hf_quant_config.json");
  const std::string quant = std::filesystem::exists(quant_path) ? text_of(quant_path) : std::string();
  auto spec = model_from_hf_config(text_of(kConfigs / (name + "_config.json")), quant);
  REQUIRE_MESSAGE(spec.ok(), name << ": " << (spec.ok() ? "" : spec.error().field + ": " + spec.error().message.text));
  return spec.value();
}

// The rule deciding tensor `name` in block `layer`, as weights_bytes picks it (the first covering rule), or "".
std::string format_of(const ModelSpec& spec, std::string_view name, std::int64_t layer) {
  const std::string full = (layer >= 0 ? "blk." + std::to_string(layer) + "." : std::string()) + std::string(name);
  for (const auto& rule : spec.quantization_rules)
    if (rule_covers(rule, full, layer)) return rule.format;
  return spec.quantization;
}

bool has_note(const ModelSpec& spec, std::string_view part) {
  for (const auto& note : spec.notes)
    if (note.text.find(part) != std::string::npos) return true;
  return false;
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
  CHECK(w.value().explanation.text.find("4.25 bits") != std::string::npos);
}

TEST_CASE("MXFP8 stores 8.25 bits per linear weight: 32 E4M3 values and one E8M0 scale per block") {
  // The same 2880 x 2880 matrix: 8,294,400 B of E4M3 and 8,294,400 / 32 = 259,200 one-byte scales: 8,553,600 B =
  // 8.25 bits a weight (OCP MX v1.0 §6.3, MXFP8 E4M3 with a shared 8-bit exponent per 32).
  auto spec = model_from_hf_config(R"({"model_type":"llama","hidden_size":2880,"num_hidden_layers":1,
    "num_attention_heads":45,"num_key_value_heads":45,"intermediate_size":2880,"vocab_size":32,"tie_word_embeddings":true})");
  REQUIRE(spec.ok());
  auto w = weights_bytes(spec.value(), parse_weight_format("mxfp8").value());
  REQUIRE(w.ok());
  CHECK(w.value().total == 7 * 8'553'600ULL + (32 * 2880 + 3 * 2880) * 2);
  CHECK(w.value().explanation.text.find("8.25 bits") != std::string::npos);
  CHECK(weight_format_name(parse_weight_format("MXFP8").value()) == "mxfp8");
}

TEST_CASE("ModelOpt's MXFP8 modules are read as mxfp8, as nvidia/MiniMax-M3-NVFP4 names its attention") {
  // nvidia/MiniMax-M3-NVFP4's hf_quant_config.json (3 MB, not kept here): MIXED_PRECISION with 21,888 NVFP4
  // expert modules and 534 MXFP8 ones, e.g. "language_model.model.layers.0.self_attn.k_proj": {"quant_algo": "MXFP8"}.
  auto spec = model_from_hf_config(text_of(kConfigs / "MiniMaxAI--MiniMax-M3_config.json"),
                                   R"({"quantization": {"quant_algo": "MIXED_PRECISION", "quantized_layers": {
                                       "language_model.model.layers.0.self_attn.k_proj": {"quant_algo": "MXFP8"},
                                       "language_model.model.layers.0.mlp.down_proj": {"quant_algo": "MXFP8"},
                                       "language_model.model.layers.5.block_sparse_moe.experts.0.w1":
                                         {"quant_algo": "NVFP4", "group_size": 16}}}})");
  REQUIRE(spec.ok());
  CHECK(format_of(spec.value(), "attn_k.weight", 0) == "mxfp8");
  CHECK(format_of(spec.value(), "ffn_down.weight", 0) == "mxfp8");
  CHECK(format_of(spec.value(), "ffn_gate_exps.weight", 5) == "nvfp4");
  CHECK_FALSE(has_note(spec.value(), "not modelled"));
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
  CHECK(w.explanation.text.find("model.layers.*.self_attn") != std::string::npos);
  CHECK(w.explanation.text.find("MXFP4") != std::string::npos);
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

TEST_CASE("FP8 with 128x128 block scales is read as fp8-block, DeepSeek-V4's E8M0 scales as fp8-block-e8m0") {
  // quantization_config {"quant_method": "fp8", "weight_block_size": [128, 128]}: one weight_scale_inv per block.
  CHECK(imported("deepseek-ai--DeepSeek-V3").quantization == "fp8-block");
  CHECK(imported("Qwen--Qwen3-32B-FP8").quantization == "fp8-block");
  CHECK(imported("stepfun-ai--Step-3.7-Flash-FP8").quantization == "fp8-block");
  // scale_fmt "ue8m0": V4 stores F8_E8M0 scales; V3.2 keeps fp32 scales rounded to powers of two.
  CHECK(imported("deepseek-ai--DeepSeek-V4-Flash").quantization == "fp8-block-e8m0");
  CHECK(imported("deepseek-ai--DeepSeek-V3.2").quantization == "fp8-block");
  CHECK(imported("deepseek-ai--DeepSeek-V3").quantization_rules.empty());
}

TEST_CASE("modules_to_not_convert keeps routers and lm_head in bf16 and passes over norms without a note") {
  const ModelSpec qwen = imported("Qwen--Qwen3-30B-A3B-FP8");
  CHECK(qwen.quantization == "fp8-block");
  CHECK(format_of(qwen, "ffn_gate_inp.weight", 3) == "bf16");
  CHECK(format_of(qwen, "ffn_up_exps.weight", 3) == "fp8-block");
  CHECK(format_of(qwen, "attn_q.weight", 3) == "fp8-block");
  CHECK_FALSE(has_note(qwen, "no tensor"));
  // MiniMax names the router "gate" alone: every block's router, never the experts' gate projections (w1).
  const ModelSpec minimax = imported("MiniMaxAI--MiniMax-M2.5");
  CHECK(format_of(minimax, "ffn_gate_inp.weight", 7) == "bf16");
  CHECK(format_of(minimax, "ffn_gate_exps.weight", 7) == "fp8-block");
  CHECK_FALSE(has_note(minimax, "no tensor"));
  // GLM-5-FP8 keeps the indexer's weights_proj in bf16; its wk and wq_b are FP8.
  const ModelSpec glm = imported("zai-org--GLM-5-FP8");
  CHECK(format_of(glm, "indexer_proj.weight", 4) == "bf16");
  CHECK(format_of(glm, "indexer_k.weight", 4) == "fp8-block");
}

TEST_CASE("compressed-tensors config_groups give the format, and ignore's re: patterns the bf16 modules") {
  // Kimi K2.5: {"num_bits": 4, "type": "int", "strategy": "group", "group_size": 32, "symmetric": true},
  // format pack-quantized; ignore ["lm_head", "re:.*self_attn.*", "re:.*shared_experts.*",
  // "re:.*mlp\\.(gate|up|gate_up|down)_proj.*"]: only the routed experts are int4.
  const ModelSpec kimi = imported("moonshotai--Kimi-K2.5");
  CHECK(kimi.quantization == "w4a16-32g");
  CHECK(format_of(kimi, "ffn_down_exps.weight", 5) == "w4a16-32g");
  CHECK(format_of(kimi, "attn_kv_a_mqa.weight", 5) == "bf16");
  CHECK(format_of(kimi, "ffn_up_shexp.weight", 5) == "bf16");
  CHECK(format_of(kimi, "ffn_gate.weight", 0) == "bf16");  // the dense first layer's MLP
  CHECK(format_of(kimi, "ffn_down.weight", 0) == "bf16");
  CHECK_FALSE(has_note(kimi, "no tensor"));
  CHECK(kimi.checkpoint_kv_dtype.empty());  // kv_cache_scheme null
}

TEST_CASE("an hf_quant_config.json gives NVFP4 or FP8, its excluded modules and its FP8 KV cache") {
  const ModelSpec ds = imported("nvidia--DeepSeek-V3.1-NVFP4");
  CHECK(ds.quantization == "nvfp4");
  CHECK(ds.checkpoint_kv_dtype == "fp8");
  CHECK(format_of(ds, "attn_q_a.weight", 0) == "bf16");
  CHECK(format_of(ds, "attn_kv_a_mqa.weight", 60) == "bf16");
  CHECK(format_of(ds, "ffn_up_exps.weight", 60) == "nvfp4");
  const ModelSpec llama = imported("nvidia--Llama-3.1-70B-Instruct-FP8");
  CHECK(llama.quantization == "fp8");
  CHECK(llama.checkpoint_kv_dtype == "fp8");
  const ModelSpec nemotron = imported("nvidia--NVIDIA-Nemotron-3-Super-120B-A12B-FP8");
  CHECK(nemotron.quantization == "fp8");
  CHECK(nemotron.checkpoint_kv_dtype == "fp8");
  // Nemotron 3 Nano keeps its Mamba in_proj / out_proj and attention of some layers in bf16.
  const ModelSpec nano = imported("nvidia--NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4");
  CHECK(format_of(nano, "ssm_in.weight", 4) == "bf16");
  CHECK(format_of(nano, "attn_q.weight", 5) == "bf16");
}

TEST_CASE("ModelOpt's quantization_config in config.json is read as its hf_quant_config.json") {
  // GLM-5.1-NVFP4: quant_method "modelopt", quant_algo NVFP4, ignore [..., "model.layers.0*", "model.layers.1.*",
  // "model.layers.N.self_attn*", ...], kv_cache_scheme {"num_bits": 8, "type": "float"}.
  auto alone = model_from_hf_config(text_of(kConfigs / "nvidia--GLM-5.1-NVFP4_config.json"));
  REQUIRE(alone.ok());
  CHECK(alone.value().quantization == "nvfp4");
  CHECK(alone.value().checkpoint_kv_dtype == "fp8");
  CHECK(format_of(alone.value(), "ffn_up_exps.weight", 0) == "bf16");
  CHECK(format_of(alone.value(), "ffn_up_exps.weight", 5) == "nvfp4");
  CHECK(format_of(alone.value(), "attn_q_b.weight", 5) == "bf16");
  const ModelSpec both = imported("nvidia--GLM-5.1-NVFP4");
  CHECK(both.quantization_rules.size() == alone.value().quantization_rules.size());
  // Gemma 4 keeps its dense MLP (the core's shared expert) and router in bf16: only the experts are NVFP4.
  const ModelSpec gemma = imported("nvidia--Gemma-4-26B-A4B-NVFP4");
  CHECK(format_of(gemma, "ffn_up_shexp.weight", 3) == "bf16");
  CHECK(format_of(gemma, "ffn_gate_inp.weight", 3) == "bf16");
  CHECK(format_of(gemma, "ffn_up_exps.weight", 3) == "nvfp4");
}

TEST_CASE("a MIXED_PRECISION map gives each module its format; modules it leaves out stay bf16") {
  // Qwen3.6-35B-A3B-NVFP4: linear_attn.in_proj_qkv / in_proj_z / out_proj FP8, mlp.experts W4A16_NVFP4.
  const ModelSpec qwen = imported("nvidia--Qwen3.6-35B-A3B-NVFP4");
  CHECK(qwen.quantization == "nvfp4");
  CHECK(format_of(qwen, "ssm_in.weight", 0) == "fp8");
  CHECK(format_of(qwen, "ssm_out.weight", 0) == "fp8");
  CHECK(format_of(qwen, "ffn_down_exps.weight", 0) == "nvfp4");
  CHECK(format_of(qwen, "ssm_ba.weight", 0) == "bf16");
  // DeepSeek-V4-Flash-NVFP4: the experts move to NVFP4; everything else stays in V4's FP8 blocks.
  const ModelSpec v4 = imported("nvidia--DeepSeek-V4-Flash-NVFP4");
  CHECK(v4.quantization == "fp8-block-e8m0");
  CHECK(format_of(v4, "ffn_down_exps.weight", 3) == "nvfp4");
  CHECK(format_of(v4, "ffn_down_shexp.weight", 3) == "fp8-block-e8m0");
  CHECK_FALSE(has_note(v4, "expert_dtype"));
  CHECK(own_weights(v4).explanation.text.find("expert_dtype") == std::string::npos);
}

TEST_CASE("DeepSeek-V4's FP4 experts are stored as its reference code stores them: MXFP4's E2M1 and E8M0 per 32") {
  // deepseek-ai/DeepSeek-V4-Flash inference/model.py, Linear with dtype float4_e2m1fn_x2: weight [out, in/2]
  // (two E2M1 a byte) and scale [out, in / fp4_block_size] in float8_e8m0fnu, fp4_block_size = 32; vLLM loads
  // expert_dtype "fp4" with its MXFP4 MoE method.
  const ModelSpec v4 = imported("deepseek-ai--DeepSeek-V4-Flash");
  CHECK(v4.quantization == "fp8-block-e8m0");
  CHECK(format_of(v4, "ffn_gate_exps.weight", 3) == "mxfp4");
  CHECK(format_of(v4, "ffn_down_shexp.weight", 3) == "fp8-block-e8m0");
  CHECK(format_of(v4, "attn_q_a.weight", 3) == "fp8-block-e8m0");
  CHECK_FALSE(has_note(v4, "choose the weight format"));
  // One layer's routed experts by hand: 256 experts x 3 matrices x 4096 x 2048 = 6,442,450,944 weights; E2M1 half a
  // byte each, 3,221,225,472 B, and one scale per 32: 201,326,592 B; 3,422,552,064 B a layer (4.25 bits a weight).
  const WeightBytes w = own_weights(v4);
  CHECK(w.routed_expert_bytes == 43 * 3'422'552'064ULL);
  CHECK(w.explanation.text.find("expert_dtype fp4") != std::string::npos);
  // Published: llm-cal's page for deepseek-ai/DeepSeek-V4-Flash (flytomelight.github.io/llm-cal, "safetensors
  // bytes 148.66 GB [verified]", in GiB: its DeepSeek-V3 page's 641.30 is that repository's 688,586,727,753 B) =
  // 159.62e9 B, and vLLM's own line loading it (vllm-project/vllm#40821: "[weight_utils.py:904] ... Checkpoint size:
  // 148.66 GiB"), the one MTP layer (num_nextn_predict_layers 1) included, which the core does not count for V4
  // (its MTP layer's shape is not modelled); that layer's routed experts alone are 3,422,552,064 B (above). Counted
  // as FP8 blocks the experts would weigh twice as much.
  CHECK(static_cast<double>(w.total + 3'422'552'064ULL) == doctest::Approx(148.66 * 1'073'741'824.0).epsilon(0.01));
}

TEST_CASE("a quantized_layers entry for lm_head quantizes lm_head, as Qwen3.6-27B-NVFP4's file says") {
  // nvidia/Qwen3.6-27B-NVFP4 hf_quant_config.json: "lm_head": {"quant_algo": "W4A16_NVFP4", "group_size": 16}.
  // lm_head 248,320 x 5,120 = 1,271,398,400 weights: E2M1 635,699,200 B, E4M3 scales per 16: 79,462,400 B, and
  // the two fp32 tensor scales 8 B: 715,161,608 B (bf16 would be 2,542,796,800 B).
  const ModelSpec qwen = imported("nvidia--Qwen3.6-27B-NVFP4");
  CHECK(format_of(qwen, "output.weight", -1) == "nvfp4");
  const WeightBytes w = own_weights(qwen);
  CHECK(w.output == 715'161'608ULL);
  bool listed = false;
  for (const auto& g : w.groups) listed |= g.what == "lm_head" && g.format == "nvfp4";
  CHECK(listed);
  // gpt-oss keeps it in bf16 because its file says so (modules_to_not_convert), as before.
  CHECK(own_weights(imported("openai--gpt-oss-20b")).output == 1'158'266'880ULL);
}

TEST_CASE("a quantization that is not modelled is named with what it is counted as") {
  auto spec = model_from_hf_config(text_of(kConfigs / "meta-llama--Meta-Llama-3.1-8B_config.json"),
                                   R"({"quantization": {"quant_algo": "MIXED_PRECISION", "kv_cache_quant_algo": "NVFP4",
                                       "quantized_layers": {"model.layers.0.mlp.down_proj": {"quant_algo": "INT4_AWQ"},
                                                            "model.layers.1.mlp.down_proj": {"quant_algo": "W4A8_XYZ"}}}})");
  REQUIRE(spec.ok());
  CHECK(has_note(spec.value(), "INT4_AWQ (its own int4 packing) is not modelled; the weights are counted as awq-4bit-128g"));
  CHECK(has_note(spec.value(), "quant_algo \"W4A8_XYZ\" is not modelled; the weights are counted as bf16"));
  CHECK(has_note(spec.value(), "kv_cache_quant_algo: this KV-cache quantization is not modelled"));
  CHECK(format_of(spec.value(), "ffn_down.weight", 0) == "awq-4bit-128g");
  auto method = model_from_hf_config(R"({"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 1,
    "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 32, "quantization_config": {"quant_method": "hqq"}})");
  REQUIRE(method.ok());
  CHECK(has_note(method.value(), "quant_method \"hqq\" is not modelled; the weights are counted as bf16"));
  auto bad = model_from_hf_config(text_of(kConfigs / "meta-llama--Meta-Llama-3.1-8B_config.json"), "{\"quantization\": 3}");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().field == "quant_config.quantization");
}

TEST_CASE("vLLM defaults the KV cache to the checkpoint's FP8; transformers says it does not read it") {
  Request r;
  r.config_json = text_of(kConfigs / "nvidia--Llama-3.1-70B-Instruct-FP8_config.json");
  r.quant_config_json = text_of(kConfigs / "nvidia--Llama-3.1-70B-Instruct-FP8_hf_quant_config.json");
  r.engine = Engine::vllm;
  auto vllm = resolve_request(test::catalog(), r);
  REQUIRE(vllm.ok());
  REQUIRE(vllm.value().options.kv_dtype.has_value());
  CHECK(*vllm.value().options.kv_dtype == KvDType::fp8);
  CHECK(has_note(vllm.value().model, "kv_cache_dtype \"auto\""));
  r.engine = Engine::transformers;
  auto hf = resolve_request(test::catalog(), r);
  REQUIRE(hf.ok());
  CHECK_FALSE(hf.value().options.kv_dtype.has_value());
  CHECK(has_note(hf.value().model, "which transformers does not read"));
  r.engine = Engine::vllm;
  r.kv_dtype = KvDType::bf16;  // the request's own choice wins
  auto chosen = resolve_request(test::catalog(), r);
  REQUIRE(chosen.ok());
  CHECK(*chosen.value().options.kv_dtype == KvDType::bf16);
  r.config_json.clear();
  auto alone = resolve_request(test::catalog(), r);
  REQUIRE_FALSE(alone.ok());
  CHECK(alone.error().field == "quant_config");
}

TEST_CASE("the files' multi-token-prediction layer is counted apart from the weights an engine loads") {
  // deepseek-ai/DeepSeek-V3 README_WEIGHTS.md: main model "Total parameters: 671B"; MTP modules "11.5B unique
  // parameters, excluding the shared 0.9B Embedding and 0.9B output Head"; the repository's "685B" holds both, the
  // MTP layer (model.layers.61) with its own copies of the embedding and the head, 2 × 129,280 × 7168 weights.
  const ModelSpec v3 = imported("deepseek-ai--DeepSeek-V3");
  const WeightBytes w = own_weights(v3);
  const std::uint64_t copies = 2ULL * 129'280 * 7168;
  CHECK(static_cast<double>(w.params) == doctest::Approx(671e9).epsilon(0.001));
  // "11.5B" is the decoder layer (11.51B here); eh_proj's 102,760,448 weights bring it to 11.61B, within 1 %.
  CHECK(static_cast<double>(w.mtp_params - copies) == doctest::Approx(11.5e9).epsilon(0.01));
  CHECK(static_cast<double>(w.params + w.mtp_params) == doctest::Approx(685e9).epsilon(0.002));
  // That layer by hand (test_weight_formats.cpp): 15,321,492,192 B, its experts and projections in FP8 blocks, its
  // embedding and head copies bf16; with it the files' 688,586,727,753 B (revision afb92e1, safetensors headers of
  // a few MB included).
  CHECK(static_cast<double>(w.mtp_bytes) == doctest::Approx(15'321'492'192.0).epsilon(0.0001));
  CHECK(static_cast<double>(w.file_bytes()) == doctest::Approx(688'586'727'753.0).epsilon(0.001));
  bool fp8 = false, bf16 = false;
  for (const auto& g : w.mtp_groups) {
    CHECK(g.what == "MTP layers");
    fp8 |= g.format == "fp8-block";
    bf16 |= g.format == "bf16";
  }
  CHECK((fp8 && bf16));
  for (const auto& g : w.groups) CHECK(g.what != "MTP layers");
  CHECK(has_note(v3, "1 multi-token-prediction layer(s), counted in the files' size but not in the weights loaded"));
  CHECK(w.explanation.text.find("the files also hold 1 multi-token-prediction layer (bf16, fp8-block)") !=
        std::string::npos);
  // nvidia/DeepSeek-V3.1-NVFP4 excludes model.layers.61* from quantization: its MTP layer is bf16, ~13.4B weights.
  const WeightBytes nvfp4 = own_weights(imported("nvidia--DeepSeek-V3.1-NVFP4"));
  CHECK(nvfp4.mtp_groups.size() == 1);
  CHECK(nvfp4.mtp_groups.front().format == "bf16");
  CHECK(nvfp4.mtp_bytes == 2 * nvfp4.mtp_params);
  // A model without such layers has none.
  CHECK(own_weights(imported("openai--gpt-oss-20b")).mtp_bytes == 0);
}

TEST_CASE("Qwen3.5's MTP layer: one full-attention layer, its fc and norms, embeddings shared") {
  // vLLM model_executor/models/qwen3_5_mtp.py: mtp.fc (2 · hidden → hidden), pre_fc_norm_embedding,
  // pre_fc_norm_hidden, mtp.layers.0 (a full-attention decoder layer with the MoE) and mtp.norm; embed_tokens and
  // lm_head are the model's. nvidia/Qwen3.6-35B-A3B-NVFP4 keeps "mtp*" out of quantization (bf16).
  const ModelSpec qwen = imported("nvidia--Qwen3.6-35B-A3B-NVFP4");
  CHECK(format_of(qwen, "attn_q.weight", 40) == "bf16");
  const WeightBytes w = own_weights(qwen);
  // By hand: 256 experts × 3 × 2048 × 512 = 805,306,368; the shared expert 3 × 2048 × 512 = 3,145,728 and its gate
  // 2048; the router 256 × 2048 = 524,288; attention q (with its gate) 2048 × 8192, k and v 2048 × 512 each, o
  // 4096 × 2048: 16,777,216 + 2,097,152 + 8,388,608 = 27,262,976; fc 4096 × 2048 = 8,388,608; norms 2048 × 5 and
  // q/k norms 2 × 256: 10,752. 844,640,768 weights, 1,689,281,536 B in bf16.
  CHECK(w.mtp_params == 844'640'768ULL);
  CHECK(w.mtp_bytes == 1'689'281'536ULL);
}

TEST_CASE("Nemotron-H's MTP layer is an attention and an experts block, as its MTP pattern names them") {
  // nvidia/NVIDIA-Nemotron-3-Ultra-550B-A55B config.json: mtp_layers_block_type ["attention", "moe"]; vLLM
  // nemotron_h_mtp.py builds them like the decoder's blocks of those kinds, with eh_proj, enorm, hnorm and
  // final_layernorm. NVIDIA's blog "Creating the NVIDIA Nemotron 3 Ultra NVFP4 Checkpoint with NVIDIA Model
  // Optimizer" (developer.nvidia.com, 2026-06-26): "the Nemotron 3 Ultra model shrinks from 1,121 GB in BF16", its
  // Table 1 keeping "Embedding, Output classification layer, MTP layers" in BF16; the BF16 files hold the MTP layer.
  const ModelSpec ultra = imported("nvidia--NVIDIA-Nemotron-3-Ultra-550B-A55B-BF16");
  REQUIRE(ultra.mtp.sources.size() == 2);
  CHECK(ultra.layer(ultra.mtp.sources[0]).mixer == MixerKind::attention);
  CHECK(ultra.layer(ultra.mtp.sources[1]).mlp.kind == MlpKind::moe);
  auto bf16 = weights_bytes(ultra, parse_weight_format("bf16").value());
  REQUIRE(bf16.ok());
  const WeightBytes& w = bf16.value();
  CHECK(static_cast<double>(w.file_bytes()) == doctest::Approx(1121e9).epsilon(0.005));
  // Without its MTP layer the files would be 2 % lighter than published.
  CHECK(static_cast<double>(w.total) < 1121e9 * 0.985);
  // Super's is written as a pattern: mtp_hybrid_override_pattern "*E".
  CHECK(imported("nvidia--NVIDIA-Nemotron-3-Super-120B-A12B-FP8").mtp.sources.size() == 2);
}

TEST_CASE("checkpoints read from their configs weigh what their published repositories hold") {
  // DeepSeek-V3's own quantization_config (fp8, weight_block_size [128, 128]) read as fp8-block. Published:
  // huggingface.co/deepseek-ai/DeepSeek-V3 at revision afb92e1, its 163 safetensors files hold 688,586,727,753 B,
  // the multi-token-prediction layer included (above).
  CHECK(static_cast<double>(own_weights(imported("deepseek-ai--DeepSeek-V3")).file_bytes()) ==
        doctest::Approx(688'586'727'753.0).epsilon(0.02));
  // vLLM sums the safetensors files it is about to load (model_executor/model_loader/weight_utils.py,
  // _get_checkpoints_size_bytes) and prints it as "Checkpoint size: %.2f GiB". A public `vllm serve
  // nvidia/Gemma-4-26B-A4B-NVFP4` log (vLLM 0.2x, one GPU): "[weight_utils.py:904] Filesystem type for checkpoints:
  // EXT4. Checkpoint size: 17.50 GiB." The files hold the vision tower too (its embed_vision and tower in bf16).
  constexpr double GiB = 1024.0 * 1024 * 1024;
  CHECK(static_cast<double>(own_weights(imported("nvidia--Gemma-4-26B-A4B-NVFP4")).file_bytes()) ==
        doctest::Approx(17.50 * GiB).epsilon(0.02));
  // The same line for `vllm serve nvidia/Qwen3.6-35B-A3B-NVFP4` (a public log, one GB10): "Checkpoint size:
  // 21.82 GiB"; its vision tower and its bf16 MTP layer are in the files.
  CHECK(static_cast<double>(own_weights(imported("nvidia--Qwen3.6-35B-A3B-NVFP4")).file_bytes()) ==
        doctest::Approx(21.82 * GiB).epsilon(0.02));
  // nvidia/GLM-5.2-NVFP4: vllm-project/recipes models/zai-org/GLM-5.2.yaml, "The ~465 GB checkpoint", and its
  // vram_minimum_gb 558, which that repository's CLAUDE.md rule makes ceil(safetensors total_size_GB × 1.2) for
  // ModelOpt checkpoints: 464.2 < total_size ≤ 465.0 GB. The MTP layer (model.layers.78*, excluded: bf16) included.
  CHECK(static_cast<double>(own_weights(imported("nvidia--GLM-5.2-NVFP4")).file_bytes()) ==
        doctest::Approx(465e9).epsilon(0.02));
  // nvidia/Llama-3.1-70B-Instruct-FP8 with its hf_quant_config.json (FP8, lm_head excluded). Published: the repo's
  // Files listing (tree/main) shows 15 shards of 4.82, 4.98, 4.9, ... GB, the shard sizes of
  // neuralmagic/Meta-Llama-3.1-70B-Instruct-FP8, whose copy context-labs/neuralmagic-llama-3.1-70b-instruct-FP8
  // lists 72.7 GB in all (its tokenizer, 9 MB, included).
  CHECK(static_cast<double>(own_weights(imported("nvidia--Llama-3.1-70B-Instruct-FP8")).total) ==
        doctest::Approx(72.7e9).epsilon(0.02));
  // nvidia/Qwen3-235B-A22B-NVFP4 with its hf_quant_config.json (NVFP4, group 16). Published: ytworks/kairyu
  // docs/design/g4-mid-moe.md (D1 pins revision 21cfa2c9 of that repository), D2: "The complete 134 GB model must
  // never be materialized before sharding".
  CHECK(static_cast<double>(own_weights(imported("nvidia--Qwen3-235B-A22B-NVFP4")).total) ==
        doctest::Approx(134e9).epsilon(0.02));
}
