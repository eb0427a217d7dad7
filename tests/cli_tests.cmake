# The CLI's contract with other scripts: flag names, exit codes, the JSON keys they read.
function(vramfit_cli_test name)
  cmake_parse_arguments(T "FAIL" "MATCH;EXIT" "ARGS" ${ARGN})
  set(expect 0)
  if(T_FAIL)
    set(expect nonzero)
  endif()
  if(DEFINED T_EXIT)
    set(expect ${T_EXIT})
  endif()
  string(REPLACE ";" "\\;" escaped_match "${T_MATCH}")
  add_test(NAME cli.${name}
           COMMAND "${CMAKE_COMMAND}" "-DCLI=$<TARGET_FILE:vramfit>" "-DARGS=${T_ARGS}" "-DEXPECT_RC=${expect}"
                   "-DMATCH=${escaped_match}" -P "${PROJECT_SOURCE_DIR}/cmake/run_cli_test.cmake")
endfunction()

# Llama-3.1-8B bf16 weights: 8,030,261,248 params × 2 B = 16,060,522,496 B.
# KV at 8192 tokens: 131,072 B/token × 8192 = 1,073,741,824 B.
vramfit_cli_test(json_breakdown ARGS --model llama-3.1-8b --weights bf16 --context 8192 --batch 1 --json
                 MATCH "\"breakdown\":{[^}]*\"kv_cache\":1073741824[^}]*\"weights\":16060522496")
vramfit_cli_test(json_has_all_keys ARGS --model llama-3.1-8b --json
                 MATCH "\"activations\":[0-9]+,\"allocator_reserve\":[0-9]+,\"in_use\":[0-9]+,\"kv_cache\":[0-9]+,\"overhead\":[0-9]+,\"state_cache\":[0-9]+,\"system_ram\":[0-9]+,\"total\":[0-9]+")
# 7e9 params × 2 B (fp16) = 14,000,000,000 B: the seed article's "7B in FP16 ≈ 14 GB".
vramfit_cli_test(bare_params ARGS --params 7e9 --weights fp16 --json MATCH "\"weights\":14000000000")
# A preset is found by its Ollama tag or Hugging Face id as well as its own id.
vramfit_cli_test(ollama_tag ARGS --model qwen3:30b-a3b --offline --json MATCH "\"id\":\"qwen3-30b-a3b\"")
# Issue 28: an Ollama tag is what Ollama runs under it. llama3.1:8b ships Q4_K_M (models.json cites the page), so
# offline the engine is Ollama and the weights Q4_K_M, each said in a note; an engine given is kept.
vramfit_cli_test(ollama_tag_engine ARGS --model llama3.1:8b --offline --json
                 MATCH "\"inputs\":{[^}]*\"engine\":\"ollama\"[^}]*\"weights\":\"q4_k_m\"}")
vramfit_cli_test(ollama_tag_notes ARGS --model llama3.1:8b --offline
                 MATCH "note: Ollama's llama3\\.1:8b: the engine is Ollama, as that name runs there; choose another engine to compare\\.\n.*note: Ollama's llama3\\.1:8b ships Q4_K_M weights \\(https://devtoolkit\\.sh/examples/llama/quantization\\)\\.")
vramfit_cli_test(ollama_tag_engine_given ARGS --model llama3.1:8b --engine vllm --offline --json
                 MATCH "\"engine\":\"vllm\"")
# A tag no source gives the weights of: the answer says they are assumed, and which.
vramfit_cli_test(ollama_tag_quant_unknown ARGS --model qwen3:32b --offline
                 MATCH "note: Which weights Ollama's qwen3:32b ships is not known offline: they are counted as Q4_K_M, assumed;")
# Memory already in use (--in-use, a size per GPU): 1.5 GB is 1.5 GiB = 1,610,612,736 B, a line of the breakdown.
vramfit_cli_test(in_use_json ARGS --model llama-3.1-8b --gpu rtx-4090 --in-use 1.5GB --json
                 MATCH "\"breakdown\":{[^}]*\"in_use\":1610612736")
# vLLM on an RTX A6000 (47.4 GiB) with 15 GiB in use: 31.9 GiB free < 0.92 × 47.4 = 43.6 GiB; 31.9 / 47.4 → 0.67.
vramfit_cli_test(in_use_vllm_refuses ARGS --model llama-3.1-8b --engine vllm --gpu rtx-a6000 --in-use 15GB --context 8192
                 MATCH "vLLM would not start: with [^\n]* in use[^\n]*gpu_memory_utilization 0\\.67 starts")
vramfit_cli_test(in_use_vllm_command ARGS --model llama-3.1-8b --engine vllm --gpu rtx-a6000 --in-use 15GB --context 8192 --json
                 MATCH "vllm serve [^\"]*--gpu-memory-utilization 0\\.67")
vramfit_cli_test(in_use_training_refused FAIL ARGS --model llama-3.1-8b --mode lora --in-use 2GB
                 MATCH "in_use|in-use")
# Other models loaded first (--also, repeated or comma-separated): each a breakdown line keyed by its id and context;
# llama-server's default context for one given without (common.h n_ctx 4096).
vramfit_cli_test(also_json ARGS --model qwen3-8b --engine llamacpp --gpu rtx-4090 --also qwen3-0.6b --also llama-3.2-1b@2048
                 --json MATCH "\"breakdown\":{[^}]*\"other_model:llama-3\\.2-1b@2048\":[0-9]+")
vramfit_cli_test(also_json_default_context ARGS --model qwen3-8b --engine llamacpp --gpu rtx-4090
                 --also qwen3-0.6b,llama-3.2-1b@2048 --json MATCH "\"breakdown\":{[^}]*\"other_model:qwen3-0\\.6b@4096\":[0-9]+")
vramfit_cli_test(also_table ARGS --model qwen3-8b --engine llamacpp --gpu rtx-4090 --also qwen3-0.6b@8k
                 MATCH "\\+ qwen3-0\\.6b +[0-9.]+ GB[^\n]*\\(8192 tokens\\)")
vramfit_cli_test(also_table_load_order ARGS --model qwen3-8b --engine llamacpp --gpu rtx-4090
                 --also qwen3-0.6b@4096,llama-3.2-1b@2048
                 MATCH "\n  \\+ qwen3-0\\.6b +[0-9.]+ GB[^\n]*\n  \\+ llama-3\\.2-1b +[0-9.]+ GB")
vramfit_cli_test(also_bad_context FAIL ARGS --model qwen3-8b --also qwen3-0.6b@lots
                 MATCH "--also: \"qwen3-0\\.6b@lots\": the context after @ must be a whole number of tokens")
vramfit_cli_test(also_duplicate FAIL ARGS --model qwen3-8b --gpu rtx-4090 --also qwen3-0.6b@4096 --also qwen3-0.6b@4096
                 MATCH "--also: \"qwen3-0\\.6b@4096\" is named twice among the other models on the GPU")
vramfit_cli_test(also_duplicate_default FAIL ARGS --model qwen3-8b --engine llamacpp --gpu rtx-4090
                 --also qwen3-0.6b,qwen3-0.6b@4096 MATCH "--also: qwen3-0\\.6b with 4096 tokens is named twice")
# A name that is no preset is looked up as --model looks one up (here offline, never read): the flag is named.
vramfit_cli_test(also_unknown FAIL ARGS --model qwen3-8b --gpu rtx-4090 --also no-such-model --offline
                 MATCH "--also: no-such-model:latest was never looked up on this machine[^\n]*no preset is called \"no-such-model\"")
vramfit_cli_test(hf_repo ARGS --model openai/GPT-OSS-20B --json MATCH "\"id\":\"gpt-oss-20b\"")
vramfit_cli_test(table ARGS --model llama-3.1-8b --gpu rtx-4090 MATCH "GeForce RTX 4090 +fits")
# Issue 28, point 10: names and words as people type them. "4bit" / "8bit" are the integer formats, as the page's
# pills and bitsandbytes' load_in_4bit / load_in_8bit say them.
vramfit_cli_test(weights_4bit ARGS --model llama-3.1-8b --weights 4bit --json MATCH "\"inputs\":{[^}]*\"weights\":\"int4\"}")
vramfit_cli_test(weights_8bit ARGS --model llama-3.1-8b --weights 8bit --json MATCH "\"inputs\":{[^}]*\"weights\":\"int8\"}")
# The vendor's word in front, as cloud consoles write it: read as the card, and said so with the other H100s.
vramfit_cli_test(gpu_vendor_prefix ARGS --model llama-3.1-8b --gpu "NVIDIA H100"
                 MATCH "note: \"NVIDIA H100\" read as NVIDIA H100 SXM \\(also NVIDIA H100 PCIe, NVIDIA H100 NVL: name one to pick it\\)\\.\n+Fits on one NVIDIA H100 SXM with")
# GPU names as nvidia-smi prints them ("NVIDIA H100 80GB HBM3": wilicc/gpu-burn#114; "Tesla V100-SXM2-32GB":
# NVIDIA/nvidia-docker#1076): the memory and the HBM generation pick the card; memory no card of the name has is refused.
vramfit_cli_test(gpu_nvidia_smi_name ARGS --model llama-3.1-8b --gpu "NVIDIA H100 80GB HBM3"
                 MATCH "note: \"NVIDIA H100 80GB HBM3\" read as NVIDIA H100 SXM\\.\n+Fits on one NVIDIA H100 SXM with")
vramfit_cli_test(gpu_nvidia_smi_memory ARGS --model llama-3.1-8b --gpu "Tesla V100-SXM2-32GB" --json
                 MATCH "\"gpus\":\\[{[^}]*\"id\":\"v100-32gb-sxm2\"")
vramfit_cli_test(gpu_memory_no_card FAIL ARGS --model llama-3.1-8b --gpu "NVIDIA GeForce RTX 4090 48GB"
                 MATCH "^vramfit: --gpu: \"NVIDIA GeForce RTX 4090 48GB\" names memory that no card of that name has in the GPU catalog; it has GeForce RTX 4090 \\(24 GB GDDR6X\\)")
# An Ollama library name is its tag "latest", as `ollama pull llama3.3` reads it (ollama's ParseName defaults the tag);
# Llama 3.3 comes in one size, 70b, so llama3.3:latest is llama3.3:70b: that preset, not every name containing
# "llama3.3" (Llama-3.3-Nemotron-Super-49B).
vramfit_cli_test(ollama_library_latest ARGS --model llama3.3 --offline
                 MATCH "note: \"llama3\\.3\" read as Llama-3\\.3-70B-Instruct: Ollama's llama3\\.3 is its tag latest, the same weights as llama3\\.3:70b\\.\n")
vramfit_cli_test(ollama_library_not_nemotron ARGS --model llama3.3 --offline --json MATCH "\"id\":\"llama-3\\.3-70b\"")
# A library whose "latest" no preset lists, offline and never looked up: why it cannot be read here, and the library's
# presets it could be, none of the other names that contain it.
vramfit_cli_test(ollama_name_offline FAIL ARGS --model llama3.1 --offline
                 MATCH "^vramfit: --model: llama3\\.1:latest was never looked up on this machine, so there is no copy to answer from offline; \"llama3\\.1\" could be llama-3\\.1-405b, llama-3\\.1-70b, llama-3\\.1-8b; name one")
vramfit_cli_test(help ARGS --help MATCH "--model.*--params.*--weights.*--kv-dtype.*--context.*--batch.*--engine.*--gpu.*--gpu-util.*--max-context.*--json")
vramfit_cli_test(unknown_flag FAIL ARGS --modle llama-3.1-8b MATCH "^vramfit: --modle: unknown flag")
# A bare name no preset holds may be an Ollama model: offline, the answer says both why it is neither.
vramfit_cli_test(unknown_model FAIL ARGS --model llama-9000 --offline MATCH "--model: llama-9000:latest was never looked up on this machine, so there is no copy to answer from offline; no preset is called \"llama-9000\" \\(closest: llama-[^)]*\\); for a model without a preset: drop or paste its config.json")
vramfit_cli_test(bad_context FAIL ARGS --model llama-3.1-8b --context 0
                 MATCH "^vramfit: --context: expected a whole number of tokens from 1 to 100,000,000, such as 8192 or 8k; got \"0\"")
vramfit_cli_test(huge_context FAIL ARGS --model llama-3.1-8b --context 999999999999
                 MATCH "--context: expected a whole number of tokens from 1 to 100,000,000, such as 8192 or 8k; got \"999999999999\"")
vramfit_cli_test(bad_weights FAIL ARGS --model llama-3.1-8b --weights fp12
                 MATCH "--weights: unknown weight format \"fp12\"; use fp32, fp16, bf16, fp8, int8, int4, nf4")
vramfit_cli_test(bad_batch FAIL ARGS --model llama-3.1-8b --batch -3 MATCH "--batch: expected a whole number from 1 to 1,000,000; got \"-3\"")
vramfit_cli_test(missing_config FAIL ARGS --model ./does-not-exist.json MATCH "--model: cannot read")
vramfit_cli_test(list_models ARGS --list-models MATCH "llama-3.1-405b")
# Engine profiles and their flags.
vramfit_cli_test(vllm_capacity ARGS --model llama-3.1-8b --engine vllm --gpu h100-sxm --gpu-util 0.9 --context 8192 --json
                 MATCH "\"kv_capacity_bytes\":[0-9]+.*\"max_concurrency\":[0-9]+")
# Llama-3-8B Q4_K_M at n_ctx 8192, -fa off: compute buffer 560.00 MiB = 587,202,560 B (ollama log).
vramfit_cli_test(llamacpp_buffers ARGS --model llama-3.1-8b --engine llamacpp --weights q4_k_m --context 8192
                 --attention eager --json MATCH "\"compute_buffer_bytes\":587202560.*\"host_ram_bytes\":[0-9]+")
vramfit_cli_test(max_context ARGS --model llama-3.1-8b --max-context --gpu rtx-4090 --json MATCH "\"max_context\":[0-9]+")
# vLLM at --gpu-util 0.8 keeps 0.2 of an H100 free: 0.8 × 85,899,345,920 B = 68,719,476,736 B, as in the GPU table.
vramfit_cli_test(vllm_util_budget ARGS --model llama-3.1-8b --engine vllm --gpu h100-sxm --gpu-util 0.8 --max-context --json
                 MATCH "\"budget_bytes\":68719476736,")
# The CLI translates flags into a request and the core checks it: a flag given twice, or two questions, are the
# command line's own mistakes; a fraction may be typed as a percentage, as the request reads it.
vramfit_cli_test(flag_twice FAIL ARGS --model llama-3.1-8b --context 1 --context 2 MATCH "^vramfit: --context: given twice; give it once")
vramfit_cli_test(two_questions FAIL ARGS --model llama-3.1-8b --rank-gpus --biggest
                 MATCH "^vramfit: --biggest: asks another question than --rank-gpus; give one")
vramfit_cli_test(gpu_util_percent ARGS --model llama-3.1-8b --engine vllm --gpu h100-sxm --gpu-util 80% --max-context --json
                 MATCH "\"budget_bytes\":68719476736,")
vramfit_cli_test(bad_engine FAIL ARGS --model llama-3.1-8b --engine tgi
                 MATCH "^vramfit: --engine: expected one of transformers, vllm, llamacpp, sglang, ollama, mlx; got \"tgi\"")
vramfit_cli_test(bad_kv_dtype FAIL ARGS --model llama-3.1-8b --kv-dtype q5 MATCH "--kv-dtype: expected one of fp32, fp16, bf16, fp8, q8_0, q4_0; got \"q5\"")
vramfit_cli_test(bad_kv_allocation FAIL ARGS --model llama-3.1-8b --kv-allocation dynamic
                 MATCH "--kv-allocation: expected one of static, paged; got \"dynamic\"")
vramfit_cli_test(bad_gpu_util FAIL ARGS --model llama-3.1-8b --gpu-util 1.5 MATCH "--gpu-util: expected a fraction above 0 and at most 1, such as 0.4 or 40%; got \"1.5\"")
# --gpu-util is vLLM's gpu_memory_utilization: another engine does not read it, so it is refused, not ignored.
vramfit_cli_test(gpu_util_other_engine FAIL ARGS --model llama-3.1-8b --engine llamacpp --gpu-util 0.8
                 MATCH "^vramfit: --gpu-util: applies to vLLM only; llama.cpp does not read it")
vramfit_cli_test(gpu_util_default_engine FAIL ARGS --model llama-3.1-8b --gpu-util 0.8 MATCH "--gpu-util: .*transformers does not read it")
# vLLM has no Metal backend: on a Mac it is refused, naming the engines that run there.
vramfit_cli_test(vllm_on_mac FAIL ARGS --model llama-3.1-8b --engine vllm --gpu apple-m2-ultra-192gb
                 MATCH "^vramfit: --engine: vLLM has no Apple GPU backend and does not run on the .*; on a Mac choose one of llama.cpp / Ollama / MLX with --engine")
# vLLM's scheduler runs at most max_num_seqs sequences: the largest batch is 64, and the answer says that binds.
vramfit_cli_test(vllm_batch_max_num_seqs ARGS --model llama-3.1-8b --engine vllm --gpu h100-sxm --context 1024 --max-num-seqs 64
                 --max-context --json MATCH "\"batch_limit\":\"max_num_seqs\",.*\"max_batch\":64,")
vramfit_cli_test(gguf_weights ARGS --model llama-3.1-8b --engine llamacpp --weights q4_k_m --kv-dtype q8_0 --json
                 MATCH "\"weights\":\"q4_k_m\"")
# transformers dequantizes a GGUF file to fp32 as it loads it (transformers docs, GGUF): 8.03 B parameters × 4 B.
vramfit_cli_test(gguf_transformers_fp32 ARGS --model llama-3.1-8b --weights q4_k_m
                 MATCH "weights +32\\.12 GB.*dequantizes the q4_k_m GGUF file to fp32")
# One verdict for the headline and the GPU table. Ollama with layers in system RAM (ollama#5913: layers.model=81
# layers.offload=43 on one 24 GiB GPU): the headline says it runs, and the GPU's row says the same, not "needs 2 GPUs",
# with what that placement leaves free (the log's 23.7 GiB of 24: under a GiB), not the card less the whole model.
vramfit_cli_test(ollama_split_headline_and_row ARGS --model qwen2.5-72b --engine ollama --engine-version 0.11.10 --context 2048 --weights q4_k_s
                 --gpu rx-7900-xtx
                 MATCH "\nRuns on one AMD Radeon RX 7900 XTX with Ollama: 43 of 81 layers on the GPU, [0-9.]+ GB in system RAM, num_ctx 2,048\n  as the engine places it: [^\n]+ on the GPU, [^\n]+ in system RAM\n  AMD Radeon RX 7900 XTX +runs with 43 of 81 layers on the GPU +\\+0\\.[0-9] GB free\n")
# vLLM with no KV block left (16.06 GB of bf16 weights in 0.9 × 16 GiB) would not start: the headline says so.
vramfit_cli_test(vllm_refuses_headline ARGS --model llama-3.1-8b --engine vllm --weights bf16 --gpu rtx-4080
                 MATCH "\nvLLM would not start on one GeForce RTX 4080: its KV cache holds 0 tokens, less than one sequence of 131,072\n")
# How several GPUs share the model, in words.
vramfit_cli_test(layer_split_words ARGS --model llama-3.3-70b --engine llamacpp --weights q4_k_m --gpu rtx-3090 --gpus 2
                 MATCH "per GPU      2 GPUs, layers split across GPUs \\(llama.cpp --tensor-split\\); the fullest decides:.*\nFits on your 2 × GeForce RTX 3090 with [0-9.]+ GB free each\n")
# Speed, cost and the hardware questions.
vramfit_cli_test(gpu_speed_json ARGS --model llama-3.1-8b --engine llamacpp --weights q4_k_m --gpu rtx-4090 --json
                 MATCH "\"cost\":{[^}]*\"usd_per_hour\":0.34.*\"decode_tokens_per_second\":{\"high\":[0-9.e+]+,\"low\":[0-9.e+]+}.*\"prefill_tokens_per_second\":{\"high\":[0-9.e+]+,\"low\":[0-9.e+]+}.*\"speed\":{\"bytes_per_step\"")
vramfit_cli_test(gpu_speed_table ARGS --model llama-3.1-8b --engine llamacpp --weights q4_k_m --gpu rtx-4090
                 MATCH "decode +[0-9.]+–[0-9.]+ tokens/s.*prefill +[0-9]+–[0-9]+ tokens/s.*Cost: \\$0.34/hour")
# The M5's GPU multiplies in its Neural Accelerators, for which Apple publishes no 16-bit figure: no prefill, and why.
vramfit_cli_test(apple_m5_no_prefill ARGS --model llama-3.1-8b --engine llamacpp --weights q4_k_m --gpu apple-m5-max-128gb --json
                 MATCH "\"prefill_tokens_per_second\":null.*\"prefill_unavailable\":{[^}]*},\"id\":\"[a-z._]+\",\"text\":\"Apple M5 Max 128GB \\(40-core GPU\\) has no")
vramfit_cli_test(apple_prefill ARGS --model llama-3.1-8b --engine llamacpp --weights q4_k_m --gpu apple-m2-ultra-192gb
                 MATCH "prefill +[0-9]+–[0-9]+ tokens/s")
vramfit_cli_test(no_gpu_no_speed ARGS --model llama-3.1-8b --json
                 MATCH "\"cost\":null.*\"decode_tokens_per_second\":null.*\"prefill_tokens_per_second\":null.*\"speed\":null")
# RTX 4090: 450 W × 1 h = 0.45 kWh; × $0.30/kWh = $0.135.
vramfit_cli_test(energy ARGS --model llama-3.1-8b --gpu rtx-4090 --usd-per-kwh 0.30 --json
                 MATCH "\"energy\":{[^}]*\"kwh_per_hour\":0.45,\"tdp_w\":450.0,\"usd_per_hour\":0.135")
vramfit_cli_test(recommend_json ARGS --model llama-3.1-8b --rank-gpus --gpus rtx-4090,a100-80gb-sxm,h100-sxm --json
                 MATCH "^{\"break_even_hours\":[0-9.e+]+,\"cheapest_per_hour\":{\"count\":1,\"gpu\":\"rtx-4090\"[^}]*},\"cheapest_per_million_tokens\":{[^}]+},\"cheapest_to_buy\":{\"count\":1,\"gpu\":\"rtx-4090\"[^}]*},\"fastest\":{\"count\":[0-9]+,\"gpu\":\"h100-sxm\".*\"ranking\":\\[{\"count\":[0-9]+,\"fit\":\"fits\",\"fits\":true,\"free_bytes\":[0-9]+,\"gpu\":\"[a-z0-9-]+\",\"name\":\"[^\"]+\",\"note\":null,\"purchase_date\":(null|\"[0-9-]+\"),\"purchase_usd\":(null|[0-9.]+),\"tokens_per_second\":{\"high\":[0-9.e+]+,\"low\":[0-9.e+]+},\"usd_per_hour\":[0-9.]+,\"usd_per_million_tokens\":{\"high\":[0-9.e+]+,\"low\":[0-9.e+]+},\"within_budget\":true}")
vramfit_cli_test(recommend_table ARGS --model llama-3.1-70b --weights bf16 --rank-gpus --gpus h100-sxm,rtx-4090
                 MATCH "Fits, cheapest per 1M tokens first.*Cheapest per hour: +8 × GeForce RTX 4090.*Fastest: +2 × NVIDIA H100 SXM.*Does not fit, closest first")
# A used-card pair to buy against the cheapest GPU to rent: 2 × $260 = $520; $520 ÷ $0.33/h ≈ 1,576 hours
# (data/gpus.json's street and cloud prices). A card without a street price shows "unknown", never $0.
vramfit_cli_test(recommend_buy ARGS --model llama-3.1-70b --weights q4_k_m --engine llamacpp --rank-gpus
                 --gpus rtx-3090,rtx-a6000,tesla-p40,h100-sxm
                 MATCH "\\$/1M tokens +buy\n.*NVIDIA H100 SXM +1 [^\n]* unknown\n.*Cheapest to buy: +2 × NVIDIA Tesla P40: about \\$520 \\(price of 2026-06\\)\n.*note: Buying 2 × NVIDIA Tesla P40 for about \\$520 [^\n]* costs as much as 1,576 hours of renting 1 × NVIDIA RTX A6000 at \\$0.33/h\\. Electricity")
vramfit_cli_test(recommend_budget_excludes_all ARGS --model llama-3.1-70b --weights bf16 --rank-gpus --budget-per-hour 0.01 --json
                 MATCH "\"cheapest_per_hour\":null,\"cheapest_per_million_tokens\":null,\"cheapest_to_buy\":{[^}]+},\"fastest\":null.*\"notes\":\\[[^]]*Nothing that fits costs at most \\$0.01/h; the cheapest that fits is [^]]*\\],\"ok\":true,\"ranking\":\\[{")
vramfit_cli_test(bad_budget FAIL ARGS --model llama-3.1-8b --rank-gpus --budget-per-hour -1
                 MATCH "^vramfit: --budget-per-hour: expected a number above 0; got \"-1\"")
vramfit_cli_test(bad_gpus FAIL ARGS --model llama-3.1-8b --rank-gpus --gpus voodoo
                 MATCH "^vramfit: --gpus: unknown GPU \"voodoo\" \\(not in the GPU catalog\\); list them with --list-gpus")
vramfit_cli_test(recommend_no_ngl FAIL ARGS --model llama-3.1-8b --engine llamacpp --ngl 10 --rank-gpus MATCH "^vramfit: --ngl: ")
vramfit_cli_test(bad_prompt FAIL ARGS --model llama-3.1-8b --gpu rtx-4090 --prompt 0 MATCH "^vramfit: --prompt: expected a whole number of tokens from 1 to 100,000,000, such as 8192 or 8k; got \"0\"")
vramfit_cli_test(bad_system_bandwidth FAIL ARGS --model llama-3.1-8b --system-bandwidth fast
                 MATCH "^vramfit: --system-bandwidth: expected a number above 0 and at most 10,000; got \"fast\"")
vramfit_cli_test(biggest_json ARGS --biggest --gpu rtx-4090 --engine llamacpp --weights q8_0 --json
                 MATCH "\"biggest\":{[^}]*\"model\":\"[a-z0-9.-]+\"[^}]*\"weights\":\"q8_0\"}")
vramfit_cli_test(biggest_table ARGS --biggest --gpu rtx-4090 --engine llamacpp --context 8k
                 MATCH "On GeForce RTX 4090 .*context 8192.*biggest: +[a-z0-9.-]+ +q[0-9]_k")
vramfit_cli_test(biggest_needs_gpu FAIL ARGS --biggest --engine llamacpp MATCH "^vramfit: --gpu: name the card")
# What would help: 13B in FP16 overflows a 24 GB card, its INT8 form fits (the seed article's example);
# ZeRO-Offload moves 16 B of a mixed-precision AdamW parameter's 18 B to host RAM: 16 × 7e9 = 112e9.
vramfit_cli_test(help_table ARGS --model llama-2-13b --gpu rtx-4090 --context 4096 --remedies
                 MATCH "What would help \\(inference.*weights-8bit +saves +[0-9.]+ GB +[0-9.]+ GiB -> +[0-9.]+ GB +[0-9.]+ GiB +fits")
vramfit_cli_test(help_training_json ARGS --params 7e9 --mode train --remedies --json
                 MATCH "\"id\":\"offload-optimizer\",\"inputs\":{\"offload\":\"optimizer\",\"zero\":\"2\"},\"parts\":\\[\"offload-optimizer\"\\],\"saved_bytes\":112000000000")
# One RTX 4090 and Llama 3.1 70B in bf16: 80 layers of 855,638,016 weights × 2 B = 1.71 GB each, 141 GB against
# 24 GiB. Nothing of transformers' fits; llama.cpp's --fit keeps 13 layers on the GPU's ~22 GiB (less its 1 GiB
# margin) and the rest in system RAM: that runs, listed first with its speed; 4-bit with it later; 8 GPUs last.
vramfit_cli_test(help_one_gpu ARGS --model llama-3.1-70b --gpu rtx-4090 --remedies
                 MATCH "What would help \\(inference[^\n]*\n  Nothing here fits on your GeForce RTX 4090 with the headroom free[^\n]*\n  offload +saves [^\n]* on the GPU \\+ [^\n]* in system RAM  runs, part in system RAM\n +then: Runs on one GeForce RTX 4090 as llama.cpp --fit places it: 13 of 80 layers on the GPU[^\n]*\n +cost: llama.cpp from a GGUF file: [^\n]*tokens/s.*\n  weights-4bit\\+offload +saves .*\n  more-gpus +saves [^\n]* fits\n +then: Fits on your 8 × GeForce RTX 4090[^\n]*\n +cost: [^\n]*\n$")
# The same as JSON: the change's request inputs, its parts, and the verdict the headline would give afterwards.
vramfit_cli_test(help_one_gpu_json ARGS --model llama-3.1-70b --gpu rtx-4090 --remedies --json
                 MATCH "\"id\":\"offload\",\"inputs\":{\"context\":8192,\"engine\":\"llamacpp\"},\"parts\":\\[\"offload\"\\],.*\"verdict\":\"runs_split\"}.*\"id\":\"more-gpus\".*\"summary\":{.*\"id\":\"remedy.summary.runs\",\"text\":\"[^\"]*\"},\"verdict\":\"does_not_fit\"}")
vramfit_cli_test(help_bad_input FAIL ARGS --model llama-2-7b --context 0 --remedies MATCH "^vramfit: --context: ")
# A Strix Halo too small by Linux's default share (64 of 128 GiB) for Llama 3.3 70B in Q8_0: raising the GPU's share
# comes first, as the kernel parameter in 4 KiB pages. The estimate with all of it on the GPU, 77.39 GB, within the
# 0.9 headroom needs 77,385,072,592 / 0.9 = 85,983,413,991 B = 80.08 GiB: 81 GiB = 81 × 262,144 = 21,233,664 pages.
vramfit_cli_test(help_gpu_share ARGS --model llama-3.3-70b --weights q8_0 --engine llamacpp --context 8192
                 --gpu "Strix Halo" --remedies
                 MATCH "comes first[^\n]*\n  wired-limit +GPU may use [^\n]*81.00 GiB  fits\n +then: Fits on one AMD Ryzen AI Max\\+ 395 128GB[^\n]*\n +cost: Start Linux with the kernel parameter ttm.pages_limit=21233664 \\(4 KiB pages: 81 GiB;")
# Issue 28 in the CLI. 1: a context as people write it; k and M are 1,024 and 1,024² tokens (8 × 1,024 = 8,192;
# 1,024² = 1,048,576), 1e5 = 100,000.
vramfit_cli_test(context_8k ARGS --model llama-3.1-8b --context 8k --json MATCH "\"inputs\":{[^}]*\"context\":8192,")
vramfit_cli_test(context_1M ARGS --model llama-3.1-8b --context 1M --json MATCH "\"inputs\":{[^}]*\"context\":1048576,")
vramfit_cli_test(context_1e5 ARGS --model llama-3.1-8b --context 1e5 --json MATCH "\"inputs\":{[^}]*\"context\":100000,")
# 3: an engine that would not start has no speed (16.06 GB of bf16 weights in vLLM's 0.9 × 16 GiB leave no KV block).
vramfit_cli_test(vllm_refuses_no_speed ARGS --model llama-3.1-8b --engine vllm --weights bf16 --gpu rtx-4080
                 MATCH "\nvLLM would not start on one GeForce RTX 4080: [^\n]*\n[^\n]*\n+  Speed on one GeForce RTX 4080:\n    not estimated: vLLM would not start with these settings, so it has no speed\n")
# 4: a Mac is one GPU per machine: two are refused at --gpus, and in the list of cards two of each leaves Macs unjudged.
vramfit_cli_test(mac_twice FAIL ARGS --model llama-3.1-8b --gpu apple-m3-max-36gb --gpus 2
                 MATCH "^vramfit: --gpus: Apple M3 Max 36GB \\(30-core GPU\\): one GPU per machine")
vramfit_cli_test(macs_one_per_machine ARGS --model llama-3.1-8b --gpus 2 MATCH "\n  Apple M3 Max 36GB [^\n]* +one per machine: not judged for several\n")
# 5: Llama 3.1 70B in bf16 (141.1 GB of weights) on one RTX 4090: "Needs 8 ×", as many as the option of more GPUs
# names (cli.help_one_gpu: "then: Fits on your 8 × GeForce RTX 4090").
vramfit_cli_test(needs_as_remedies ARGS --model llama-3.1-70b --gpu rtx-4090 MATCH "\nNeeds 8 × GeForce RTX 4090\n")
# --help fits a terminal: no line over 100 bytes (multi-byte signs such as × count by their bytes, stricter).
add_test(NAME cli.help_width
         COMMAND sh -c "\"$1\" --help | LC_ALL=C awk 'length > 100 { print; long = 1 } END { exit long }'" sh $<TARGET_FILE:vramfit>)
vramfit_cli_test(help_lists_hardware_flags ARGS --help MATCH "--system-bandwidth.*--prompt.*--usd-per-kwh.*--gpus.*--budget-per-hour.*--rank-gpus.*--biggest")

# Training. The seed article's 7B: mixed-precision AdamW with fp32 gradients (HF Trainer) keeps
# 7e9 × 2 B weights = 14 GB, 7e9 × 4 B gradients = 28 GB, 7e9 × 12 B optimizer (fp32 master + m + v) = 84 GB.
vramfit_cli_test(train_json ARGS --mode train --params 7e9 --json
                 MATCH "\"gradients\":28000000000.*\"optimizer\":84000000000.*\"weights\":14000000000")
vramfit_cli_test(train_keys ARGS --mode train --params 7e9 --json MATCH "\"host_ram_bytes\":[0-9]+")
vramfit_cli_test(train_bad_zero FAIL ARGS --mode train --params 7e9 --zero 5
                 MATCH "--zero: expected one of 0, 1, 2, 3, NO_SHARD, SHARD_GRAD_OP, FULL_SHARD; got \"5\"")
vramfit_cli_test(train_flag_without_mode FAIL ARGS --model llama-2-7b --zero 3
                 MATCH "--zero: applies to training; set mode to train, lora or qlora")
vramfit_cli_test(train_bad_mode FAIL ARGS --mode pretrain --params 7e9 MATCH "--mode: ")
# --gpus is a job's GPU count in training and a GPU list for --rank-gpus.
vramfit_cli_test(recommend_gpu_list ARGS --rank-gpus --model llama-3.1-8b --gpus rtx-4090,l40s --json
                 MATCH "\"ranking\":\\[")
vramfit_cli_test(qlora_fits_4090 ARGS --mode qlora --model llama-2-7b --gpu rtx-4090 MATCH "GeForce RTX 4090 +fits")
# A device reports size 0 and would be read forever: refused at once.
vramfit_cli_test(model_not_regular FAIL ARGS --model /dev/zero.gguf MATCH "--model: \"/dev/zero.gguf\" is not a regular file")
# A file's kind is its extension in any case, as the core's path rule reads it: read as a GGUF, not as a config.json.
vramfit_cli_test(model_extension_case FAIL ARGS --model /dev/zero.GGUF MATCH "--model: \"/dev/zero.GGUF\" is not a regular file")

# The measuring script reproduces the committed activation bytes (three cases); skipped without torch.
add_test(NAME measure.activations
         COMMAND sh -c "for p in python3 /usr/bin/python3; do if $p -c 'import torch' 2>/dev/null; then exec $p tests/measure/activations.py --quick --check tests/data/measured/activations.json; fi; done; exit 77"
         WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}")
set_tests_properties(measure.activations PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
vramfit_cli_test(train_refuses_weights FAIL ARGS --mode train --model llama-3.1-8b --weights fp32
                 MATCH "^vramfit: --weights: training keeps its weights by --precision")
# --command prints only the engine's command line; transformers has none, and says so on stderr.
# Qwen3-30B-A3B F16 on a 16 GB card: 16384 − 544 MiB (CUDA context, cuBLAS) free, less the 1024 MiB margin = 14816;
# at the 4096 floor 2465.5 MiB of attention, router, KV and compute leave 10 × 1152 MiB of experts: 38 to RAM.
vramfit_cli_test(command_llamacpp_fit ARGS --model qwen3-30b-a3b --engine llamacpp --weights f16 --gpu rtx-4060-ti-16gb --command
                 MATCH "^llama-server -m Qwen3-30B-A3B-F16.gguf -c 4096 -ngl 48 --n-cpu-moe 38  # llama.cpp b10488\n$")
vramfit_cli_test(command_vllm ARGS --model llama-3.1-8b --engine vllm --gpu h100 --tp 2 --context 16000 --command
                 MATCH "^vllm serve meta-llama/Llama-3.1-8B --tensor-parallel-size 2 --max-model-len 16000  # vLLM 0.27\n$")
# The version asked closes the command, not the first version of the rule it falls under (0.5.3 to 0.5.9 share
# ServerArgs._handle_gpu_memory_settings); mlx-lm likewise.
vramfit_cli_test(command_sglang_version ARGS --model llama-3.1-8b --engine sglang --engine-version 0.5.9 --gpu h100
                 --command MATCH "^python -m sglang\\.launch_server --model-path meta-llama/Llama-3\\.1-8B  # SGLang 0\\.5\\.9\n$")
vramfit_cli_test(command_mlx_version ARGS --model llama-3.1-8b --engine mlx --engine-version 0.26.4 --gpu apple-m3-max-128gb
                 --command MATCH "  # mlx-lm 0\\.26\\.4\n$")
# Ollama from 0.30 runs llama-server: on an RTX 4090 (23.68 GiB ≥ 23 GiB) its own default context is 32768, so the
# command sets nothing; the report still names the engine ollama (llm/llama_server.go, server/routes.go).
vramfit_cli_test(command_ollama_server ARGS --model llama-3.1-8b --engine ollama --engine-version 0.33.0 --gpu rtx-4090
                 --context 8192 --kv-dtype q8_0 --command
                 MATCH "^OLLAMA_CONTEXT_LENGTH=8192 OLLAMA_KV_CACHE_TYPE=q8_0 ollama serve  # Ollama 0.33.0\n$")
vramfit_cli_test(json_ollama_server ARGS --model llama-3.1-8b --engine ollama --engine-version 0.33.0 --gpu rtx-4090 --json
                 MATCH "\"context\":32768,\"context_source\":\"engine_default\",\"engine\":\"ollama\"")
vramfit_cli_test(ollama_version_refused FAIL ARGS --model llama-3.1-8b --engine ollama --engine-version 0.20
                 MATCH "^vramfit: --engine-version: \"0.20\" is not an Ollama version that is modelled; allowed: up to 0.11.10")
vramfit_cli_test(command_transformers FAIL ARGS --model llama-3.1-8b --command
                 MATCH "^vramfit: --command: transformers is a library, not a server")
# The same on an RTX 4090 (driver total 23.68 GiB = 24248 MiB, 23704 free, target 22680): 20214 MiB for experts,
# 17 layers' worth (the fit-params README's 4090 had 3.6 GiB taken by something else and kept 14).
vramfit_cli_test(table_llamacpp_fit ARGS --model qwen3-30b-a3b --engine llamacpp --weights f16 --gpu rtx-4090
                 MATCH "llama.cpp --fit, [0-9.]+ GiB free less a 1024 MiB margin: context 40960 -> 4096, experts of layers 17-47 in system RAM \\(--n-cpu-moe 31\\)")

# An NVIDIA checkpoint as downloaded: nvidia/Llama-3.1-70B-Instruct-FP8's config.json names no quantization, its
# hf_quant_config.json says FP8. Copied into the build folder as a checkpoint folder (config.json alone, and with
# hf_quant_config.json beside it) and as a Hugging Face cache snapshot (models--OWNER--NAME/snapshots/REV/).
set(checkpoints "${CMAKE_CURRENT_BINARY_DIR}/checkpoints")
set(fp8_source "${PROJECT_SOURCE_DIR}/tests/data/configs/nvidia--Llama-3.1-70B-Instruct-FP8")
configure_file("${fp8_source}_config.json" "${checkpoints}/alone/Llama-3.1-70B-Instruct-FP8/config.json" COPYONLY)
configure_file("${fp8_source}_config.json"
               "${checkpoints}/cache/models--nvidia--Llama-3.1-70B-Instruct-FP8/snapshots/0123abc/config.json" COPYONLY)
configure_file("${fp8_source}_config.json" "${checkpoints}/whole/Llama-3.1-70B-Instruct-FP8/config.json" COPYONLY)
configure_file("${fp8_source}_hf_quant_config.json"
               "${checkpoints}/whole/Llama-3.1-70B-Instruct-FP8/hf_quant_config.json" COPYONLY)
# An NVFP4 checkpoint too: nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4's config.json alone (byte for byte its BF16
# release's) asks for the file that holds its format.
configure_file("${PROJECT_SOURCE_DIR}/tests/data/configs/nvidia--NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4_config.json"
               "${checkpoints}/alone/NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4/config.json" COPYONLY)
vramfit_cli_test(checkpoint_asks_nvfp4 ARGS --model "${checkpoints}/alone/NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4/config.json"
                 MATCH "^Give its hf_quant_config.json too \\(--quant-config FILE, or keep it beside the config.json\\): until then the weights are counted as bf16.\n")
# Alone it is counted in bf16, 70,553,706,496 parameters × 2 B = 141,107,412,992 B, and the answer asks for the file.
vramfit_cli_test(checkpoint_asks_json ARGS --model "${checkpoints}/alone/Llama-3.1-70B-Instruct-FP8/config.json" --json
                 MATCH "\"breakdown\":{[^}]*\"weights\":141107412992}.*\"missing_files\":\\[\"hf_quant_config.json\"\\].*\"id\":\"import.quant_config_missing\"")
vramfit_cli_test(checkpoint_asks_table ARGS --model "${checkpoints}/alone/Llama-3.1-70B-Instruct-FP8/config.json"
                 MATCH "^Give its hf_quant_config.json too \\(--quant-config FILE, or keep it beside the config.json\\): until then the weights are counted as bf16.\n.*  note: Llama-3.1-70B-Instruct-FP8: the name says FP8, but its config.json names no quantization")
vramfit_cli_test(checkpoint_asks_cache ARGS --model "${checkpoints}/cache/models--nvidia--Llama-3.1-70B-Instruct-FP8/snapshots/0123abc/"
                 MATCH "note: nvidia/Llama-3.1-70B-Instruct-FP8: the name says FP8")
# Beside it, hf_quant_config.json is read and said so: FP8 weights, 72.7 GB published (72.66 GB counted).
vramfit_cli_test(checkpoint_whole ARGS --model "${checkpoints}/whole/Llama-3.1-70B-Instruct-FP8/config.json"
                 MATCH "^Read with [^\n]*/whole/Llama-3.1-70B-Instruct-FP8/hf_quant_config.json, found beside the config.json.\n[^\n]*\n  engine transformers, fp8 weights[^\n]*\n  weights +72\\.[67][0-9] GB")
vramfit_cli_test(checkpoint_whole_json ARGS --model "${checkpoints}/whole/Llama-3.1-70B-Instruct-FP8/" --json
                 MATCH "\"missing_files\":\\[\\].*\"format\":\"fp8\"")

# --check, a preflight for scripts: one line, and the exit status says whether the model runs on the GPU.
# Llama 3.1 8B bf16: 16.06 GB of weights on an 80 GB H100 (pass, 0); Llama 3.1 70B bf16: 141.1 GB of weights on one
# 24 GB RTX 4090 (fail, 1); Llama 3.1 70B Q4_K_M (42.5 GB) on one 24 GB RTX 3090 under llama.cpp runs only with layers in
# system RAM (fail, 1); a negative context is a wrong input (2).
vramfit_cli_test(check_fits EXIT 0 ARGS --model llama-3.1-8b --gpu h100-sxm --check MATCH "^pass: Fits on one NVIDIA H100 SXM")
vramfit_cli_test(check_too_big EXIT 1 ARGS --model llama-3.1-70b --gpu rtx-4090 --check MATCH "^fail: Needs [0-9]+ × GeForce RTX 4090")
vramfit_cli_test(check_split EXIT 1 ARGS --model llama-3.1-70b --weights q4_k_m --engine llamacpp --gpu rtx-3090 --check
                 MATCH "^fail: Runs on one GeForce RTX 3090 as llama.cpp --fit places it")
vramfit_cli_test(check_bad_input EXIT 2 ARGS --model llama-3.1-8b --context -1 --check MATCH "vramfit: --context: ")
vramfit_cli_test(check_not_estimate EXIT 2 ARGS --model llama-3.1-8b --gpu rtx-4090 --rank-gpus --check
                 MATCH "vramfit: --check: checks an estimate's verdict")
vramfit_cli_test(check_with_json EXIT 2 ARGS --model llama-3.1-8b --check --json MATCH "vramfit: --check: prints one line")
# Issue 33: "unknown" as an answer. A bare count has no architecture, so its KV cache and activations are not counted:
# 7e9 × 2 B = 14 GB of weights fit a 24 GiB card, but whether the rest does is unknown, and the answer says why.
vramfit_cli_test(bare_unknown ARGS --params 7e9 --weights fp16 --gpu rtx-4090
                 MATCH "Unknown: Fits on one GeForce RTX 4090[^\n]*\n  why not certain: A bare parameter count has no architecture")
vramfit_cli_test(bare_unknown_json ARGS --params 7e9 --weights fp16 --gpu rtx-4090 --json
                 MATCH "\"verdict\":{\"certainty\":\"unknown\",\"certainty_reasons\":\\[{\"args\":{[^}]*},\"id\":\"certainty.bare\",\"text\":\"A bare parameter count")
# --check on that unknown answer neither passes nor fails: it exits 3 with the reason.
vramfit_cli_test(check_unknown EXIT 3 ARGS --params 7e9 --weights fp16 --gpu rtx-4090 --check
                 MATCH "^unknown: Fits on one GeForce RTX 4090[^\n]*\n  why not certain: A bare parameter count")
# 70e9 × 2 B = 140 GB of weights alone do not fit 24 GiB: certain, whatever the rest.
vramfit_cli_test(bare_short_certain ARGS --params 70e9 --weights fp16 --gpu rtx-4090 --json
                 MATCH "\"verdict\":{\"certainty\":\"certain\",\"certainty_reasons\":\\[\\]")
# Issue 34: a card by its numbers. A card of its own is named by its figures; one like a catalog card by that card and
# its memory; a figure that is wrong names its flag's field and what it takes.
vramfit_cli_test(custom_gpu ARGS --model llama-3.1-8b --gpu custom --gpu-memory 48GB --gpu-bandwidth 1008 --gpu-tflops 165
                 MATCH "Custom card, 48 GB, 1008 GB/s +fits")
# 48 GB = 48 × 2³⁰ B = 51,539,607,552 B.
vramfit_cli_test(custom_gpu_json ARGS --model llama-3.1-8b --gpu custom --gpu-memory "48 GiB" --json
                 MATCH "\"custom\":\"custom\",[^}]*\"id\":\"custom\",\"memory_bytes\":51539607552")
vramfit_cli_test(custom_gpu_like ARGS --model llama-3.1-8b --gpu rtx-4090 --gpu-memory 48GB
                 MATCH "GeForce RTX 4090 \\(48 GB\\) +fits")
# Among several cards the one described is the first, as the page sends its own card before a second one.
vramfit_cli_test(custom_gpu_devices ARGS --model llama-3.1-8b --engine llamacpp --gpus custom,rtx-3090 --gpu-memory 48GB
                 MATCH "Custom card, 48 GB")
vramfit_cli_test(custom_gpu_no_memory FAIL ARGS --model llama-3.1-8b --gpu custom
                 MATCH "--gpu-memory: is needed for a card of your own")
vramfit_cli_test(custom_gpu_bad_memory FAIL ARGS --model llama-3.1-8b --gpu custom --gpu-memory lots
                 MATCH "--gpu-memory: expected a memory size in GB from 1 to 16,384, such as 48GB or 24 GiB. got \"lots\"")
vramfit_cli_test(custom_gpu_bad_vendor FAIL ARGS --model llama-3.1-8b --gpu custom --gpu-memory 24GB --gpu-vendor ati
                 MATCH "--gpu-vendor: expected one of nvidia, amd, intel, apple. got \"ati\"")
# The remedies table names a card of its own as the answer does, not by its id "custom".
vramfit_cli_test(custom_gpu_remedies ARGS --model llama-3.1-70b --gpu custom --gpu-memory 24GB --remedies
                 MATCH "^What would help \\(inference, [^\n]*, on Custom card, 24 GB\\):")
# Money is written one way: thousands grouped, as the notes write them. A DGX Spark's $3,999 (data/gpus.json).
vramfit_cli_test(money_grouped ARGS --model llama-3.1-70b --weights q4_k_m --engine llamacpp --rank-gpus --gpus dgx-spark
                 MATCH "Cheapest to buy: +1 × NVIDIA DGX Spark \\(GB10\\): about \\$3,999 \\(price of 2026-06\\)")
vramfit_cli_test(custom_gpu_ranking ARGS --model llama-3.1-8b --gpu rtx-4090 --gpu-memory 48GB --rank-gpus --json
                 MATCH "\"gpu\":\"rtx-4090-with-48gb\"")
# Issue 31, vision: Gemma 3 27B's tower and projector, 423,060,336 parameters, in llama-server's F16 mmproj file
# (--mmproj): 846,120,672 B, plus clip's compute buffer for its 896² warm-up image, 64² = 4096 patches ×
# (4304 + 3 × 1152) floats × 4 B = 127,139,840 B: 973,260,512 B on the breakdown's own line.
vramfit_cli_test(vision_mmproj ARGS --model gemma-3-27b --engine llamacpp --weights q4_k_m --mmproj --json
                 MATCH "\"vision_encoder\":973260512")
vramfit_cli_test(vision_table ARGS --model gemma-3-27b --images 2 --image-size 1024x768 MATCH "\n  vision +[0-9]")
vramfit_cli_test(vision_text_model FAIL ARGS --model llama-3.1-8b --images 1 MATCH "^vramfit: --images: ")
# The command names the projector's own file beside the model's (llama-server --mmproj).
vramfit_cli_test(vision_command ARGS --model gemma-3-27b --engine llamacpp --weights q4_k_m --mmproj --command
                 MATCH "^llama-server -m Gemma-3-27B-vision-text-Q4_K_M.gguf --mmproj mmproj-Gemma-3-27B-vision-text-F16.gguf -c 4096  # llama.cpp b10488\n$")

# Speculative decoding's draft (issue 31). llama-server gives each slot a draft context at the slot's context:
# Qwen2.5-0.5B's 24 layers × 2 KV heads × 64 × (K + V) × 2 B = 12,288 B a token, × 4096 = 50,331,648 B.
vramfit_cli_test(draft_llamacpp ARGS --model qwen2.5-7b --engine llamacpp --weights q4_k_m --context 4096
                 --draft qwen2.5-0.5b --json
                 MATCH "\"breakdown\":{[^}]*\"draft\":[0-9]+.*\"draft_model\":{[^}]*\"kv_cache\":50331648")
# -md alone loads the draft without speculating since ggml-org/llama.cpp#23988 ("users must now explicitly enable it";
# issue #25345: "the draft model loaded but speculation never engaged"): the command names --spec-type draft-simple.
vramfit_cli_test(draft_llamacpp_command ARGS --model qwen2.5-7b --engine llamacpp --weights q4_k_m --draft qwen2.5-0.5b
                 --draft-tokens 8 MATCH "--spec-type draft-simple -md Qwen2\\.5-0\\.5B-Q4_K_M\\.gguf --spec-draft-n-max 8")
# An EAGLE-3 head read from its config.json (yuhuili/EAGLE3-LLaMA3.1-Instruct-8B): 424,689,664 parameters by hand
# (test_draft.cpp), in bf16 with its vocabulary maps 849,763,584 B.
vramfit_cli_test(draft_eagle3_config ARGS --model llama-3.1-8b --engine vllm --draft-tokens 3 --json
                 --draft "${PROJECT_SOURCE_DIR}/tests/data/drafts/yuhuili--EAGLE3-LLaMA3.1-Instruct-8B_config.json"
                 MATCH "\"draft_model\":{[^}]*\"kind\":\"EAGLE-3\"[^}]*\"weights\":849763584")
# Ollama has no speculative decoding: refused by the input's engines.
vramfit_cli_test(draft_ollama FAIL ARGS --model qwen2.5-7b --engine ollama --draft qwen2.5-0.5b MATCH "--draft")
# A draft's .gguf is read by its header as --model reads one (tests/node/lookup-draft-cli.test.mjs); one that is not
# there is said so, naming --draft.
vramfit_cli_test(draft_gguf FAIL ARGS --model qwen2.5-7b --engine llamacpp --draft draft.gguf
                 MATCH "^vramfit: --draft: \"draft\.gguf\" is not a regular file")
# llama.cpp's build as asked closes its command (b9297: --fit plans without a draft's room, PR #23485 came in b9305).
vramfit_cli_test(command_llamacpp_build ARGS --model llama-3.1-8b --engine llamacpp --engine-version b9297 --command
                 MATCH "  # llama.cpp b9297\n$")
vramfit_cli_test(llamacpp_build_refused FAIL ARGS --model llama-3.1-8b --engine llamacpp --engine-version b9000
                 MATCH "^vramfit: --engine-version: \"b9000\" is not a llama.cpp build that is modelled; allowed: b9297 to b10488")
