// LINQS citation-graph formats: the content/cites pair (Cora, CiteSeer) and the tab layout
// (PubMed-Diabetes).
//
// Content/cites:
//   X.content   <paper id> <F feature values> <class label>     (tab/space separated)
//   X.cites     <cited paper id> <citing paper id>              (the link points right to left)
//
// Tab layout (LINQS's attribute files; PubMed-Diabetes is the known one):
//   X.NODE.<type>.tab       line 1 `NODE<TAB><type>`; line 2 the attributes, tab separated:
//                           `numeric:NAME[:DEFAULT]`, `string:NAME`, `cat=V1,V2,...:NAME`; then
//                           one row per node: `<id><TAB>NAME=VALUE<TAB>...` (any order, sparse:
//                           a numeric attribute a row leaves out takes its default, else 0).
//   X.DIRECTED.<rel>.tab    line 1 `DIRECTED<TAB><rel>` (or UNDIRECTED); line 2 `NO_FEATURES`
//                           or attributes (not read, a note says so); then
//                           `<link id><TAB><type>:<id><TAB>|<TAB><type>:<id>` per link.
//   The categorical attribute named `label` (else the only categorical one) is the class; the
//   numeric attributes are the features, in line-2 order; string attributes are not read. A row
//   without the class is an unlabelled node (label -1, never in a split).
//
// Either file may be gzip-compressed (X.content.gz, X.NODE.paper.tab.gz). Ids are any strings
// (Cora's are sparse integers) and are mapped to rows in node-file order. Classes are numbered in
// sorted order of their names. Citations naming a paper absent from the node file are skipped and
// recorded in the LoadReport; self-citations are dropped (counted in a note); edges are made
// undirected and de-duplicated.
//
// Errors (ParseError/IoError, one line with file:line and the value): a missing file, an empty
// node file, a row whose column count differs from the first row's, a non-numeric feature, a
// repeated paper id, a .cites line that does not have exactly 2 columns; in the tab layout also a
// bad header or attribute declaration, an undeclared attribute, a class value the declaration
// does not list, an attribute given twice in a row, and a link row that is not
// `id type:id | type:id` or names another node type.
#pragma once

#include "gatkit/io/dataset.hpp"

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace gatkit {

struct LinqsPaths {
    std::string content;  // X.content[.gz], or the tab layout's node file X.NODE.<type>.tab[.gz]
    std::string cites;    // X.cites[.gz], or the tab layout's links file X.[UN]DIRECTED.<rel>.tab[.gz]
    bool tab = false;     // the tab layout
};

// `path` is a folder holding exactly one *.content[.gz] and one *.cites[.gz] (or one
// *.NODE.*.tab[.gz] and one *.DIRECTED.*.tab[.gz] / *.UNDIRECTED.*.tab[.gz]), or the common
// prefix of the two files ("data/cora" for data/cora.content + data/cora.cites,
// "data/Pubmed-Diabetes" for data/Pubmed-Diabetes.NODE.paper.tab + ...DIRECTED.cites.tab).
LinqsPaths resolve_linqs_paths(const std::string& path);

NodeDataset load_linqs(const std::string& path);

// Reads a tab-layout links file on its own (load_network does, for link tasks on a citation
// graph without its node file): calls add(src, dst, line number, row) for each link, with the
// `<type>:` prefixes taken off. `node_type` non-empty: every endpoint must be of that type.
// Returns whether line 1 says DIRECTED. Notes go to `report`.
bool read_linqs_tab_links(const std::string& path, const std::string& node_type,
                          const std::function<void(std::string_view src, std::string_view dst, std::size_t line,
                                                   const std::string& row)>& add,
                          LoadReport& report);

// A file name that the tab layout's links file has: *.DIRECTED.*.tab or *.UNDIRECTED.*.tab
// (.gz accepted).
bool is_linqs_tab_links_name(const std::string& path);

// Whether `path` names LINQS data by the rules of resolve_linqs_paths: a folder holding a
// *.content[.gz] or a file of the tab layout, the prefix of X.content[.gz], or the prefix of
// X.NODE.*.tab (a path that exists and is not a folder is none of these). Only looks at names.
bool has_linqs_files(const std::string& path);

}  // namespace gatkit

namespace gatkit {

// Writes `prefix`.content and `prefix`.cites (each undirected edge once, as "cited citing"),
// atomically. Feature values are written with the shortest exact representation.
void write_linqs(const std::string& prefix, const NodeDataset& data);

}  // namespace gatkit
