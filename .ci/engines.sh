#!/usr/bin/env bash
# Builds the real inference engines the conformance suite runs against,
# pinned, into a cache folder outside the repository, so that a second run
# (a later CI run on the same machine, or a developer's) takes seconds:
#
#   llama-server  llama.cpp's server, from the git bundle of a llama.cpp
#                 release that the npm package node-llama-cpp ships
#                 (package/llama/gitRelease.bundle), built with cmake;
#   ollama        Ollama, a Go module with ggml's C/C++ sources inside,
#                 built by `go install` as a CPU-only binary.
#
# Only the npm registry, the Go module proxy and Debian's packages are
# reached (no model hub, no release downloads): a fresh Debian machine with
# Go, gcc, node/npm and apt-get is enough. cmake is installed with apt-get
# when it is missing and we are root (CI runs as root).
#
# Usage: .ci/engines.sh            build what is missing, print the paths
#        LLMLOAD_ENGINES=DIR ...   cache folder (default below)
#        LLMLOAD_ENGINES_JOBS=N    parallel compile jobs (default 2)
#
# Each engine has a stamp file (stamps/NAME) holding the pins and flags it
# was built with; a build is skipped when its stamp matches and its binary
# is there. Outputs: DIR/bin/llama-server and DIR/bin/ollama, and
# DIR/env.sh exporting LLMLOAD_LLAMA_SERVER and LLMLOAD_OLLAMA.
set -euo pipefail

# The pins. node-llama-cpp 3.21.1 ships llama.cpp at commit 80fb11a
# (llama-server reports build "b1-80fb11a": the bundle has no tags).
NODE_LLAMA_CPP_VERSION=3.21.1
LLAMA_CPP_COMMIT=80fb11ac73e66d89eae2c6a91d8a77428fa733ed
OLLAMA_VERSION=v0.17.4

CACHE=${LLMLOAD_ENGINES:-${XDG_CACHE_HOME:-$HOME/.cache}/llmload/engines}
JOBS=${LLMLOAD_ENGINES_JOBS:-2}

# -DLLAMA_BUILD_UI=OFF and -DLLAMA_USE_PREBUILT_UI=OFF: otherwise the build
# downloads the server's web UI. LLAMA_OPENSSL=OFF: no HTTPS is needed on
# loopback, and no libssl-dev. GGML_NATIVE=OFF: the binary is cached and may
# be reused on another CPU of the same architecture. LLAMA_CURL=OFF is
# passed only when this llama.cpp still has the option (80fb11a does not).
LLAMA_CMAKE_FLAGS=(
  -DCMAKE_BUILD_TYPE=Release
  -DBUILD_SHARED_LIBS=OFF
  -DLLAMA_BUILD_UI=OFF
  -DLLAMA_USE_PREBUILT_UI=OFF
  -DLLAMA_OPENSSL=OFF
  -DGGML_NATIVE=OFF
  -DLLAMA_BUILD_TESTS=OFF
  -DLLAMA_BUILD_EXAMPLES=OFF
)
# Ollama's own release scripts stamp the version (otherwise /api/version
# says 0.0.0) and put gin in release mode.
OLLAMA_LDFLAGS="-s -w -X=github.com/ollama/ollama/version.Version=${OLLAMA_VERSION#v} -X=github.com/ollama/ollama/server.mode=release"

log() { printf 'engines: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# ensure TOOL PACKAGE: install PACKAGE with apt-get when TOOL is missing
# and we are root (CI runs as root on Debian); fail otherwise.
ensure() {
  command -v "$1" >/dev/null && return
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    log "installing $2 with apt-get (for $1)"
    if [ -z "${APT_UPDATED:-}" ]; then apt-get update -qq; APT_UPDATED=1; fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null
  fi
  command -v "$1" >/dev/null || die "$1 is not installed (needed to build the engines): install $2"
}
command -v go >/dev/null || die "go is not installed"
ensure gcc gcc
ensure g++ g++
ensure git git
ensure tar tar
ensure npm npm

mkdir -p "$CACHE/bin" "$CACHE/src" "$CACHE/stamps"
CACHE=$(cd "$CACHE" && pwd)
# One build at a time per cache folder (CI and a developer may share it).
if command -v flock >/dev/null; then
  exec 9>"$CACHE/.lock"
  flock -n 9 || { log "waiting for another build in $CACHE"; flock 9; }
fi

# stamp_ok NAME CONTENT BINARY: the binary is there and was built from the
# same pins and flags.
stamp_ok() {
  [ -x "$3" ] && [ -f "$CACHE/stamps/$1" ] && [ "$(cat "$CACHE/stamps/$1")" = "$2" ]
}


# llama_source: the llama.cpp checkout from node-llama-cpp's bundle, shared
# by both builds (Ollama's module zip leaves out llama.cpp's vendor/ headers,
# which this checkout has). Prints its path.
llama_source() {
  local dir="$CACHE/src/llama.cpp-$LLAMA_CPP_COMMIT"
  if [ ! -f "$dir/.complete" ]; then
    log "fetching node-llama-cpp@$NODE_LLAMA_CPP_VERSION from npm for its llama.cpp bundle"
    local tmp
    tmp=$(mktemp -d "$CACHE/src/tmp.XXXXXX")
    (cd "$tmp" && npm pack --silent "node-llama-cpp@$NODE_LLAMA_CPP_VERSION" >/dev/null)
    tar -xzf "$tmp/node-llama-cpp-$NODE_LLAMA_CPP_VERSION.tgz" -C "$tmp" package/llama/gitRelease.bundle
    git -c advice.detachedHead=false clone -q "$tmp/package/llama/gitRelease.bundle" "$tmp/llama.cpp"
    local head
    head=$(git -C "$tmp/llama.cpp" rev-parse HEAD)
    [ "$head" = "$LLAMA_CPP_COMMIT" ] ||
      die "node-llama-cpp@$NODE_LLAMA_CPP_VERSION bundles llama.cpp $head, not the pinned $LLAMA_CPP_COMMIT"
    rm -rf "$dir"
    mv "$tmp/llama.cpp" "$dir"
    rm -rf "$tmp"
    touch "$dir/.complete"
  fi
  printf '%s\n' "$dir"
}

build_llama_server() {
  local bin="$CACHE/bin/llama-server"
  local stamp="node-llama-cpp=$NODE_LLAMA_CPP_VERSION llama.cpp=$LLAMA_CPP_COMMIT flags=${LLAMA_CMAKE_FLAGS[*]}"
  if stamp_ok llama-server "$stamp" "$bin"; then
    log "llama-server: cached ($bin)"
    return
  fi
  local start=$SECONDS src flags=("${LLAMA_CMAKE_FLAGS[@]}")
  ensure cmake cmake
  src=$(llama_source)
  if grep -q 'option(LLAMA_CURL' "$src/CMakeLists.txt"; then
    flags+=(-DLLAMA_CURL=OFF)
  fi
  log "llama-server: building llama.cpp ${LLAMA_CPP_COMMIT:0:7} with $JOBS jobs"
  cmake -S "$src" -B "$src/build" "${flags[@]}" >"$CACHE/llama-server.build.log" 2>&1 ||
    { tail -30 "$CACHE/llama-server.build.log" >&2; die "llama-server: cmake configure failed (log: $CACHE/llama-server.build.log)"; }
  cmake --build "$src/build" --target llama-server -j "$JOBS" >>"$CACHE/llama-server.build.log" 2>&1 ||
    { tail -30 "$CACHE/llama-server.build.log" >&2; die "llama-server: build failed (log: $CACHE/llama-server.build.log)"; }
  install -m 0755 "$src/build/bin/llama-server" "$bin.tmp"
  mv "$bin.tmp" "$bin"
  printf '%s\n' "$stamp" >"$CACHE/stamps/llama-server"
  log "llama-server: built in $((SECONDS - start)) s"
}

build_ollama() {
  local bin="$CACHE/bin/ollama"
  local stamp="ollama=$OLLAMA_VERSION vendor=llama.cpp@$LLAMA_CPP_COMMIT ldflags=$OLLAMA_LDFLAGS"
  if stamp_ok ollama "$stamp" "$bin"; then
    log "ollama: cached ($bin)"
    return
  fi
  local start=$SECONDS src gobin
  src=$(llama_source)
  gobin=$(mktemp -d "$CACHE/src/gobin.XXXXXX")
  log "ollama: go install github.com/ollama/ollama@$OLLAMA_VERSION (CPU only)"
  # GOFLAGS is cleared so that a caller's -mod or -tags cannot change the
  # binary; GOTOOLCHAIN=local because no toolchain can be downloaded here.
  CGO_ENABLED=1 GOFLAGS= GOTOOLCHAIN=local GOBIN="$gobin" \
    CGO_CPPFLAGS="-I$src/vendor ${CGO_CPPFLAGS:-}" \
    go install -p "$JOBS" -ldflags="$OLLAMA_LDFLAGS" "github.com/ollama/ollama@$OLLAMA_VERSION" \
    >"$CACHE/ollama.build.log" 2>&1 ||
    { tail -30 "$CACHE/ollama.build.log" >&2; die "ollama: build failed (log: $CACHE/ollama.build.log)"; }
  mv "$gobin/ollama" "$bin"
  rm -rf "$gobin"
  printf '%s\n' "$stamp" >"$CACHE/stamps/ollama"
  log "ollama: built in $((SECONDS - start)) s"
}

total=$SECONDS
build_llama_server
build_ollama

cat >"$CACHE/env.sh" <<EOF
# Written by llmload's .ci/engines.sh: source it to find the engines.
export LLMLOAD_LLAMA_SERVER='$CACHE/bin/llama-server'
export LLMLOAD_OLLAMA='$CACHE/bin/ollama'
EOF
log "done in $((SECONDS - total)) s"
printf 'llama-server %s\n' "$CACHE/bin/llama-server"
printf 'ollama %s\n' "$CACHE/bin/ollama"
