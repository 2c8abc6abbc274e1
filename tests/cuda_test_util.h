// For tests of the CUDA path (built where nvcc exists, linked against
// sluice_cuda): registers the CUDA backend, then skips the current test,
// saying why, on a machine without a usable CUDA device. Without a driver
// CUDA says "insufficient driver" rather than "no device"; any error counts
// as no GPU.
#pragma once

#include <gtest/gtest.h>

#include "sluice/model/cuda_backend.h"
#include "sluice/ops/cuda_status.h"

#define SLUICE_SKIP_WITHOUT_CUDA_DEVICE()                                                \
  do {                                                                                   \
    ::sluice::RegisterCudaBackend();                                                     \
    if (auto count = ::sluice::CudaDeviceCount(); !count.ok()) {                         \
      GTEST_SKIP() << "no CUDA device: " << count.status().message();                    \
    }                                                                                    \
  } while (false)
