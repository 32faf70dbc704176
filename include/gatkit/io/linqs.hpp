// LINQS citation-graph format (Cora, CiteSeer, PubMed-style content/cites pairs).
//
//   X.content   <paper id> <F feature values> <class label>     (tab/space separated)
//   X.cites     <cited paper id> <citing paper id>              (the link points right to left)
//
// Either file may be gzip-compressed (X.content.gz). Ids are any strings (Cora's are sparse
// integers) and are mapped to rows in .content order. Classes are numbered in sorted order of
// their names. Citations naming a paper absent from .content are skipped and recorded in the
// LoadReport; self-citations are dropped (counted in a note); edges are made undirected and
// de-duplicated.
//
// Errors (ParseError/IoError, one line with file:line and the value): a missing file, an empty
// .content, a row whose column count differs from the first row's, a non-numeric feature, a
// repeated paper id, a .cites line that does not have exactly 2 columns.
#pragma once

#include "gatkit/io/dataset.hpp"

#include <string>

namespace gatkit {

struct LinqsPaths {
    std::string content;
    std::string cites;
};

// `path` is a folder holding exactly one *.content[.gz] and one *.cites[.gz], or the common
// prefix of the two files ("data/cora" for data/cora.content + data/cora.cites).
LinqsPaths resolve_linqs_paths(const std::string& path);

NodeDataset load_linqs(const std::string& path);

}  // namespace gatkit

namespace gatkit {

// Writes `prefix`.content and `prefix`.cites (each undirected edge once, as "cited citing"),
// atomically. Feature values are written with the shortest exact representation.
void write_linqs(const std::string& prefix, const NodeDataset& data);

}  // namespace gatkit
