// The C interface of the Open MPI module (libsluice_service_mpi.so, built
// from service/mpi_module.cc): the few MPI calls `sluice serve --mpi`
// makes, behind plain C functions, so that only the process that asks for
// MPI loads libmpi (service/mpi_world.cc dlopens the module). Linking
// libmpi into the `sluice` binary would load Open MPI's seven libraries on
// every command's start.
//
// Every function returns an MPI error code (MPI_SUCCESS is 0) and runs on
// the thread that called init (MPI_THREAD_FUNNELED). The collectives are
// over MPI_COMM_WORLD with rank 0 as the root, on bytes.
// Thread safety: one thread only, the one that called init.
#pragma once

#include <cstdint>

extern "C" {

struct SluiceMpiFunctions {
  // MPI_Init_thread (errors returned, not aborting), then this process's
  // rank and the world's size.
  int (*init)(int* rank, int* size);
  // Rank 0's `count` bytes into every rank's `data`.
  int (*broadcast)(void* data, int count);
  // Every rank's one int64 into rank 0's `values` (world size long; unused
  // elsewhere).
  int (*gather_int64)(int64_t value, int64_t* values);
  // Every rank's `count` bytes into rank 0's `data`, rank r's at
  // `offsets[r]` with length `counts[r]` (both world size long, read on rank
  // 0 only).
  int (*gather_bytes)(const void* bytes, int count, void* data, const int* counts, const int* offsets);
  int (*finalize)();
  // MPI's words for an error code, NUL-terminated, into `out`.
  void (*error_string)(int code, char* out, int out_size);
};

// The module's one exported symbol.
const SluiceMpiFunctions* sluice_mpi_functions();
}
