#!/usr/bin/env bash
# Builds oneTBB with ThreadSanitizer into build/tbb-tsan, for the "tsan"
# preset (its TBB_DIR points there). Debian's libtbb is not instrumented, so
# TSan reports false races inside it; an instrumented copy lets threaded code
# on oneTBB run in parallel under TSan. The source is Debian's own package of
# the installed libtbb-dev version (same headers, same patches), fetched with
# a private deb-src list and apt state under the work folder: the system's apt
# configuration and lists are not touched. tbbmalloc is not built: sanitizer
# builds use the C library's allocator (core/CMakeLists.txt).
# Idempotent: when the prefix holds this version's build it prints nothing
# and costs ~0.1 s. A fresh build takes under a minute (download, configure,
# compile; 45-55 s on 2 busy cores).
# Usage: scripts/build_tsan_tbb.sh
set -euo pipefail
cd "$(dirname "$0")/.."

prefix=$PWD/build/tbb-tsan
work=$PWD/build/tbb-tsan-work

fail() {
  echo "build_tsan_tbb: $*" >&2
  exit 1
}

version=$(dpkg-query -W -f='${source:Package}=${source:Version}' libtbb-dev 2>/dev/null) ||
  fail "libtbb-dev is not installed; run scripts/install_deps.sh first"
stamp="$version TBB_SANITIZE=thread $(c++ --version | head -n1)"
if [[ -f $prefix/lib/cmake/TBB/TBBConfig.cmake && "$(cat "$prefix/sluice-stamp" 2>/dev/null)" == "$stamp" ]]; then
  exit 0
fi
for tool in apt-get dpkg-source cmake ninja c++; do
  command -v "$tool" >/dev/null || fail "'$tool' is missing (dpkg-source comes with dpkg-dev, part of build-essential: run scripts/install_deps.sh)"
done

echo "build_tsan_tbb: building $version with ThreadSanitizer into $prefix"
start=$SECONDS
rm -rf "$work" "$prefix"
mkdir -p "$work/sources.list.d" "$work/lists/partial" "$work/cache"

# The system's deb entries (one-line and deb822 files), turned into deb-src.
shopt -s nullglob
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
  if [[ -f $f ]]; then sed -n 's/^deb\([[:space:]]\)/deb-src\1/p' "$f"; fi
done >"$work/sources.list.d/system-src.list"
n=0
for f in /etc/apt/sources.list.d/*.sources; do
  sed 's/^Types:.*/Types: deb-src/' "$f" >"$work/sources.list.d/system-src-$((n++)).sources"
done
apt_options=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$work/sources.list.d"
             -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o APT::Sandbox::User=root)

# A source without deb-src indexes fails the update but not the fetch from the
# others, so only a failed fetch is an error; the update's log explains it.
apt-get "${apt_options[@]}" update >"$work/apt-update.log" 2>&1 || true
(cd "$work" && apt-get "${apt_options[@]}" source --only-source "$version" >"$work/apt-source.log" 2>&1) || {
  cat "$work/apt-update.log" "$work/apt-source.log" >&2
  fail "could not fetch the source package $version from the system's apt mirrors (log above)"
}
src=("$work"/onetbb-*/)
[[ ${#src[@]} -eq 1 && -f ${src[0]}/CMakeLists.txt ]] || fail "no unpacked onetbb source in $work"

# TBB_STRICT=OFF: GCC warns that TSan doesn't model atomic_thread_fence, which
# oneTBB's -Werror would turn into a failed build.
cmake -S "${src[0]}" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_INSTALL_LIBDIR=lib -DTBB_SANITIZE=thread \
  -DTBB_TEST=OFF -DTBB_EXAMPLES=OFF -DTBB_STRICT=OFF -DTBBMALLOC_BUILD=OFF \
  >"$work/configure.log" 2>&1 || { cat "$work/configure.log" >&2; fail "configuring oneTBB failed (log above)"; }
cmake --build "$work/build" >"$work/build.log" 2>&1 || { tail -n 50 "$work/build.log" >&2; fail "building oneTBB failed (log above)"; }
cmake --install "$work/build" >"$work/install.log" 2>&1 || { cat "$work/install.log" >&2; fail "installing oneTBB failed (log above)"; }
[[ -f $prefix/lib/cmake/TBB/TBBConfig.cmake ]] || fail "the install left no $prefix/lib/cmake/TBB/TBBConfig.cmake"

echo "$stamp" >"$prefix/sluice-stamp"
rm -rf "$work"
echo "build_tsan_tbb: done in $((SECONDS - start)) s"
