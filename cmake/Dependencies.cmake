# Every third-party dependency, found from Debian's packages
# (scripts/install_deps.sh installs them). No vendored copies.

find_package(Threads REQUIRED)
find_package(ZLIB REQUIRED)
find_package(Protobuf REQUIRED)          # Debian ships no protobuf CMake config: FindProtobuf
if(SLUICE_SANITIZE STREQUAL "thread" AND NOT EXISTS "${TBB_DIR}/TBBConfig.cmake")
  # Debian's libtbb is not instrumented, and TSan reports false races inside it.
  message(FATAL_ERROR "TSan builds need oneTBB built with ThreadSanitizer: run scripts/build_tsan_tbb.sh "
                      "(the tsan preset's TBB_DIR is build/tbb-tsan/lib/cmake/TBB; TBB_DIR is '${TBB_DIR}')")
endif()
find_package(TBB REQUIRED)
find_package(Boost REQUIRED)             # header-only Asio
find_package(OpenSSL REQUIRED)           # the data service's HMAC and TLS (OpenSSL::Crypto, OpenSSL::SSL)
find_package(PkgConfig REQUIRED)
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)  # the data service's wire compression
find_package(JPEG REQUIRED)              # libjpeg-turbo's libjpeg API: image decoding (ops/decode_jpeg.h)
find_package(PNG REQUIRED)               # libpng (ops/decode_png.h)
pkg_check_modules(RE2 REQUIRED IMPORTED_TARGET re2)                # regex_split (ops/text_split.h)
pkg_check_modules(ICU REQUIRED IMPORTED_TARGET icu-uc icu-i18n)   # lower, normalize (ops/text_normalize.h)
find_path(FARMHASH_INCLUDE_DIR farmhash.h REQUIRED)               # Fingerprint64 (ops/string_hash.h); no pkg-config file
find_library(FARMHASH_LIBRARY farmhash REQUIRED)
set(BLA_VENDOR OpenBLAS)                 # reference BLAS is preinstalled and would win
find_package(BLAS REQUIRED)
find_path(CBLAS_INCLUDE_DIR cblas.h PATH_SUFFIXES openblas-pthread openblas REQUIRED)
set(MPI_CXX_SKIP_MPICXX ON)
find_package(MPI REQUIRED COMPONENTS CXX)
if(SLUICE_BUILD_TESTS)
  find_package(GTest REQUIRED)
  include(GoogleTest)
endif()
if(SLUICE_BUILD_BENCHMARKS)
  find_package(benchmark REQUIRED)
endif()

# CUDA is optional: the GPU path (the sluice_cuda library, which no CPU
# library links) is compiled wherever nvcc exists, unless
# SLUICE_ENABLE_CUDA=OFF (the nocuda preset, and the sanitizer presets, under
# which CI builds and tests the build most users' machines make).
option(SLUICE_ENABLE_CUDA "Build the GPU path (sluice_cuda) when nvcc is found" ON)
if(SLUICE_ENABLE_CUDA)
  include(CheckLanguage)
  check_language(CUDA)
endif()
if(SLUICE_ENABLE_CUDA AND CMAKE_CUDA_COMPILER)
  set(SLUICE_HAVE_CUDA ON)
  # nvcc through the same ccache as the host compiler.
  if(CMAKE_CXX_COMPILER_LAUNCHER AND NOT DEFINED CMAKE_CUDA_COMPILER_LAUNCHER)
    set(CMAKE_CUDA_COMPILER_LAUNCHER ${CMAKE_CXX_COMPILER_LAUNCHER})
  endif()
  # check_language clears the host compiler: set it again before enabling.
  set(CMAKE_CUDA_HOST_COMPILER ${CMAKE_CXX_COMPILER})
  # sm_90 machine code (H200) plus its PTX; never "native", which fails
  # where no GPU is present.
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES 90)
  endif()
  # One CUDA runtime, the shared one that CUDA::cudart names (CMake would
  # add the static one to every link of CUDA objects as well).
  set(CMAKE_CUDA_RUNTIME_LIBRARY Shared)
  enable_language(CUDA)
  # CMake 3.25 does not know nvcc's C++20 flag.
  if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
    set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION -std=c++20)
    set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION -std=c++20)
  endif()
  set(CMAKE_CUDA_STANDARD 20)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
  # The runtime and cuBLAS only: never the driver library, whose stub on
  # LIBRARY_PATH would link and then fail to start without a driver.
  find_package(CUDAToolkit REQUIRED)
else()
  set(SLUICE_HAVE_CUDA OFF)
endif()
message(STATUS "Sluice: GPU path (sluice_cuda) ${SLUICE_HAVE_CUDA} (SLUICE_ENABLE_CUDA ${SLUICE_ENABLE_CUDA}, "
               "CUDA compiler '${CMAKE_CUDA_COMPILER}')")
