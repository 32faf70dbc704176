// Writing output files so that nothing half-written ever stands under the final name.
#pragma once

#include <string>

namespace gatkit {

// Writes `bytes` to `path` atomically: a temporary file beside it, fsync, rename over `path`.
// Throws IoError naming the path and the system's reason.
void write_file_atomically(const std::string& path, const std::string& bytes);

}  // namespace gatkit
