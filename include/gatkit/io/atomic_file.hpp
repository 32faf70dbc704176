// Writing output files so that nothing half-written ever stands under the final name.
#pragma once

#include <string>

namespace gatkit {

// Writes `bytes` to `path` atomically: a temporary file beside it, fsync, rename over `path`.
// A symbolic link to a regular file keeps its place: the file it names is replaced. A path that
// is a device, pipe or socket (/dev/stdout, /dev/null, a named pipe) is written in place, since a
// rename would replace the node itself; a short or failed write is still an error. Throws
// IoError naming the path and the system's reason (a directory: "it is a directory").
void write_file_atomically(const std::string& path, const std::string& bytes);

}  // namespace gatkit
