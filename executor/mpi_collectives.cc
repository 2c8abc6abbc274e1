#include "sluice/executor/mpi_collectives.h"

#include <algorithm>
#include <cstdlib>
#include <limits>

#include "sluice/executor/mpi_module_loader.h"

namespace sluice {
namespace {

constexpr int64_t kMaxCount = std::numeric_limits<int>::max();

int TypeOf(const Tensor& tensor) { return tensor.dtype() == DType::kFloat64 ? kSluiceMpiFloat64 : kSluiceMpiFloat32; }

// Divides every element of `tensor` by `divisor` (a mean from a sum).
void Divide(Tensor& tensor, int divisor) {
  if (tensor.dtype() == DType::kFloat64) {
    double* data = tensor.mutable_data<double>();
    for (int64_t i = 0; i < tensor.NumElements(); ++i) data[i] /= divisor;
  } else {
    float* data = tensor.mutable_data<float>();
    const float scale = 1.0f / static_cast<float>(divisor);
    for (int64_t i = 0; i < tensor.NumElements(); ++i) data[i] *= scale;
  }
}

class MpiPendingAllReduce final : public PendingAllReduce {
 public:
  MpiPendingAllReduce(const SluiceMpiFunctions* mpi, void* request, Tensor tensor, int divisor, std::string rank)
      : mpi_(mpi), request_(request), tensor_(std::move(tensor)), divisor_(divisor), rank_(std::move(rank)) {}
  ~MpiPendingAllReduce() override {
    if (request_ != nullptr) mpi_->wait(request_);
  }

  Result<bool> Test() override {
    if (request_ == nullptr) return true;
    int done = 0;
    if (const int error = mpi_->test(request_, &done); error != 0) return Failed("MPI_Test", error);
    if (done) Finish();
    return done != 0;
  }

  Status Wait() override {
    if (request_ == nullptr) return OkStatus();
    const int error = mpi_->wait(request_);
    request_ = nullptr;
    if (error != 0) return Failed("MPI_Wait", error);
    Finish();
    return OkStatus();
  }

 private:
  void Finish() {
    request_ = nullptr;
    if (divisor_ > 1) Divide(tensor_, divisor_);
  }
  Status Failed(std::string_view call, int error) {
    request_ = nullptr;
    return UnavailableError(rank_, ": ", call, " (an all-reduce of ", tensor_.dtype(), tensor_.shape(),
                            "): ", MpiErrorText(*mpi_, error));
  }

  const SluiceMpiFunctions* const mpi_;
  void* request_;
  Tensor tensor_;
  const int divisor_;
  const std::string rank_;
};

}  // namespace

Result<std::unique_ptr<MpiCollectives>> MpiCollectives::Join() {
  SLUICE_ASSIGN_OR_RETURN(const SluiceMpiFunctions* mpi, LoadMpiModule());
  int rank = 0;
  int size = 0;
  if (const int error = mpi->init(&rank, &size); error != 0) {
    return FailedPreconditionError("MPI_Init_thread failed: ", MpiErrorText(*mpi, error));
  }
  return std::unique_ptr<MpiCollectives>(new MpiCollectives(mpi, rank, size));
}

MpiCollectives::~MpiCollectives() {
  if (finalize_) mpi_->finalize();
}

void MpiCollectives::Abort(int code) {
  mpi_->abort(code);
  std::_Exit(code);  // MPI_Abort does not return; this is for the compiler
}

Status MpiCollectives::Error(std::string_view call, int code) const {
  return UnavailableError("MPI rank ", rank_, " of ", size_, ": ", call, ": ", MpiErrorText(*mpi_, code));
}

Status MpiCollectives::AllReduce(Tensor& tensor, ReduceOp op) {
  SLUICE_RETURN_IF_ERROR(CheckReducible(tensor, "AllReduce"));
  char* data = static_cast<char*>(tensor.raw_data());
  const size_t element_size = DTypeSize(tensor.dtype());
  for (int64_t done = 0; done < tensor.NumElements();) {
    const int64_t count = std::min(kMaxCount, tensor.NumElements() - done);
    if (const int error = mpi_->allreduce_sum(data + done * element_size, static_cast<int>(count), TypeOf(tensor));
        error != 0) {
      return Error(StrCat("MPI_Allreduce (", tensor.dtype(), tensor.shape(), ")"), error);
    }
    done += count;
  }
  if (op == ReduceOp::kMean && size_ > 1) Divide(tensor, size_);
  return OkStatus();
}

Result<std::unique_ptr<PendingAllReduce>> MpiCollectives::StartAllReduce(Tensor& tensor, ReduceOp op) {
  SLUICE_RETURN_IF_ERROR(CheckReducible(tensor, "StartAllReduce"));
  if (tensor.NumElements() > kMaxCount) {
    return InvalidArgumentError("StartAllReduce of ", tensor.NumElements(), " elements; at most ", kMaxCount,
                                " (split it)");
  }
  void* request = nullptr;
  if (const int error = mpi_->start_allreduce_sum(tensor.raw_data(), static_cast<int>(tensor.NumElements()),
                                                  TypeOf(tensor), &request);
      error != 0) {
    return Error(StrCat("MPI_Iallreduce (", tensor.dtype(), tensor.shape(), ")"), error);
  }
  return std::unique_ptr<PendingAllReduce>(new MpiPendingAllReduce(
      mpi_, request, tensor, op == ReduceOp::kMean ? size_ : 1, StrCat("MPI rank ", rank_, " of ", size_)));
}

Status MpiCollectives::Broadcast(Tensor& tensor) {
  SLUICE_RETURN_IF_ERROR(CheckBroadcastable(tensor));
  // Every rank sees every rank's size, so all of them fail together when
  // the sizes differ, instead of some entering the broadcast alone.
  const int64_t bytes = static_cast<int64_t>(tensor.NumBytes());
  SLUICE_ASSIGN_OR_RETURN(const std::vector<int64_t> sizes, AllGather(bytes));
  for (int r = 0; r < size_; ++r) {
    if (sizes[r] != sizes[0]) {
      return InvalidArgumentError("MPI rank ", rank_, " of ", size_, ": Broadcast of ", sizes[0],
                                  " bytes from rank 0, but rank ", r, " has a tensor of ", sizes[r],
                                  " bytes (this rank: ", tensor.dtype(), tensor.shape(), ")");
    }
  }
  char* data = static_cast<char*>(tensor.raw_data());
  for (int64_t done = 0; done < bytes;) {
    const int64_t count = std::min(kMaxCount, bytes - done);
    if (const int error = mpi_->broadcast(data + done, static_cast<int>(count)); error != 0) {
      return Error(StrCat("MPI_Bcast (", tensor.dtype(), tensor.shape(), ")"), error);
    }
    done += count;
  }
  return OkStatus();
}

Status MpiCollectives::Barrier() {
  if (const int error = mpi_->barrier(); error != 0) return Error("MPI_Barrier", error);
  return OkStatus();
}

Result<std::vector<double>> MpiCollectives::AllGather(double value) {
  std::vector<double> values(static_cast<size_t>(size_));
  if (const int error = mpi_->allgather_double(value, values.data()); error != 0) {
    return Error("MPI_Allgather (double)", error);
  }
  return values;
}

Result<std::vector<int64_t>> MpiCollectives::AllGather(int64_t value) {
  std::vector<int64_t> values(static_cast<size_t>(size_));
  if (const int error = mpi_->allgather_int64(value, values.data()); error != 0) {
    return Error("MPI_Allgather (int64)", error);
  }
  return values;
}

Result<std::vector<std::string>> MpiCollectives::Gather(const std::string& bytes, int64_t max_bytes) {
  SLUICE_RETURN_IF_ERROR(CheckGatherLength(bytes, max_bytes).WithContext(StrCat("MPI rank ", rank_)));
  const int64_t length = static_cast<int64_t>(bytes.size());
  std::vector<int64_t> lengths(rank_ == 0 ? static_cast<size_t>(size_) : 0);
  if (const int error = mpi_->gather_int64(length, lengths.data()); error != 0) {
    return Error("MPI_Gather (lengths)", error);
  }
  std::vector<int> counts(lengths.size());
  std::vector<int> offsets(lengths.size());
  int64_t total = 0;
  for (size_t r = 0; r < lengths.size(); ++r) {
    if (lengths[r] < 0 || lengths[r] > max_bytes) {
      return DataLossError("MPI rank ", r, " sent a Gather length of ", lengths[r], " bytes; at most ", max_bytes);
    }
    counts[r] = static_cast<int>(lengths[r]);
    offsets[r] = static_cast<int>(std::min(total, kMaxCount));
    total += lengths[r];
  }
  // At most size * max_bytes; MPI's int offsets bound it further.
  if (total > kMaxCount) {
    return ResourceExhaustedError("an MPI gather of ", total, " bytes in all; at most ", kMaxCount);
  }
  std::string data(static_cast<size_t>(total), '\0');
  if (const int error = mpi_->gather_bytes(bytes.data(), static_cast<int>(length), data.data(), counts.data(),
                                           offsets.data());
      error != 0) {
    return Error("MPI_Gatherv", error);
  }
  std::vector<std::string> gathered;
  for (size_t r = 0; r < lengths.size(); ++r) gathered.push_back(data.substr(offsets[r], counts[r]));
  return gathered;
}

}  // namespace sluice
