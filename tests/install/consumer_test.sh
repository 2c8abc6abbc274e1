#!/usr/bin/env bash
# Installs a build tree into a temporary prefix, then builds and runs
# examples/consumer/ against it twice: as a CMake project
# (find_package(Sluice)) and compiled with pkg-config's flags (sluice.pc).
# Usage: consumer_test.sh BUILD_DIR CONSUMER_DIR CXX PKGCONFIG_DIR [FLAGS]
#   PKGCONFIG_DIR: where sluice.pc lands, relative to the prefix.
#   FLAGS: compile and link flags every program linking the libraries needs
#   (the sanitizer's in a sanitizer build).
set -euo pipefail
build=$1 consumer=$2 cxx=$3 pkgconfig_dir=$4 flags=${5:-}
# What each consumer program prints.
declare -A expected=([consumer]="3 batches, sum 45, a spec of 3 ops"
                     [service_consumer]="3 batches, sum 45, through the service")

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

# Runs a command, showing its output only when it fails.
quiet() {
  "$@" >"$tmp/log" 2>&1 || { cat "$tmp/log" >&2; echo "failed: $*" >&2; exit 1; }
}
# Runs consumer PROGRAM (a name in `expected`), built by HOW, from FILE, and
# checks what it prints.
check() {
  local how=$1 program=$2 file=$3 printed
  printed=$("$file")
  if [[ "$printed" != "${expected[$program]}" ]]; then
    echo "$how: $program printed '$printed', expected '${expected[$program]}'" >&2
    exit 1
  fi
  echo "$how: $program: $printed"
}

quiet cmake --install "$build" --prefix "$prefix"

launcher=()
if command -v ccache >/dev/null; then
  # The temporary folder's name changes each run: paths below it hash alike.
  export CCACHE_BASEDIR=$tmp CCACHE_NOHASHDIR=1
  launcher=(ccache)
fi

quiet cmake -S "$consumer" -B "$tmp/cmake-build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_COMPILER="$cxx" ${launcher:+-DCMAKE_CXX_COMPILER_LAUNCHER=ccache} \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags"
quiet cmake --build "$tmp/cmake-build" -j2
for program in consumer service_consumer; do
  check find_package "$program" "$tmp/cmake-build/$program"
done

export PKG_CONFIG_PATH=$prefix/$pkgconfig_dir
read -r -a pkg_flags <<<"$(pkg-config --cflags --libs sluice)"
read -r -a extra_flags <<<"$flags"
quiet "${launcher[@]}" "$cxx" -O2 "${extra_flags[@]}" "$consumer/main.cc" -o "$tmp/pkg-config-consumer" "${pkg_flags[@]}"
check pkg-config consumer "$tmp/pkg-config-consumer"
quiet "${launcher[@]}" "$cxx" -O2 "${extra_flags[@]}" "$consumer/service_consumer.cc" -o "$tmp/pkg-config-service-consumer" \
  "${pkg_flags[@]}"
check pkg-config service_consumer "$tmp/pkg-config-service-consumer"
