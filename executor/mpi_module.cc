// The Open MPI module's functions (executor/mpi_module.h): thin wrappers of
// MPI calls, the only code that includes <mpi.h>.
#include <mpi.h>

#include <cstdio>

#include "sluice/executor/mpi_module.h"

namespace {

MPI_Datatype TypeOf(int type) { return type == kSluiceMpiFloat64 ? MPI_DOUBLE : MPI_FLOAT; }

int Init(int* rank, int* size) {
  int provided = 0;
  if (const int error = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided); error != MPI_SUCCESS) {
    return error;
  }
  // Errors come back as codes, so that the caller can say what failed.
  if (const int error = MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN); error != MPI_SUCCESS) return error;
  if (const int error = MPI_Comm_rank(MPI_COMM_WORLD, rank); error != MPI_SUCCESS) return error;
  return MPI_Comm_size(MPI_COMM_WORLD, size);
}

int Broadcast(void* data, int count) { return MPI_Bcast(data, count, MPI_BYTE, 0, MPI_COMM_WORLD); }

int GatherInt64(int64_t value, int64_t* values) {
  return MPI_Gather(&value, 1, MPI_INT64_T, values, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
}

int GatherBytes(const void* bytes, int count, void* data, const int* counts, const int* offsets) {
  return MPI_Gatherv(bytes, count, MPI_BYTE, data, counts, offsets, MPI_BYTE, 0, MPI_COMM_WORLD);
}

int AllGatherInt64(int64_t value, int64_t* values) {
  return MPI_Allgather(&value, 1, MPI_INT64_T, values, 1, MPI_INT64_T, MPI_COMM_WORLD);
}

int AllGatherDouble(double value, double* values) {
  return MPI_Allgather(&value, 1, MPI_DOUBLE, values, 1, MPI_DOUBLE, MPI_COMM_WORLD);
}

int AllReduceSum(void* data, int count, int type) {
  return MPI_Allreduce(MPI_IN_PLACE, data, count, TypeOf(type), MPI_SUM, MPI_COMM_WORLD);
}

int StartAllReduceSum(void* data, int count, int type, void** request) {
  auto* handle = new MPI_Request;
  const int error = MPI_Iallreduce(MPI_IN_PLACE, data, count, TypeOf(type), MPI_SUM, MPI_COMM_WORLD, handle);
  if (error != MPI_SUCCESS) {
    delete handle;
    return error;
  }
  *request = handle;
  return MPI_SUCCESS;
}

int Test(void* request, int* done) {
  auto* handle = static_cast<MPI_Request*>(request);
  const int error = MPI_Test(handle, done, MPI_STATUS_IGNORE);
  if (error == MPI_SUCCESS && *done) delete handle;
  return error;
}

int Wait(void* request) {
  auto* handle = static_cast<MPI_Request*>(request);
  const int error = MPI_Wait(handle, MPI_STATUS_IGNORE);
  delete handle;
  return error;
}

int Barrier() { return MPI_Barrier(MPI_COMM_WORLD); }

void Abort(int code) { MPI_Abort(MPI_COMM_WORLD, code); }

int Finalize() { return MPI_Finalize(); }

void ErrorString(int code, char* out, int out_size) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) length = 0;
  std::snprintf(out, static_cast<size_t>(out_size), "%.*s (MPI error %d)", length, text, code);
}

constexpr SluiceMpiFunctions kFunctions = {
    .init = Init,
    .broadcast = Broadcast,
    .gather_int64 = GatherInt64,
    .gather_bytes = GatherBytes,
    .allgather_int64 = AllGatherInt64,
    .allgather_double = AllGatherDouble,
    .allreduce_sum = AllReduceSum,
    .start_allreduce_sum = StartAllReduceSum,
    .test = Test,
    .wait = Wait,
    .barrier = Barrier,
    .abort = Abort,
    .finalize = Finalize,
    .error_string = ErrorString,
};

}  // namespace

extern "C" const SluiceMpiFunctions* sluice_mpi_functions() { return &kFunctions; }
