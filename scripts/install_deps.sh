#!/usr/bin/env bash
# Installs every build and test dependency of Sluice from Debian's apt.
# Idempotent: when everything is present it prints nothing and costs ~0.1 s.
# CUDA is optional: it is detected by CMake (nvcc), never installed here.
# Usage: scripts/install_deps.sh [--bench|--fuzz]
#   PyTorch (python3-torch) is in the base set: sluice.torch's tests and the
#   benchmarks' PyTorch side use it. --bench adds torchvision and Pillow
#   (benchmarks/run_image_pipeline.sh's peer) and pandas
#   (benchmarks/run_file_sources.sh's); --fuzz adds clang and its
#   libFuzzer runtime.
set -euo pipefail

packages=(build-essential cmake ninja-build pkg-config ccache
          libboost-dev libprotobuf-dev protobuf-compiler zlib1g-dev
          libtbb-dev libgtest-dev libgmock-dev libbenchmark-dev
          libopenblas-dev libopenmpi-dev openmpi-bin libssl-dev openssl libzstd-dev
          libjpeg62-turbo-dev libpng-dev libjpeg-turbo-progs
          libfarmhash-dev libre2-dev libicu-dev
          pybind11-dev python3-dev python3-numpy python3-pytest libdlpack-dev python3-torch)
if [[ "${1:-}" == "--bench" ]]; then
  packages+=(python3-torchvision python3-pil python3-pandas)
fi
if [[ "${1:-}" == "--fuzz" ]]; then
  packages+=(clang libclang-rt-14-dev)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
    missing+=("$p")
  fi
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "install_deps: installing ${missing[*]}"
sudo=""
[[ $(id -u) -ne 0 ]] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq -o DPkg::Lock::Timeout=300
$sudo apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=300 \
  "${missing[@]}" >/dev/null
