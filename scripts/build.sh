#!/usr/bin/env bash
# Builds the native CLI and the wasm module and assembles the static site in dist/.
# Incremental: ninja rebuilds only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
# Emscripten 3.1.6 from Debian needs Debian's node modules (acorn) on NODE_PATH; a node
# from elsewhere (NodeSource, nvm) does not look there by itself.
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}

[[ -f build/native/build.ninja ]] || cmake --preset native >/dev/null
cmake --build --preset native
# docs/validation.md and the page's summary of it, from tests/data/validation.json and the CLI just built.
node scripts/validation.mjs
[[ -f build/wasm/build.ninja ]] || cmake --preset wasm >/dev/null
cmake --build --preset wasm

# dist/: the site, its modules bundled and minified by esbuild (scripts/bundle.mjs).
node scripts/bundle.mjs build/wasm/wasm dist
node scripts/validation.mjs --html dist
# dist/vramfit.html: the page, its modules, CSS and the .wasm in one file for file:// and offline use.
node scripts/prerender.mjs dist
node scripts/single-file.mjs dist
echo "build: site in dist/ ($(find dist -type f | wc -l) files)"
