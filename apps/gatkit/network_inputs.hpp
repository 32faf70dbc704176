// Helpers shared by the commands that read one network (node, link and edge tasks).
#pragma once

#include <string>

namespace gatkit::cli {

// LINQS when asked (--format linqs), or with --format auto when `path` is a folder holding a
// *.content[.gz] file or a file of the tab layout (*.NODE.*.tab, *.DIRECTED.*.tab), or the
// prefix of X.content[.gz] (Cora) or of X.NODE.*.tab (PubMed-Diabetes).
bool is_linqs(const std::string& path, const std::string& format);

}  // namespace gatkit::cli
