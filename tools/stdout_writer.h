// The commands' standard output: std::cout on a buffered writer over file
// descriptor 1 that remembers why a write failed, so that output lost to a
// full disk, a closed pipe or /dev/full ends the command with that reason
// and exit status 1 instead of being dropped silently.
// Thread safety: the main thread only, like std::cout.
#pragma once

#include "sluice/core/status.h"

namespace sluice::cli {

// Makes std::cout write through the checked writer. Call once, first thing
// in main().
void UseCheckedStdout();

// Flushes std::cout; OK while everything written so far reached stdout,
// else "writing to stdout failed: <the OS's reason>". A command that prints
// in a loop checks `!std::cout` and returns this, rather than producing
// output no one receives.
Status FlushStdout();

}  // namespace sluice::cli
