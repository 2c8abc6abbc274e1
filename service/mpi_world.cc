#include "sluice/service/mpi_world.h"

#include <cstring>

namespace sluice::service {

Result<std::unique_ptr<MpiWorld>> MpiWorld::Join() {
  SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<MpiCollectives> collectives, MpiCollectives::Join());
  return std::unique_ptr<MpiWorld>(new MpiWorld(std::move(collectives)));
}

Result<std::string> MpiWorld::Broadcast(const std::string& bytes) {
  const int64_t length = static_cast<int64_t>(bytes.size());
  if (rank() == 0 && length > kMaxMpiMessageBytes) {
    return InvalidArgumentError("an MPI broadcast of ", length, " bytes; at most ", kMaxMpiMessageBytes);
  }
  Tensor received_length = Tensor::Scalar<int64_t>(length);
  SLUICE_RETURN_IF_ERROR(collectives_->Broadcast(received_length).WithContext("broadcasting a length"));
  const int64_t broadcast_length = received_length.scalar<int64_t>();
  if (broadcast_length < 0 || broadcast_length > kMaxMpiMessageBytes) {
    return DataLossError("rank 0 broadcast a length of ", broadcast_length, " bytes; at most ", kMaxMpiMessageBytes);
  }
  Tensor received = Tensor::Allocate(DType::kUInt8, Shape{broadcast_length});
  if (rank() == 0) std::memcpy(received.raw_data(), bytes.data(), bytes.size());
  SLUICE_RETURN_IF_ERROR(collectives_->Broadcast(received).WithContext("broadcasting bytes"));
  return std::string(static_cast<const char*>(received.raw_data()), static_cast<size_t>(broadcast_length));
}

Result<std::vector<std::string>> MpiWorld::Gather(const std::string& bytes) {
  return collectives_->Gather(bytes, kMaxMpiMessageBytes);
}

}  // namespace sluice::service
