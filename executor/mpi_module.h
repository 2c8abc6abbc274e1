// The C interface of the Open MPI module (libsluice_mpi.so, built from
// executor/mpi_module.cc): the MPI calls Sluice makes (`sluice serve --mpi`'s
// address exchange, data-parallel training's collectives) behind plain C
// functions, so that only a process that asks for MPI loads libmpi
// (executor/mpi_module_loader.h dlopens the module). Linking libmpi into the
// `sluice` binary would load Open MPI's seven libraries on every command's
// start.
//
// Every function but abort returns an MPI error code (MPI_SUCCESS is 0). The
// collectives are over MPI_COMM_WORLD with rank 0 as the root; counts are
// MPI's ints (callers split larger messages).
// Thread safety: one thread only, the one that called init
// (MPI_THREAD_FUNNELED).
#pragma once

#include <cstdint>

extern "C" {

// The element types of the reductions.
enum SluiceMpiType { kSluiceMpiFloat32 = 0, kSluiceMpiFloat64 = 1 };

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
  // Every rank's one value into every rank's `values` (world size long).
  int (*allgather_int64)(int64_t value, int64_t* values);
  int (*allgather_double)(double value, double* values);
  // The element-wise sum over ranks of `count` elements of `type`, in place.
  int (*allreduce_sum)(void* data, int count, int type);
  // The same, started (MPI_Iallreduce): *request names it until test says
  // it is done or wait returns; `data` is untouched by the caller until then.
  int (*start_allreduce_sum)(void* data, int count, int type, void** request);
  // Whether `request` is done (*done 1, and the request is freed) or not.
  int (*test)(void* request, int* done);
  // Waits for `request` and frees it.
  int (*wait)(void* request);
  int (*barrier)();
  // MPI_Abort: ends every rank of the job with `code`; does not return.
  void (*abort)(int code);
  int (*finalize)();
  // MPI's words for an error code, NUL-terminated, into `out`.
  void (*error_string)(int code, char* out, int out_size);
};

// The module's one exported symbol.
const SluiceMpiFunctions* sluice_mpi_functions();
}
