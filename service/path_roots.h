// PathRoots: the directories a data-service server may read under
// (`--allow-root DIR`, default the current directory), so that a client
// cannot make a worker or the dispatcher open any file it names.
//
// A spec's file names and patterns (tfrecord files, list_files patterns, in
// nested pipelines too) are checked before anything is opened: each is made
// absolute against the current directory, and must have no ".." component
// and lie strictly under one root (compared after the roots' own symlinks
// are resolved; links inside a root are the root owner's to make). File
// names that reach a worker through elements (interleave's TFRECORD
// element_source) are only accepted when they come straight from a
// list_files source, whose patterns are checked. Plugin libraries that
// named functions load (dataset/plugin.h) are code: their paths must lie
// under a root too.
// Thread safety: immutable after Make.
#pragma once

#include <string>
#include <vector>

#include "sluice/core/status.h"
#include "sluice/dataset/pipeline_spec.pb.h"

namespace sluice::service {

class PathRoots {
 public:
  // InvalidArgument when a root does not exist or is not a directory.
  static Result<PathRoots> Make(const std::vector<std::string>& roots);

  // PermissionDenied naming the path and the roots when `path` (a file name
  // or glob pattern) is not under a root.
  Status CheckPath(const std::string& path) const;
  // CheckPath for every file name and pattern of `pipeline`, and the rule on
  // file names from elements (see above); the error names the op.
  Status CheckSpec(const spec::Pipeline& pipeline) const;

  const std::vector<std::string>& roots() const { return roots_; }

 private:
  explicit PathRoots(std::vector<std::string> roots) : roots_(std::move(roots)) {}
  Status CheckPipeline(const spec::Pipeline& pipeline, const std::string& where) const;

  std::vector<std::string> roots_;  // absolute, canonical, each ending in '/'
};

}  // namespace sluice::service
