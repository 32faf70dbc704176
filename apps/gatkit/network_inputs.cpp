#include "network_inputs.hpp"

#include "gatkit/io/linqs.hpp"

namespace gatkit::cli {

bool is_linqs(const std::string& path, const std::string& format) {
    return format == "linqs" || (format == "auto" && has_linqs_files(path));
}

}  // namespace gatkit::cli
