#include "gatkit/io/linqs.hpp"

#include "gatkit/core/error.hpp"
#include "gatkit/graph/build.hpp"
#include "gatkit/io/text_reader.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <unordered_map>

namespace gatkit {

namespace fs = std::filesystem;

void row_normalize(Matrix& features) {
#pragma omp parallel for schedule(static)
    for (Eigen::Index i = 0; i < features.rows(); ++i) {
        const float s = features.row(i).sum();
        if (s != 0.0f) features.row(i) /= s;
    }
}

std::vector<int> number_labels(const std::vector<std::string>& labels, std::vector<std::string>& names) {
    names.clear();
    for (const auto& l : labels)
        if (!l.empty()) names.push_back(l);
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    std::map<std::string, int> index;
    for (std::size_t c = 0; c < names.size(); ++c) index[names[c]] = static_cast<int>(c);
    std::vector<int> ids(labels.size(), -1);
    for (std::size_t k = 0; k < labels.size(); ++k)
        if (!labels[k].empty()) ids[k] = index[labels[k]];
    return ids;
}

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// "<prefix><ext>" or "<prefix><ext>.gz", whichever exists.
std::string with_optional_gz(const std::string& prefix, const std::string& ext) {
    if (file_exists(prefix + ext)) return prefix + ext;
    if (file_exists(prefix + ext + ".gz")) return prefix + ext + ".gz";
    return {};
}

}  // namespace

bool is_linqs_tab_links_name(const std::string& path) {
    const std::string name = fs::path(path).filename().string();
    return (ends_with(name, ".tab") || ends_with(name, ".tab.gz")) &&
           (name.find(".DIRECTED.") != std::string::npos || name.find(".UNDIRECTED.") != std::string::npos);
}

namespace {

bool is_linqs_tab_nodes_name(const std::string& name) {
    return (ends_with(name, ".tab") || ends_with(name, ".tab.gz")) && name.find(".NODE.") != std::string::npos;
}

// The files of either layout in `dir`, sorted; with a `prefix`, only the tab layout's files named
// `<prefix>.*` (resolve_linqs_paths looks for <prefix>.content itself).
struct LayoutFiles {
    std::vector<std::string> contents, cites, tab_nodes, tab_links;
};

LayoutFiles list_layout_files(const fs::path& dir, const std::string& prefix) {
    LayoutFiles f;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir.empty() ? fs::path(".") : dir, ec)) {
        const std::string name = entry.path().filename().string();
        if (!name.starts_with(prefix)) continue;
        const std::string p = (dir.empty() ? fs::path(name) : dir / name).string();
        if (prefix.empty()) {
            if (ends_with(name, ".content") || ends_with(name, ".content.gz")) f.contents.push_back(p);
            if (ends_with(name, ".cites") || ends_with(name, ".cites.gz")) f.cites.push_back(p);
        } else if (name.compare(prefix.size(), 1, ".") != 0) {
            continue;  // "cora2.NODE..." is not of the prefix "cora"
        }
        if (is_linqs_tab_nodes_name(name)) f.tab_nodes.push_back(p);
        if (is_linqs_tab_links_name(name)) f.tab_links.push_back(p);
    }
    for (auto* v : {&f.contents, &f.cites, &f.tab_nodes, &f.tab_links}) std::sort(v->begin(), v->end());
    return f;
}

std::string tab_layout_problem(const std::string& where, const LayoutFiles& f) {
    std::string m = where + ": expected one *.NODE.*.tab[.gz] (the nodes: features and classes) and one *.DIRECTED.*.tab[.gz] or "
                            "*.UNDIRECTED.*.tab[.gz] (the links) of LINQS's tab layout, found " +
                    std::to_string(f.tab_nodes.size()) + " and " + std::to_string(f.tab_links.size());
    if (f.tab_nodes.empty() && f.tab_links.size() == 1)
        m += "; without the node file, a link task can read the links alone: --task link --data " + f.tab_links.front();
    return m;
}

}  // namespace

bool has_linqs_files(const std::string& path) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
        const LayoutFiles f = list_layout_files(path, "");
        return !f.contents.empty() || !f.tab_nodes.empty() || !f.tab_links.empty();
    }
    if (fs::exists(path + ".content", ec) || fs::exists(path + ".content.gz", ec)) return true;
    const fs::path as_path(path);
    if (as_path.filename().empty() || fs::exists(path, ec)) return false;
    return !list_layout_files(as_path.parent_path(), as_path.filename().string()).tab_nodes.empty();
}

LinqsPaths resolve_linqs_paths(const std::string& path) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
        const LayoutFiles f = list_layout_files(path, "");
        const bool content_layout = !f.contents.empty() || !f.cites.empty();
        if (!content_layout && (!f.tab_nodes.empty() || !f.tab_links.empty())) {
            if (f.tab_nodes.size() != 1 || f.tab_links.size() != 1) throw IoError(tab_layout_problem("'" + path + "'", f));
            return {f.tab_nodes[0], f.tab_links[0], true};
        }
        if (f.contents.size() != 1 || f.cites.size() != 1)
            throw IoError("'" + path + "': expected one *.content[.gz] and one *.cites[.gz] file in the folder, found " +
                          std::to_string(f.contents.size()) + " and " + std::to_string(f.cites.size()) +
                          (content_layout ? "" : " (nor LINQS's tab layout: *.NODE.*.tab and *.DIRECTED.*.tab)"));
        return {f.contents[0], f.cites[0], false};
    }
    LinqsPaths p{with_optional_gz(path, ".content"), with_optional_gz(path, ".cites"), false};
    if (!p.content.empty() && !p.cites.empty()) return p;
    const fs::path as_path(path);
    const LayoutFiles f = list_layout_files(as_path.parent_path(), as_path.filename().string());
    if (p.content.empty() && p.cites.empty() && !as_path.filename().empty() && (!f.tab_nodes.empty() || !f.tab_links.empty())) {
        if (f.tab_nodes.size() != 1 || f.tab_links.size() != 1) throw IoError(tab_layout_problem("'" + path + "'", f));
        return {f.tab_nodes[0], f.tab_links[0], true};
    }
    throw IoError("cannot open '" + path + "': " + (fs::exists(path, ec) ? "a file, not a LINQS folder" : "no such folder") + ", and no " +
                  path + ".content[.gz] + " + path + ".cites[.gz] pair");
}

namespace {

NodeDataset load_content_cites(const LinqsPaths& paths) {
    NodeDataset ds;
    ds.name = fs::path(paths.content).filename().string();
    ds.name = ds.name.substr(0, ds.name.find('.'));

    // .content: id, F features, label
    std::vector<std::vector<float>> rows;
    std::vector<std::string> label_names;
    std::unordered_map<std::string, NodeId> index;
    {
        TextReader in(paths.content);
        std::string line;
        std::size_t expected_columns = 0;
        while (in.next(line)) {
            const auto cols = split_whitespace(line);
            if (cols.empty()) continue;
            if (expected_columns == 0) {
                if (cols.size() < 3)
                    throw ParseError(in.where() + ": expected at least 3 columns (id, features, label), found " +
                                     std::to_string(cols.size()) + ": '" + clip(line) + "'");
                expected_columns = cols.size();
            }
            if (cols.size() != expected_columns)
                throw ParseError(in.where() + ": expected " + std::to_string(expected_columns) + " columns (id, " +
                                 std::to_string(expected_columns - 2) + " features, label) as on the first row, found " +
                                 std::to_string(cols.size()));
            std::vector<float> feats(expected_columns - 2);
            for (std::size_t k = 0; k < feats.size(); ++k)
                if (!parse_float(cols[k + 1], feats[k]))
                    throw ParseError(in.where() + ": column " + std::to_string(k + 2) + ": feature '" + clip(cols[k + 1]) +
                                     "' is not a finite number");
            const std::string id(cols.front());
            if (!index.emplace(id, static_cast<NodeId>(rows.size())).second)
                throw ParseError(in.where() + ": paper id '" + clip(id) + "' appears twice");
            ds.node_ids.push_back(id);
            label_names.emplace_back(cols.back());
            rows.push_back(std::move(feats));
        }
        if (rows.empty()) throw ParseError(paths.content + ": file is empty (no papers)");
    }
    const auto N = static_cast<NodeId>(rows.size());
    const auto F = static_cast<Eigen::Index>(rows.front().size());
    ds.features.resize(N, F);
    for (NodeId i = 0; i < N; ++i) ds.features.row(i) = Eigen::Map<const Eigen::RowVectorXf>(rows[i].data(), F);
    rows.clear();

    ds.labels = number_labels(label_names, ds.class_names);  // never empty: a row's last column

    // .cites: cited citing
    std::vector<std::pair<NodeId, NodeId>> edges;
    std::size_t self_citations = 0;
    {
        TextReader in(paths.cites);
        std::string line;
        while (in.next(line)) {
            const auto cols = split_whitespace(line);
            if (cols.empty()) continue;
            if (cols.size() != 2)
                throw ParseError(in.where() + ": expected 2 columns (cited, citing), found " + std::to_string(cols.size()) +
                                 ": '" + clip(line) + "'");
            const auto a = index.find(std::string(cols[0]));
            const auto b = index.find(std::string(cols[1]));
            if (a == index.end() || b == index.end()) {
                const std::string unknown(a == index.end() ? cols[0] : cols[1]);
                ds.report.skip(paths.cites, in.line_number(), clip(line), "paper id '" + clip(unknown) + "' is not in " +
                                                                              fs::path(paths.content).filename().string());
                continue;
            }
            if (a->second == b->second) {
                ++self_citations;
                continue;
            }
            edges.emplace_back(b->second, a->second);  // citing → cited; made undirected below
        }
    }
    if (self_citations > 0) ds.report.notes.push_back(std::to_string(self_citations) + " self-citations dropped");
    if (ds.report.n_skipped() > 0)
        ds.report.notes.push_back(std::to_string(ds.report.n_skipped()) + " citations name unknown papers and were skipped");
    ds.graph = build_graph(N, std::move(edges), {.undirected = true, .drop_duplicates = true, .self_loops = SelfLoops::remove});
    return ds;
}

// Tab-separated fields, each without surrounding spaces; empty fields are left out.
std::vector<std::string_view> split_tabs(std::string_view line) {
    std::vector<std::string_view> fields;
    std::size_t start = 0;
    while (start <= line.size()) {
        std::size_t end = line.find('\t', start);
        if (end == std::string_view::npos) end = line.size();
        std::string_view f = line.substr(start, end - start);
        while (!f.empty() && f.front() == ' ') f.remove_prefix(1);
        while (!f.empty() && f.back() == ' ') f.remove_suffix(1);
        if (!f.empty()) fields.push_back(f);
        start = end + 1;
    }
    return fields;
}

// Line 1 of a tab-layout file: `<KIND><TAB><name>`; returns the name.
std::string read_tab_header(TextReader& in, const std::vector<std::string>& kinds, std::string* kind_out) {
    std::string line;
    if (!in.next(line)) throw ParseError(in.path() + ": file is empty (expected the header line '" + kinds.front() + "<TAB>...')");
    const auto f = split_tabs(line);
    std::string expected;
    for (const auto& k : kinds) expected += (expected.empty() ? "'" : " or '") + k + "<TAB><name>'";
    if (f.size() != 2 || std::find(kinds.begin(), kinds.end(), std::string(f[0])) == kinds.end())
        throw ParseError(in.where() + ": expected the LINQS tab header " + expected + ", found '" + clip(line) + "'");
    if (kind_out) *kind_out = std::string(f[0]);
    return std::string(f[1]);
}

enum class AttributeKind { numeric, text, category };

struct Attribute {
    AttributeKind kind;
    float fallback = 0;               // numeric: the value a row that leaves it out gets
    std::vector<std::string> values;  // category: the declared values
    Eigen::Index column = -1;         // numeric: its feature column
};

// `id  type:X  |  type:Y  [attributes]` → X, Y.
std::pair<std::string_view, std::string_view> link_ends(const std::vector<std::string_view>& f, const std::string& node_type,
                                                        const TextReader& in, const std::string& line) {
    if (f.size() < 4 || f[2] != "|")
        throw ParseError(in.where() + ": expected a link '<id><TAB><type>:<id><TAB>|<TAB><type>:<id>', found '" + clip(line) + "'");
    std::pair<std::string_view, std::string_view> ends;
    for (const auto& [field, end] : {std::pair{f[1], &ends.first}, std::pair{f[3], &ends.second}}) {
        const std::size_t colon = field.find(':');
        if (colon == std::string_view::npos || colon + 1 == field.size())
            throw ParseError(in.where() + ": link end '" + clip(field) + "' is not '<type>:<id>'");
        if (!node_type.empty() && field.substr(0, colon) != node_type)
            throw ParseError(in.where() + ": link end '" + clip(field) + "' is not a " + node_type + " (the node file's type)");
        *end = field.substr(colon + 1);
    }
    return ends;
}

NodeDataset load_tab(const LinqsPaths& paths) {
    NodeDataset ds;
    ds.name = fs::path(paths.content).filename().string();
    ds.name = ds.name.substr(0, ds.name.find('.'));

    TextReader in(paths.content);
    const std::string node_type = read_tab_header(in, {"NODE"}, nullptr);

    // Line 2: the attributes.
    std::string line;
    if (!in.next(line)) throw ParseError(in.path() + ": no attribute line after the header (line 2 declares the attributes)");
    std::unordered_map<std::string, Attribute> attributes;
    std::string label_name;
    Eigen::Index F = 0;
    std::vector<float> fallbacks;
    for (const std::string_view decl : split_tabs(line)) {
        if (decl == "NO_FEATURES") continue;
        Attribute a;
        std::string name;
        const auto bad = [&] {
            return ParseError(in.where() + ": attribute '" + clip(decl) +
                              "' is not numeric:NAME[:DEFAULT], string:NAME or cat=V1,V2,...:NAME");
        };
        if (decl.starts_with("numeric:")) {
            std::string_view rest = decl.substr(8);
            const std::size_t colon = rest.find(':');
            if (colon != std::string_view::npos) {
                if (!parse_float(rest.substr(colon + 1), a.fallback))
                    throw ParseError(in.where() + ": attribute '" + clip(decl) + "': default '" + clip(rest.substr(colon + 1)) +
                                     "' is not a finite number");
                rest = rest.substr(0, colon);
            }
            a.kind = AttributeKind::numeric;
            name = rest;
        } else if (decl.starts_with("string:")) {
            a.kind = AttributeKind::text;
            name = decl.substr(7);
        } else if (decl.starts_with("cat=")) {
            const std::size_t colon = decl.find(':');
            if (colon == std::string_view::npos) throw bad();
            std::string_view values = decl.substr(4, colon - 4);
            std::string_view rest = decl.substr(colon + 1);
            name = rest.substr(0, rest.find(':'));
            while (!values.empty()) {
                const std::size_t comma = values.find(',');
                a.values.emplace_back(values.substr(0, comma));
                values = comma == std::string_view::npos ? std::string_view{} : values.substr(comma + 1);
            }
            if (a.values.empty() || std::find(a.values.begin(), a.values.end(), "") != a.values.end()) throw bad();
            a.kind = AttributeKind::category;
        } else {
            throw bad();
        }
        if (name.empty() || name.find('=') != std::string::npos) throw bad();
        if (a.kind == AttributeKind::numeric) {
            a.column = F++;
            fallbacks.push_back(a.fallback);
        }
        if (!attributes.emplace(name, a).second) throw ParseError(in.where() + ": attribute '" + clip(name) + "' is declared twice");
    }
    std::vector<std::string> category_names;
    for (const auto& [name, a] : attributes)
        if (a.kind == AttributeKind::category) category_names.push_back(name);
    std::sort(category_names.begin(), category_names.end());
    if (attributes.contains("label") && attributes.at("label").kind == AttributeKind::category) label_name = "label";
    else if (category_names.size() == 1) label_name = category_names.front();
    if (label_name.empty())
        throw ParseError(in.path() + ":2: no class attribute: declare it as cat=V1,V2,...:label" +
                         (category_names.empty() ? std::string() : " (found " + std::to_string(category_names.size()) + " categorical ones)"));
    for (const auto& name : category_names)
        if (name != label_name)
            throw ParseError(in.path() + ":2: categorical attribute '" + clip(name) + "': only the class ('" + label_name +
                             "') may be categorical");

    // The nodes.
    std::vector<float> values;  // row-major, F per node
    std::vector<std::string> label_of;
    std::unordered_map<std::string, NodeId> index;
    std::vector<char> given(static_cast<std::size_t>(F), 0);
    std::size_t unlabelled = 0;
    while (in.next(line)) {
        const auto fields = split_tabs(line);
        if (fields.empty()) continue;
        const std::string id(fields.front());
        if (id.find('=') != std::string::npos)
            throw ParseError(in.where() + ": the row starts with '" + clip(id) + "', not with the " + node_type + "'s id");
        if (!index.emplace(id, static_cast<NodeId>(ds.node_ids.size())).second)
            throw ParseError(in.where() + ": " + node_type + " id '" + clip(id) + "' appears twice");
        ds.node_ids.push_back(id);
        const std::size_t base = values.size();
        values.insert(values.end(), fallbacks.begin(), fallbacks.end());
        std::fill(given.begin(), given.end(), 0);
        std::string label;
        for (std::size_t k = 1; k < fields.size(); ++k) {
            const std::string_view field = fields[k];
            const std::size_t eq = field.find('=');
            if (eq == std::string_view::npos || eq == 0)
                throw ParseError(in.where() + ": '" + clip(field) + "' is not NAME=VALUE");
            const std::string name(field.substr(0, eq));
            const std::string_view value = field.substr(eq + 1);
            const auto it = attributes.find(name);
            if (it == attributes.end())
                throw ParseError(in.where() + ": attribute '" + clip(name) + "' is not declared on line 2 of " + in.path());
            const Attribute& a = it->second;
            if (a.kind == AttributeKind::numeric) {
                if (given[static_cast<std::size_t>(a.column)])
                    throw ParseError(in.where() + ": attribute '" + clip(name) + "' is given twice in the row");
                given[static_cast<std::size_t>(a.column)] = 1;
                if (!parse_float(value, values[base + static_cast<std::size_t>(a.column)]))
                    throw ParseError(in.where() + ": " + clip(name) + "='" + clip(value) + "' is not a finite number");
            } else if (a.kind == AttributeKind::category) {
                if (!label.empty()) throw ParseError(in.where() + ": the class '" + clip(name) + "' is given twice in the row");
                if (std::find(a.values.begin(), a.values.end(), value) == a.values.end())
                    throw ParseError(in.where() + ": " + clip(name) + "='" + clip(value) + "' is not one of the values declared on line 2");
                label = value;
            }
        }
        if (label.empty()) ++unlabelled;
        label_of.push_back(std::move(label));
    }
    if (ds.node_ids.empty()) throw ParseError(paths.content + ": no " + node_type + " rows after the two header lines");
    const auto N = static_cast<NodeId>(ds.node_ids.size());
    ds.features = Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(values.data(), N, F);
    values = {};

    ds.labels = number_labels(label_of, ds.class_names);
    if (ds.class_names.empty()) throw ParseError(paths.content + ": no row has a " + label_name + "= value (the class)");
    if (unlabelled > 0)
        ds.report.notes.push_back(std::to_string(unlabelled) + " " + node_type + "s have no " + label_name + " (unlabelled: in no split)");

    std::vector<std::pair<NodeId, NodeId>> edges;
    std::size_t self_citations = 0;
    const std::string node_file = fs::path(paths.content).filename().string();
    read_linqs_tab_links(
        paths.cites, node_type,
        [&](std::string_view src, std::string_view dst, std::size_t line_number, const std::string& row) {
            const auto a = index.find(std::string(src));
            const auto b = index.find(std::string(dst));
            if (a == index.end() || b == index.end()) {
                const std::string unknown(a == index.end() ? src : dst);
                ds.report.skip(paths.cites, line_number, clip(row), node_type + " id '" + clip(unknown) + "' is not in " + node_file);
                return;
            }
            if (a->second == b->second) {
                ++self_citations;
                return;
            }
            edges.emplace_back(a->second, b->second);
        },
        ds.report);
    if (self_citations > 0) ds.report.notes.push_back(std::to_string(self_citations) + " self-links dropped");
    if (ds.report.n_skipped() > 0)
        ds.report.notes.push_back(std::to_string(ds.report.n_skipped()) + " links name unknown " + node_type + "s and were skipped");
    ds.graph = build_graph(N, std::move(edges), {.undirected = true, .drop_duplicates = true, .self_loops = SelfLoops::remove});
    return ds;
}

}  // namespace

bool read_linqs_tab_links(const std::string& path, const std::string& node_type,
                          const std::function<void(std::string_view, std::string_view, std::size_t, const std::string&)>& add,
                          LoadReport& report) {
    TextReader in(path);
    std::string kind;
    read_tab_header(in, {"DIRECTED", "UNDIRECTED"}, &kind);
    std::string line;
    if (!in.next(line)) throw ParseError(in.path() + ": no line 2 after the header (NO_FEATURES, or the links' attributes)");
    const auto declared = split_tabs(line);
    if (!(declared.size() == 1 && declared.front() == "NO_FEATURES"))
        report.notes.push_back(in.path() + ":2: the links' attributes are not read");
    while (in.next(line)) {
        const auto fields = split_tabs(line);
        if (fields.empty()) continue;
        const auto [src, dst] = link_ends(fields, node_type, in, line);
        add(src, dst, in.line_number(), line);
    }
    return kind == "DIRECTED";
}

NodeDataset load_linqs(const std::string& path) {
    const LinqsPaths paths = resolve_linqs_paths(path);
    return paths.tab ? load_tab(paths) : load_content_cites(paths);
}

}  // namespace gatkit

#include "gatkit/io/atomic_file.hpp"

#include <charconv>

namespace gatkit {

void write_linqs(const std::string& prefix, const NodeDataset& data) {
    std::string content, cites;
    char num[32];
    for (NodeId i = 0; i < data.num_nodes(); ++i) {
        content += data.node_ids[i];
        for (Eigen::Index f = 0; f < data.features.cols(); ++f) {
            const auto r = std::to_chars(num, num + sizeof num, data.features(i, f));
            content += '\t';
            content.append(num, r.ptr);
        }
        content += '\t';
        content += data.class_names[data.labels[i]];
        content += '\n';
    }
    for (const auto& [u, v] : data.graph.edge_list())
        if (u < v) cites += data.node_ids[v] + '\t' + data.node_ids[u] + '\n';
    write_file_atomically(prefix + ".content", content);
    write_file_atomically(prefix + ".cites", cites);
}

}  // namespace gatkit
