#!/usr/bin/env bash
# The README's second command (and .ci/run): install what is missing, build, run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
bash scripts/build.sh

echo "== unit and CLI tests (native, g++)"
ctest --preset native

echo "== unit tests under AddressSanitizer and UndefinedBehaviorSanitizer (clang)"
cmake --workflow --preset sanitize

echo "== node tests: the real .wasm through its bindings"
node --test tests/node/ tests/hub/

echo "== refactoring guard: CLI and binding output byte for byte against tests/corpus/expected"
node tests/corpus/run.mjs

echo "== browser tests: the served page in headless Chromium"
node --test --test-concurrency=1 tests/browser/

echo "== budgets: the site's size ceiling and its layout shift (timings and Lighthouse: README, not gated)"
node scripts/budgets.mjs --gate
