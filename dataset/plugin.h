// Plugins: shared libraries of element functions behind the C interface of
// dataset/plugin_abi.h, loaded by path. A spec names a plugin's function as
//   map { fn { named { name: "clip_and_scale" args { ... }
//                      plugin { path: "/opt/lib/libmy_plugin.so" name: "example" version: "1.0" } } } }
// and loading the spec loads the library (once per process: a second load
// of the same file returns the loaded plugin; a library is never unloaded).
// In C++, LoadPlugin(path) and then plugin->MakeFunction(name, args), or
// MakeNamedFunction("example.clip_and_scale", args) once it is loaded; a
// pipeline built from such a function writes the plugin's path, name and
// version into its spec.
//
// A plugin function's outputs are allocated by Sluice, with the shapes the
// plugin declares (its output spec, or per element its output_shape), and
// filled by the plugin: they are ordinary tensors, counted by the RAM budget
// wherever an op buffers them. Every element's inputs are checked against the
// spec the function was bound to, and every output shape against the
// declared spec, before the plugin sees them.
//
// Loading is refused, with an error naming the path and what was expected
// and found, when the library is missing (NotFound) or cannot be opened, has
// no entry point, reports another ABI version (FailedPrecondition), or
// describes its functions inconsistently; a plugin name already loaded from
// another file is AlreadyExists.
// Thread safety: all functions may be called concurrently; a Plugin is
// immutable.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sluice/dataset/function_args.h"
#include "sluice/dataset/functions.h"

namespace sluice {

namespace spec {
class Pipeline;
class PluginReference;
}  // namespace spec

class Plugin {
 public:
  virtual ~Plugin() = default;
  // The path it was loaded from, made absolute and canonical.
  virtual const std::string& path() const = 0;
  // What the plugin reports (SluicePluginInfo).
  virtual const std::string& name() const = 0;
  virtual const std::string& version() const = 0;
  virtual std::vector<std::string> FunctionNames() const = 0;
  // Its function `function` made with `args` (the plugin's create callback
  // checks them); NotFound, naming the plugin and listing its functions,
  // when it has none of that name.
  virtual Result<ElementFunctionPtr> MakeFunction(const std::string& function,
                                                  const FunctionArgs& args = {}) const = 0;
};
using PluginPtr = std::shared_ptr<const Plugin>;

// Loads the plugin library at `path`, or returns the plugin already loaded
// from that file.
Result<PluginPtr> LoadPlugin(const std::string& path);
// Loads the plugin a spec names and checks it is the one the spec recorded:
// FailedPrecondition when its name or version differ from the reference's
// (an empty name or version in the reference is not checked).
Result<PluginPtr> LoadPlugin(const spec::PluginReference& reference);

// The loaded plugin called `name`; null when none is.
PluginPtr FindLoadedPlugin(std::string_view name);
// Every loaded plugin, by name.
std::vector<PluginPtr> LoadedPlugins();

}  // namespace sluice
