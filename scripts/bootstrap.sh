#!/usr/bin/env bash
# Installs what the build and the tests need, skipping what is already there (Debian 12).
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages: compilers, Emscripten, header-only libraries, the browser for tests.
packages=(cmake ninja-build g++ clang libclang-rt-14-dev emscripten nlohmann-json3-dev doctest-dev chromium gzip)
command -v node >/dev/null 2>&1 || packages+=(nodejs)
command -v npm >/dev/null 2>&1 || packages+=(npm)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "bootstrap: installing ${missing[*]}"
  sudo_cmd=()
  [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# playwright-core (browser tests) needs Node.js >= 20; Debian 12's own nodejs package is 18.
node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if ((node_major < 20)); then
  echo "bootstrap: Node.js $(node --version 2>/dev/null || echo missing) found; the browser tests need Node.js >= 20" >&2
  echo "bootstrap: install Node.js 20 (e.g. the NodeSource package) and run again" >&2
  exit 1
fi

# npm packages from the committed lockfile; reinstalled only when the lockfile changed.
if [[ ! -f node_modules/.package-lock.json || package-lock.json -nt node_modules/.package-lock.json ]]; then
  echo "bootstrap: npm ci"
  npm ci --no-audit --no-fund --loglevel=error
fi
