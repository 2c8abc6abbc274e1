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

# CUDA is optional: the GPU path is compiled wherever nvcc exists.
include(CheckLanguage)
check_language(CUDA)
if(CMAKE_CUDA_COMPILER)
  set(SLUICE_HAVE_CUDA ON)
else()
  set(SLUICE_HAVE_CUDA OFF)
endif()
message(STATUS "Sluice: CUDA compiler ${CMAKE_CUDA_COMPILER} (GPU path ${SLUICE_HAVE_CUDA})")
