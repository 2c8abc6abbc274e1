// SLUICE_HOST_DEVICE marks an inline function that is compiled for the host
// and, in CUDA sources (nvcc), for the device too: for logic that a CPU
// kernel and its CUDA kernel must share exactly (value conversions in
// core/dtype.h, dropout's generator in ops/counter_rng.h).
#pragma once

#ifdef __CUDACC__
#define SLUICE_HOST_DEVICE __host__ __device__
#else
#define SLUICE_HOST_DEVICE
#endif
