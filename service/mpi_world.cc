#include "sluice/service/mpi_world.h"

#include <dlfcn.h>

#include <filesystem>
#include <limits>

namespace sluice::service {
namespace {

// The module's file name, and where it lies relative to the directory of
// the running executable: the build tree's service/ folder beside tools/,
// the installed lib folder beside bin/. Explicit paths rather than the
// executable's run path: a sanitizer's dlopen interceptor does not search
// that.
constexpr char kModuleName[] = "libsluice_service_mpi.so";
const char* const kModuleDirs[] = {"../service", "../" SLUICE_INSTALL_LIBDIR};

Result<const SluiceMpiFunctions*> LoadModule() {
  std::error_code error;
  const std::filesystem::path executable = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return InternalError("reading /proc/self/exe, to find ", kModuleName, ": ", error.message());
  std::string tried;
  for (const char* dir : kModuleDirs) {
    const std::string path = (executable.parent_path() / dir / kModuleName).lexically_normal().string();
    // Never closed: Open MPI cannot be unloaded and initialised again.
    void* module = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (module == nullptr) {
      tried += StrCat("\n  ", dlerror());
      continue;
    }
    using Entry = const SluiceMpiFunctions* (*)();
    auto entry = reinterpret_cast<Entry>(dlsym(module, "sluice_mpi_functions"));
    if (entry == nullptr) return FailedPreconditionError(path, " has no sluice_mpi_functions: ", dlerror());
    return entry();
  }
  return FailedPreconditionError("--mpi needs the Open MPI module ", kModuleName, ", beside ", executable.string(),
                                 "'s libraries; tried:", tried);
}

}  // namespace

Result<std::unique_ptr<MpiWorld>> MpiWorld::Join() {
  SLUICE_ASSIGN_OR_RETURN(const SluiceMpiFunctions* mpi, LoadModule());
  int rank = 0;
  int size = 0;
  if (const int error = mpi->init(&rank, &size); error != 0) {
    char text[512];
    mpi->error_string(error, text, sizeof(text));
    return FailedPreconditionError("MPI_Init_thread failed: ", text);
  }
  return std::unique_ptr<MpiWorld>(new MpiWorld(mpi, rank, size));
}

MpiWorld::~MpiWorld() {
  if (finalize_) mpi_->finalize();
}

Status MpiWorld::Error(const std::string& what, int code) const {
  char text[512];
  mpi_->error_string(code, text, sizeof(text));
  return UnavailableError("MPI rank ", rank_, " of ", size_, ": ", what, ": ", text);
}

Result<std::string> MpiWorld::Broadcast(const std::string& bytes) {
  int64_t length = static_cast<int64_t>(bytes.size());
  if (rank_ == 0 && length > kMaxMpiMessageBytes) {
    return InvalidArgumentError("an MPI broadcast of ", length, " bytes; at most ", kMaxMpiMessageBytes);
  }
  if (const int error = mpi_->broadcast(&length, sizeof(length)); error != 0) {
    return Error("broadcasting a length", error);
  }
  if (length < 0 || length > kMaxMpiMessageBytes) {
    return DataLossError("rank 0 broadcast a length of ", length, " bytes; at most ", kMaxMpiMessageBytes);
  }
  std::string received = rank_ == 0 ? bytes : std::string(static_cast<size_t>(length), '\0');
  if (const int error = mpi_->broadcast(received.data(), static_cast<int>(length)); error != 0) {
    return Error("broadcasting bytes", error);
  }
  return received;
}

Result<std::vector<std::string>> MpiWorld::Gather(const std::string& bytes) {
  const int64_t length = static_cast<int64_t>(bytes.size());
  if (length > kMaxMpiMessageBytes) {
    return InvalidArgumentError("an MPI gather of ", length, " bytes; at most ", kMaxMpiMessageBytes);
  }
  std::vector<int64_t> lengths(rank_ == 0 ? static_cast<size_t>(size_) : 0);
  if (const int error = mpi_->gather_int64(length, lengths.data()); error != 0) {
    return Error("gathering lengths", error);
  }
  std::vector<int> counts(lengths.size());
  std::vector<int> offsets(lengths.size());
  int64_t total = 0;
  for (size_t r = 0; r < lengths.size(); ++r) {
    if (lengths[r] < 0 || lengths[r] > kMaxMpiMessageBytes) {
      return DataLossError("rank ", r, " sent a length of ", lengths[r], " bytes; at most ", kMaxMpiMessageBytes);
    }
    counts[r] = static_cast<int>(lengths[r]);
    offsets[r] = static_cast<int>(total);
    total += lengths[r];
  }
  // At most size * kMaxMpiMessageBytes; an int offset bounds it further.
  if (total > std::numeric_limits<int>::max()) {
    return ResourceExhaustedError("an MPI gather of ", total, " bytes in all; at most ", std::numeric_limits<int>::max());
  }
  std::string data(static_cast<size_t>(total), '\0');
  if (const int error = mpi_->gather_bytes(bytes.data(), static_cast<int>(length), data.data(), counts.data(),
                                           offsets.data());
      error != 0) {
    return Error("gathering bytes", error);
  }
  std::vector<std::string> gathered;
  for (size_t r = 0; r < lengths.size(); ++r) gathered.push_back(data.substr(offsets[r], counts[r]));
  return gathered;
}

}  // namespace sluice::service
