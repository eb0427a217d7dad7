// Writes seed corpora for the fuzz harnesses into <out>/{gguf,safetensors,hf_config,request}/, using the
// unit tests' format-exact file builders: nothing is downloaded.
#include <filesystem>  // std::filesystem
#include <fstream>     // std::ofstream
#include <iostream>    // std::cerr
#include <string>      // std::string

#include "../unit/file_builders.hpp"

namespace fs = std::filesystem;
using vramfit::test::Bytes;

namespace {
void write(const fs::path& path, const Bytes& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}
void write(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: make_seed_corpus <output dir>\n";
    return 2;
  }
  const fs::path root = argv[1];
  for (const char* d : {"gguf", "safetensors", "hf_config", "request"}) fs::create_directories(root / d);

  using vramfit::GgmlType;
  write(root / "gguf" / "tiny_llama_v3.gguf", vramfit::test::tiny_llama_gguf().build(3));
  write(root / "gguf" / "tiny_llama_v2.gguf", vramfit::test::tiny_llama_gguf().build(2));
  {
    vramfit::test::GgufBuilder b;
    b.str("general.architecture", "qwen2moe").u32("qwen2moe.block_count", 1).u32("qwen2moe.embedding_length", 64)
        .u32("qwen2moe.attention.head_count", 2).u32("qwen2moe.expert_count", 4).u32("qwen2moe.expert_used_count", 2)
        .u32("qwen2moe.attention.sliding_window", 16).u32("general.alignment", 64).boolean("x.flag", true)
        .i32("x.signed", -3).nested_i32s("x.nested", {{1}, {2, 3}});
    b.tensor("token_embd.weight", {64, 4}, GgmlType::q8_0).tensor("blk.0.ffn_gate_exps.weight", {64, 32, 4}, GgmlType::iq4_nl);
    write(root / "gguf" / "moe.gguf", b.build());
  }
  write(root / "safetensors" / "bf16.safetensors",
        vramfit::test::build_safetensors({{"model.embed_tokens.weight", "BF16", {4, 8}, 64},
                                          {"model.norm.weight", "F32", {8}, 32}},
                                         {{"format", "pt"}}));
  write(root / "safetensors" / "gptq.safetensors",
        vramfit::test::build_safetensors({{"l.qweight", "I32", {4, 32}, 512}, {"l.qzeros", "I32", {1, 4}, 16},
                                          {"l.scales", "F16", {1, 32}, 64}, {"l.g_idx", "I32", {32}, 128},
                                          {"f8", "F8_E4M3", {8}, 8}, {"f4", "F4", {4}, 2}}));
  write(root / "safetensors" / "index.json",
        std::string(R"({"metadata":{"total_size":96},"weight_map":{"a":"model-00001-of-00002.safetensors"}})"));
  write(root / "hf_config" / "llama.json",
        std::string(R"({"model_type":"llama","hidden_size":4096,"num_hidden_layers":32,"num_attention_heads":32,
"num_key_value_heads":8,"intermediate_size":14336,"vocab_size":128256,"max_position_embeddings":131072,
"quantization_config":{"quant_method":"gptq","bits":4,"group_size":128}})"));
  write(root / "hf_config" / "gemma3.json",
        std::string(R"({"model_type":"gemma3","text_config":{"hidden_size":2560,"num_hidden_layers":34,
"num_attention_heads":8,"num_key_value_heads":4,"head_dim":256,"intermediate_size":10240,"sliding_window":1024,
"sliding_window_pattern":6},"vision_config":{"hidden_size":1152,"intermediate_size":4304,"num_hidden_layers":27,
"patch_size":14,"image_size":896}})"));
  write(root / "hf_config" / "deepseek.json",
        std::string(R"({"model_type":"deepseek_v3","hidden_size":7168,"num_hidden_layers":61,"num_attention_heads":128,
"intermediate_size":18432,"moe_intermediate_size":2048,"n_routed_experts":256,"num_experts_per_tok":8,
"n_shared_experts":1,"first_k_dense_replace":3,"kv_lora_rank":512,"q_lora_rank":1536,"qk_nope_head_dim":128,
"qk_rope_head_dim":64,"v_head_dim":128,"vocab_size":129280,"topk_method":"noaux_tc"})"));
  write(root / "request" / "preset.json",
        std::string(R"({"model":"llama-3.1-8b","weights":"bf16","context":8192,"batch":1,"gpu":"rtx-4090"})"));
  write(root / "request" / "bare.json", std::string(R"({"params":7000000000,"weights":"int4","kv_dtype":"fp8"})"));
  write(root / "request" / "config.json",
        std::string(R"({"config_json":"{\"model_type\":\"llama\"}","headroom":0.1})"));
  return 0;
}
