// gatkit's version: the one place it is written. CMakeLists.txt reads it from here for the
// project and package versions (gatkitConfigVersion.cmake).
#pragma once

namespace gatkit {
inline constexpr const char* kVersion = "0.1.0";
}  // namespace gatkit
