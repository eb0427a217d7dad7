# The CLI's contract with other scripts: flag names, exit codes, the JSON keys they read.
function(vramfit_cli_test name)
  cmake_parse_arguments(T "FAIL" "MATCH" "ARGS" ${ARGN})
  set(expect 0)
  if(T_FAIL)
    set(expect nonzero)
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
                 MATCH "\"activations\":[0-9]+,\"allocator_reserve\":[0-9]+,\"kv_cache\":[0-9]+,\"overhead\":[0-9]+,\"total\":[0-9]+")
# 7e9 params × 2 B (fp16) = 14,000,000,000 B: the seed article's "7B in FP16 ≈ 14 GB".
vramfit_cli_test(bare_params ARGS --params 7e9 --weights fp16 --json MATCH "\"weights\":14000000000")
vramfit_cli_test(table ARGS --model llama-3.1-8b --gpu rtx-4090 MATCH "GeForce RTX 4090 +fits")
vramfit_cli_test(help ARGS --help MATCH "--model.*--params.*--weights.*--kv-dtype.*--context.*--batch.*--engine.*--gpu.*--gpu-util.*--max-context.*--json")
vramfit_cli_test(unknown_flag FAIL ARGS --modle llama-3.1-8b MATCH "^vramfit: --modle: unknown flag")
vramfit_cli_test(unknown_model FAIL ARGS --model llama-9000 MATCH "--model: unknown model \"llama-9000\"; known: ")
vramfit_cli_test(bad_context FAIL ARGS --model llama-3.1-8b --context 0
                 MATCH "--context: invalid value \"0\"; expected a whole number")
vramfit_cli_test(huge_context FAIL ARGS --model llama-3.1-8b --context 999999999999
                 MATCH "--context: must be between 1 and 100000000 tokens")
vramfit_cli_test(bad_weights FAIL ARGS --model llama-3.1-8b --weights fp12
                 MATCH "--weights: unknown weight format \"fp12\"; use fp32, fp16, bf16, fp8, int8, int4, nf4")
vramfit_cli_test(bad_batch FAIL ARGS --model llama-3.1-8b --batch -3 MATCH "--batch: invalid value \"-3\"")
vramfit_cli_test(missing_config FAIL ARGS --model ./does-not-exist.json MATCH "--model: cannot read")
vramfit_cli_test(list_models ARGS --list-models MATCH "llama-3.1-405b")
# Engine profiles and their flags.
vramfit_cli_test(vllm_capacity ARGS --model llama-3.1-8b --engine vllm --gpu h100-sxm --gpu-util 0.9 --context 8192 --json
                 MATCH "\"kv_capacity_bytes\":[0-9]+.*\"max_concurrency\":[0-9]+")
# Llama-3-8B Q4_K_M at n_ctx 8192, -fa off: compute buffer 560.00 MiB = 587,202,560 B (ollama log).
vramfit_cli_test(llamacpp_buffers ARGS --model llama-3.1-8b --engine llamacpp --weights q4_k_m --context 8192
                 --attention eager --json MATCH "\"compute_buffer_bytes\":587202560.*\"host_ram_bytes\":[0-9]+")
vramfit_cli_test(max_context ARGS --model llama-3.1-8b --max-context --gpu rtx-4090 --json MATCH "\"max_context\":[0-9]+")
vramfit_cli_test(bad_engine FAIL ARGS --model llama-3.1-8b --engine tgi
                 MATCH "^vramfit: --engine: invalid value \"tgi\"; expected one of transformers, vllm, llamacpp")
vramfit_cli_test(bad_kv_dtype FAIL ARGS --model llama-3.1-8b --kv-dtype q5 MATCH "--kv-dtype: invalid value \"q5\"; expected one of fp32")
vramfit_cli_test(bad_gpu_util FAIL ARGS --model llama-3.1-8b --gpu-util 1.5 MATCH "--gpu-util: invalid value")
vramfit_cli_test(gguf_weights ARGS --model llama-3.1-8b --weights q4_k_m --kv-dtype fp8 --json MATCH "\"weights\":\"q4_k_m\"")
