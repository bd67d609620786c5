#!/usr/bin/env bash
# Installs the benchmark's peers into bench/peers/ (git-ignored but for this script and package.json):
#   bash bench/peers/install.sh [--rg]
# qmd (@tobilu/qmd) asks for Node 22 and better-sqlite3 13; on Node 20 the package.json beside this
# script pins better-sqlite3 12.10.0, the install runs without scripts (node-llama-cpp's would download
# a prebuilt llama.cpp; BM25 `qmd search` never loads it), and better-sqlite3 is compiled here against
# this Node's own headers, so nothing but the npm registry is needed.
# ripgrep is a system program: with --rg and apt-get present, it is installed from Debian's packages;
# a failure there is a notice, not an error (the benchmark skips a missing peer).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"

echo "peers: npm install (no scripts) in $here" >&2
npm install --ignore-scripts --no-audit --no-fund --loglevel=error

# node-gyp finds the headers of the running Node in <prefix>/include/node; point it there so it does
# not try to download them.
nodedir="$(node -p 'require("node:path").resolve(process.execPath, "..", "..")')"
gyp=(npx --yes node-gyp@11)
if node -e 'new (require("./node_modules/better-sqlite3"))(":memory:").close()' 2>/dev/null; then
  echo "peers: better-sqlite3 already built for this Node" >&2
else
  echo "peers: building better-sqlite3 against $nodedir/include/node (a few minutes)" >&2
  (cd node_modules/better-sqlite3 && "${gyp[@]}" rebuild --release --nodedir="$nodedir" >"$here/build.log" 2>&1) ||
    { echo "peers: better-sqlite3 did not build; see $here/build.log" >&2; exit 1; }
fi

# sqlite-vec ships its loadable extension in an optional per-platform package; nothing to build.
if node_modules/.bin/qmd --help >/dev/null 2>&1; then
  echo "peers: qmd ready: $here/node_modules/.bin/qmd" >&2
else
  echo "peers: qmd installed but does not run; see: $here/node_modules/.bin/qmd --help" >&2
  exit 1
fi

if command -v rg >/dev/null 2>&1; then
  echo "peers: ripgrep found: $(rg --version | sed -n 1p)" >&2
elif [[ "${1:-}" == "--rg" ]] && command -v apt-get >/dev/null 2>&1; then
  echo "peers: installing ripgrep from Debian's packages" >&2
  { apt-get install -y ripgrep >/dev/null 2>&1 || { apt-get update >/dev/null 2>&1 && apt-get install -y ripgrep >/dev/null 2>&1; }; } ||
    echo "peers: notice: could not install ripgrep; the benchmark will skip it" >&2
else
  echo "peers: notice: ripgrep (rg) is not installed; the benchmark skips it (bash $0 --rg installs it with apt-get)" >&2
fi
