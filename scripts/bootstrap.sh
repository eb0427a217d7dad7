#!/usr/bin/env bash
# Installs what the build and the tests need, skipping what is already there (Debian 12).
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages: compilers, Emscripten, header-only libraries, the browser for tests.
packages=(cmake ninja-build g++ clang libclang-rt-14-dev emscripten nlohmann-json3-dev doctest-dev libcurl4-openssl-dev
          chromium gzip)
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

# The pinned npm packages state the oldest Node.js each runs on (engines in package-lock.json): when this node is
# older, stop and name them (Debian 12 ships Node.js 18).
node -e '
  const lock = JSON.parse(require("fs").readFileSync("package-lock.json", "utf8"));
  const have = process.versions.node.split(".").map(Number);
  const older = (need) => { for (let i = 0; i < 3; i++) if (have[i] !== (need[i] || 0)) return have[i] < (need[i] || 0); return false; };
  const unmet = [];
  for (const [where, p] of Object.entries(lock.packages)) {
    const bound = /^>=\s*(\d+(\.\d+){0,2})$/.exec((p.engines && p.engines.node) || "");
    if (where && !p.optional && bound && older(bound[1].split(".").map(Number)))
      unmet.push(`${where.split("node_modules/").pop()}@${p.version} needs Node.js ${p.engines.node}`);
  }
  if (unmet.length) {
    console.error(`bootstrap: Node.js ${process.version} found; ${unmet.join("; ")}`);
    process.exit(1);
  }'

# npm packages from the committed lockfile; reinstalled only when the lockfile changed.
if [[ ! -f node_modules/.package-lock.json || package-lock.json -nt node_modules/.package-lock.json ]]; then
  echo "bootstrap: npm ci"
  npm ci --no-audit --no-fund --loglevel=error
fi
