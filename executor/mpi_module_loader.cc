#include "sluice/executor/mpi_module_loader.h"

#include <dlfcn.h>

#include <filesystem>
#include <mutex>

namespace sluice {
namespace {

// The module's file name, and where it lies relative to the directory of
// the running executable: the build tree's executor/ folder beside tools/
// and tests/, the installed lib folder beside bin/. Explicit paths rather
// than the executable's run path: a sanitizer's dlopen interceptor does not
// search that.
constexpr char kModuleName[] = "libsluice_mpi.so";
const char* const kModuleDirs[] = {"../executor", "../" SLUICE_INSTALL_LIBDIR};

Result<const SluiceMpiFunctions*> OpenModule() {
  std::error_code error;
  const std::filesystem::path executable = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return InternalError("reading /proc/self/exe, to find ", kModuleName, ": ", error.message());
  std::string tried;
  for (const char* dir : kModuleDirs) {
    const std::string path = (executable.parent_path() / dir / kModuleName).lexically_normal().string();
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
  return FailedPreconditionError("MPI needs the Open MPI module ", kModuleName, ", beside ", executable.string(),
                                 "'s libraries; tried:", tried);
}

}  // namespace

Result<const SluiceMpiFunctions*> LoadMpiModule() {
  static std::mutex mu;
  static const SluiceMpiFunctions* loaded = nullptr;
  std::lock_guard<std::mutex> lock(mu);
  if (loaded == nullptr) {
    SLUICE_ASSIGN_OR_RETURN(loaded, OpenModule());
  }
  return loaded;
}

std::string MpiErrorText(const SluiceMpiFunctions& mpi, int code) {
  char text[512];
  mpi.error_string(code, text, sizeof(text));
  return text;
}

}  // namespace sluice
