#!/usr/bin/env bash
# Builds the libFuzzer harnesses (the fuzz preset: clang, ASan + UBSan), writes seed corpora and runs each harness.
# Usage: scripts/fuzz.sh [seconds per harness, default 60]
# Crashes are left as build/fuzz/artifacts/<harness>/crash-*; rerun one with: build/fuzz/tests/fuzz/<harness> <file>
set -euo pipefail
seconds="${1:-60}"
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build/fuzz"

cd "$root"
cmake --preset fuzz
cmake --build --preset fuzz --target fuzz_gguf fuzz_safetensors fuzz_hf_config fuzz_request fuzz_hub_listing fuzz_make_seed_corpus

seeds="$build/seeds"
"$build/tests/fuzz/fuzz_make_seed_corpus" "$seeds"
# Today's real configs (hybrid layers, per-layer lists, Python's Infinity) seed the config importer too.
cp tests/data/configs/*_config.json "$seeds/hf_config/"
# The local Hub's fixtures (each repository's model API answer under "info") seed the network readers.
mkdir -p "$seeds/hub_listing"
for fixture in tests/hub/fixtures/*.json; do
  node -e 'const f = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); process.stdout.write(JSON.stringify(f.info ?? f))' \
    "$fixture" > "$seeds/hub_listing/$(basename "$fixture")"
done

status=0
for harness in gguf safetensors hf_config request hub_listing; do
  corpus="$build/corpus/$harness"
  artifacts="$build/artifacts/fuzz_$harness"
  mkdir -p "$corpus" "$artifacts"
  echo "== fuzz_$harness for ${seconds}s"
  "$build/tests/fuzz/fuzz_$harness" "$corpus" "$seeds/$harness" \
    -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
    -artifact_prefix="$artifacts/" -print_final_stats=1 || status=1
done
exit $status
