#include "gatkit/io/tu.hpp"

#include "gatkit/core/error.hpp"
#include "gatkit/graph/build.hpp"
#include "gatkit/io/text_reader.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <tuple>

namespace gatkit {

namespace fs = std::filesystem;

namespace {

std::string trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return std::string(s);
}

std::vector<std::string> split_commas(std::string_view line) {
    std::vector<std::string> out;
    for (;;) {
        const auto comma = line.find(',');
        out.push_back(trim(line.substr(0, comma)));
        if (comma == std::string_view::npos) return out;
        line.remove_prefix(comma + 1);
    }
}

// "<prefix>_<part>.txt" or "<prefix>_<part>.txt.gz", whichever exists; empty if neither.
std::string tu_file(const std::string& prefix, const std::string& part) {
    const std::string plain = prefix + "_" + part + ".txt";
    if (file_exists(plain)) return plain;
    if (file_exists(plain + ".gz")) return plain + ".gz";
    return {};
}

// The "folder/DS" prefix and the data set name DS for a folder or a prefix.
std::pair<std::string, std::string> resolve_prefix(const std::string& path) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
        fs::path folder(path);
        if (folder.filename().empty()) folder = folder.parent_path();  // "tu/MUTAG/"
        std::string name = folder.filename().string();
        if (!tu_file((folder / name).string(), "A").empty()) return {(folder / name).string(), name};
        // a folder whose name differs from the data set's: accept it when it holds exactly one *_A.txt
        std::vector<std::string> found;
        for (const auto& entry : fs::directory_iterator(folder, ec)) {
            const std::string f = entry.path().filename().string();
            for (const char* suffix : {"_A.txt", "_A.txt.gz"})
                if (f.size() > std::string(suffix).size() && f.ends_with(suffix))
                    found.push_back(f.substr(0, f.size() - std::string(suffix).size()));
        }
        if (found.size() == 1) return {(folder / found.front()).string(), found.front()};
        throw IoError("'" + path + "': expected one TU data set (DS_A.txt, DS_graph_indicator.txt, DS_graph_labels.txt) in the folder, found " +
                      std::to_string(found.size()) + " *_A.txt files");
    }
    if (tu_file(path, "A").empty())
        throw IoError("cannot open '" + path + "': " + (fs::exists(path) ? "a file, not a TU folder" : "no such folder") + ", and no " + path +
                      "_A.txt (a TU data set is a folder or a 'folder/DS' prefix)");
    return {path, fs::path(path).filename().string()};
}

// The lines of one TU file; line k of the result is line k+1 of the file. Blank lines are
// allowed only at the end.
struct TuLines {
    std::string path;
    std::vector<std::string> lines;

    std::string where(std::size_t k) const { return path + ":" + std::to_string(k + 1); }
};

TuLines read_lines(const std::string& path) {
    TuLines out{path, {}};
    TextReader in(path);
    std::string line;
    while (in.next(line)) out.lines.push_back(line);
    while (!out.lines.empty() && trim(out.lines.back()).empty()) out.lines.pop_back();
    for (std::size_t k = 0; k < out.lines.size(); ++k)
        if (trim(out.lines[k]).empty()) throw ParseError(out.where(k) + ": empty line (every line holds one entry)");
    return out;
}

long parse_int(const std::string& text, const std::string& where, const char* what) {
    long value = 0;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (ec == std::errc::result_out_of_range && ptr == end)
        throw ParseError(where + ": " + what + " '" + clip(text) + "' is out of range (a 64-bit integer holds at most " +
                         std::to_string(std::numeric_limits<long>::max()) + ")");
    if (text.empty() || ec != std::errc() || ptr != end)
        throw ParseError(where + ": " + what + " '" + clip(text) + "' is not an integer");
    return value;
}

// Node and edge labels become one-hot columns 0 .. max label: a label above this is a broken
// file (TU labels are small category numbers; the largest in the TU collection are below 200),
// not a request for millions of columns.
constexpr long kMaxCategoryLabel = 9999;

// A whole file of one integer per line, ≥ 0 (node or edge labels), with its expected count.
std::vector<long> read_label_file(const std::string& path, std::size_t expected, const std::string& expected_what) {
    const TuLines f = read_lines(path);
    if (f.lines.size() != expected)
        throw ParseError(path + ": has " + std::to_string(f.lines.size()) + " lines, expected " + std::to_string(expected) +
                         " (" + expected_what + ")");
    std::vector<long> labels(expected);
    for (std::size_t k = 0; k < expected; ++k) {
        labels[k] = parse_int(trim(f.lines[k]), f.where(k), "label");
        if (labels[k] < 0) throw ParseError(f.where(k) + ": label '" + trim(f.lines[k]) + "' is negative");
        if (labels[k] > kMaxCategoryLabel)
            throw ParseError(f.where(k) + ": label '" + trim(f.lines[k]) + "' is larger than " + std::to_string(kMaxCategoryLabel) +
                             " (labels are category numbers 0, 1, 2, ..., one feature column each)");
    }
    return labels;
}

// A whole file of comma-separated floats per line, as many on each line as on the first.
Matrix read_attribute_file(const std::string& path, std::size_t expected, const std::string& expected_what) {
    const TuLines f = read_lines(path);
    if (f.lines.size() != expected)
        throw ParseError(path + ": has " + std::to_string(f.lines.size()) + " lines, expected " + std::to_string(expected) +
                         " (" + expected_what + ")");
    Matrix values;
    for (std::size_t k = 0; k < expected; ++k) {
        const auto cells = split_commas(f.lines[k]);
        if (k == 0) values.resize(static_cast<Eigen::Index>(expected), static_cast<Eigen::Index>(cells.size()));
        if (static_cast<Eigen::Index>(cells.size()) != values.cols())
            throw ParseError(f.where(k) + ": " + std::to_string(cells.size()) + " values, the first line has " +
                             std::to_string(values.cols()));
        for (std::size_t c = 0; c < cells.size(); ++c) {
            float v = 0.0f;
            if (!parse_float(cells[c], v)) throw ParseError(f.where(k) + ": attribute '" + clip(cells[c]) + "' is not a finite number");
            values(static_cast<Eigen::Index>(k), static_cast<Eigen::Index>(c)) = v;
        }
    }
    return values;
}

// One-hot rows for labels 0..width-1: row k has a 1 in column labels[k] (every label < width).
Matrix one_hot(const std::vector<long>& labels, long width) {
    Matrix m = Matrix::Zero(static_cast<Eigen::Index>(labels.size()), width);
    for (std::size_t k = 0; k < labels.size(); ++k) m(static_cast<Eigen::Index>(k), labels[k]) = 1.0f;
    return m;
}

// [a | b] for matrices with the same number of rows (either may have 0 columns).
Matrix concat_columns(const Matrix& a, const Matrix& b) {
    if (b.cols() == 0) return a;
    if (a.cols() == 0) return b;
    Matrix m(a.rows(), a.cols() + b.cols());
    m << a, b;
    return m;
}

// The columns of one optional TU file: one-hot labels (`labels`) or attribute values. With a
// model's layout (`part.fixed`) there are `part.columns` of them; else as many as the file gives
// (labels: the largest + 1). `what` names the file's kind in messages ("node labels", ...); an
// empty `file` is a file the folder does not have (`missing_name`). `columns` gets the count.
struct LayoutPart {
    bool fixed = false;
    int columns = 0;
};

Matrix layout_columns(bool labels, const std::string& file, std::size_t expected, const std::string& expected_what, const LayoutPart& part,
                      const std::string& missing_name, const char* what, int& columns) {
    if (file.empty()) {
        if (part.fixed && part.columns > 0)
            throw IoError("cannot open '" + missing_name + "': the model was trained with " + what + " (" + std::to_string(part.columns) +
                          (labels ? " columns" : " per line") + "), so the graphs it reads need them");
        columns = 0;
        return Matrix(static_cast<Eigen::Index>(expected), 0);
    }
    const std::vector<long> values = labels ? read_label_file(file, expected, expected_what) : std::vector<long>();
    Matrix m = labels ? Matrix() : read_attribute_file(file, expected, expected_what);
    if (part.fixed && part.columns == 0) throw ParseError(file + ": the model was trained on graphs without " + what);
    if (labels) {
        long width = values.empty() ? 0 : *std::max_element(values.begin(), values.end()) + 1;
        if (part.fixed) {
            for (std::size_t k = 0; k < values.size(); ++k)
                if (values[k] >= part.columns)
                    throw ParseError(file + ":" + std::to_string(k + 1) + ": label '" + std::to_string(values[k]) + "' is not one the model knows (its " +
                                     what + " are 0.." + std::to_string(part.columns - 1) + ")");
            width = part.columns;
        }
        m = one_hot(values, width);
    } else if (part.fixed && m.cols() != part.columns) {
        throw ParseError(file + ":1: " + std::to_string(m.cols()) + " " + what + " per line, the model was trained with " + std::to_string(part.columns));
    }
    columns = static_cast<int>(m.cols());
    return m;
}

}  // namespace

GraphDataset load_tu(const std::string& path, const TuReadOptions& options) {
    const bool fixed = !options.layout.empty();
    if (fixed && (options.layout.size() != 4 || std::any_of(options.layout.begin(), options.layout.end(), [](int v) { return v < 0; })))
        throw ConfigError("a TU feature layout is four counts of at least 0, got " + std::to_string(options.layout.size()) + " numbers");
    const auto part = [&](int k) { return LayoutPart{fixed, fixed ? options.layout[static_cast<std::size_t>(k)] : 0}; };
    const auto [prefix, name] = resolve_prefix(path);
    const auto required = [&prefix = prefix, &name = name](const char* part) {
        const std::string f = tu_file(prefix, part);
        if (f.empty())
            throw IoError("cannot open '" + prefix + "_" + part + ".txt': the TU data set '" + name + "' needs this file");
        return f;
    };
    const std::string a_path = required("A"), indicator_path = required("graph_indicator"),
                      graph_labels_path = options.require_graph_labels ? required("graph_labels") : tu_file(prefix, "graph_labels");

    GraphDataset ds;
    ds.name = name;

    // nodes → graphs
    const TuLines indicator = read_lines(indicator_path);
    const std::size_t N = indicator.lines.size();
    if (N == 0) throw ParseError(indicator_path + ": file is empty (no nodes)");
    std::vector<long> graph_of_node(N);
    long num_graphs = 0;
    for (std::size_t i = 0; i < N; ++i) {
        const std::string text = trim(indicator.lines[i]);
        graph_of_node[i] = parse_int(text, indicator.where(i), "graph id") - 1;
        if (graph_of_node[i] < 0) throw ParseError(indicator.where(i) + ": graph id '" + text + "' must be 1 or more");
        num_graphs = std::max(num_graphs, graph_of_node[i] + 1);
    }

    // graph labels → classes 0..K-1 in numeric order (or the model's classes); without the file
    // (graphs to predict) one graph per id and no labels
    const TuLines labels = graph_labels_path.empty() ? TuLines{} : read_lines(graph_labels_path);
    const auto B = graph_labels_path.empty() ? num_graphs : static_cast<long>(labels.lines.size());
    if (num_graphs > B) {
        const auto i = static_cast<std::size_t>(std::find(graph_of_node.begin(), graph_of_node.end(), num_graphs - 1) - graph_of_node.begin());
        throw ParseError(indicator.where(i) + ": graph id '" + std::to_string(num_graphs) + "', but " + graph_labels_path +
                         " has " + std::to_string(B) + " lines (one per graph)");
    }
    if (B > num_graphs)
        throw ParseError(graph_labels_path + ": has " + std::to_string(B) + " lines, but " + indicator_path + " names only " +
                         std::to_string(num_graphs) + " graphs");
    std::vector<double> label_value(static_cast<std::size_t>(B));
    std::map<double, std::string> classes;  // value → its text as first written
    const long labelled = graph_labels_path.empty() ? 0 : B;
    for (long g = 0; g < labelled; ++g) {
        const std::string text = trim(labels.lines[g]);
        double v = 0.0;
        const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(v))
            throw ParseError(labels.where(g) + ": graph label '" + clip(text) + "' is not a number");
        label_value[g] = v;
        classes.emplace(v, text);
    }
    std::map<double, int> class_of_value;
    if (options.class_names.empty()) {
        for (const auto& [value, text] : classes) {
            class_of_value[value] = static_cast<int>(ds.class_names.size());
            ds.class_names.push_back(text);
        }
    } else {
        ds.class_names = options.class_names;
        std::string known;
        for (std::size_t k = 0; k < options.class_names.size(); ++k) {
            const std::string& text = options.class_names[k];
            double v = 0.0;
            const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
            if (text.empty() || ec != std::errc() || ptr != text.data() + text.size())
                throw ConfigError("class name '" + clip(text) + "' is not a TU graph label (a number)");
            class_of_value.emplace(v, static_cast<int>(k));
            known += (known.empty() ? "" : ", ") + text;
        }
        for (long g = 0; g < labelled; ++g)
            if (!class_of_value.count(label_value[static_cast<std::size_t>(g)]))
                throw ParseError(labels.where(static_cast<std::size_t>(g)) + ": graph label '" + trim(labels.lines[static_cast<std::size_t>(g)]) +
                                 "' is not one of the model's classes (" + known + ")");
    }

    // nodes of each graph, in file order; local id = position within its graph
    std::vector<std::vector<std::size_t>> nodes_of(static_cast<std::size_t>(B));
    std::vector<NodeId> local(N);
    for (std::size_t i = 0; i < N; ++i) {
        auto& nodes = nodes_of[graph_of_node[i]];
        local[i] = static_cast<NodeId>(nodes.size());
        nodes.push_back(i);
    }
    for (long g = 0; g < B; ++g)
        if (nodes_of[g].empty())
            throw ParseError(indicator_path + ": graph " + std::to_string(g + 1) + " has no nodes" +
                             (graph_labels_path.empty() ? std::string(" (ids run 1.." + std::to_string(B) + ")") : " (its label is on " + labels.where(g) + ")"));

    // node features: one-hot labels, then attributes; a constant 1 when there are neither
    const std::string per_node = "one per node, as " + indicator_path;
    ds.tu_layout.assign(4, 0);
    Matrix node_features = layout_columns(true, tu_file(prefix, "node_labels"), N, per_node, part(0), prefix + "_node_labels.txt", "node labels",
                                         ds.tu_layout[0]);
    {
        const Matrix attributes = layout_columns(false, tu_file(prefix, "node_attributes"), N, per_node, part(1), prefix + "_node_attributes.txt",
                                                    "node attributes", ds.tu_layout[1]);
        for (Eigen::Index c = 0; c < attributes.cols(); ++c) ds.continuous_node_columns.push_back(static_cast<int>(node_features.cols() + c));
        node_features = concat_columns(node_features, attributes);
    }
    if (node_features.cols() == 0) node_features = Matrix::Ones(static_cast<Eigen::Index>(N), 1);

    // edges, grouped by graph: (local dst, local src, line index in A.txt)
    const TuLines a = read_lines(a_path);
    std::vector<std::vector<std::tuple<NodeId, NodeId, std::size_t>>> edges_of(static_cast<std::size_t>(B));
    std::size_t self_loops = 0;
    for (std::size_t k = 0; k < a.lines.size(); ++k) {
        const auto cells = split_commas(a.lines[k]);
        if (cells.size() != 2)
            throw ParseError(a.where(k) + ": expected 'i, j' (two node ids), found '" + clip(a.lines[k]) + "'");
        long id[2];
        for (int c = 0; c < 2; ++c) {
            id[c] = parse_int(cells[c], a.where(k), "node id");
            if (id[c] < 1 || id[c] > static_cast<long>(N))
                throw ParseError(a.where(k) + ": node id '" + cells[c] + "' is out of range 1.." + std::to_string(N) + " (" +
                                 indicator_path + " has " + std::to_string(N) + " nodes)");
        }
        const std::size_t u = static_cast<std::size_t>(id[0] - 1), v = static_cast<std::size_t>(id[1] - 1);
        if (graph_of_node[u] != graph_of_node[v])
            throw ParseError(a.where(k) + ": edge " + cells[0] + " -> " + cells[1] + " joins graph " +
                             std::to_string(graph_of_node[u] + 1) + " and graph " + std::to_string(graph_of_node[v] + 1));
        if (u == v) {
            ++self_loops;
            continue;
        }
        edges_of[graph_of_node[u]].emplace_back(local[v], local[u], k);
    }
    if (self_loops > 0) ds.report.notes.push_back(std::to_string(self_loops) + " self-loops in " + a_path + " dropped");

    // edge features, row k for line k of A.txt
    const std::string per_edge = "one per edge, as " + a_path;
    Matrix edge_features = layout_columns(true, tu_file(prefix, "edge_labels"), a.lines.size(), per_edge, part(2), prefix + "_edge_labels.txt",
                                         "edge labels", ds.tu_layout[2]);
    edge_features = concat_columns(edge_features, layout_columns(false, tu_file(prefix, "edge_attributes"), a.lines.size(), per_edge, part(3),
                                                                    prefix + "_edge_attributes.txt", "edge attributes", ds.tu_layout[3]));

    std::size_t repeated = 0;
    ds.graphs.resize(static_cast<std::size_t>(B));
    ds.targets.resize(B, 1);
    ds.target_names = {"label"};
    for (long g = 0; g < B; ++g) {
        GraphSample& sample = ds.graphs[g];
        const auto& nodes = nodes_of[g];
        sample.x.resize(static_cast<Eigen::Index>(nodes.size()), node_features.cols());
        for (std::size_t i = 0; i < nodes.size(); ++i)
            sample.x.row(static_cast<Eigen::Index>(i)) = node_features.row(static_cast<Eigen::Index>(nodes[i]));
        // sorted by (dst, src); repeated edges keep their file order
        auto& edges = edges_of[g];
        std::sort(edges.begin(), edges.end());
        std::vector<std::pair<NodeId, NodeId>> sorted(edges.size());
        sample.edge_attr.resize(static_cast<Eigen::Index>(edges.size()), edge_features.cols());
        for (std::size_t e = 0; e < edges.size(); ++e) {
            const auto [dst, src, line] = edges[e];
            sorted[e] = {src, dst};
            if (e > 0 && sorted[e] == sorted[e - 1]) ++repeated;
            sample.edge_attr.row(static_cast<Eigen::Index>(e)) = edge_features.row(static_cast<Eigen::Index>(line));
        }
        sample.graph = build_from_sorted(static_cast<NodeId>(nodes.size()), std::move(sorted));
        // Then the node's degree, one-hot over 0 .. kTuMaxDegree (the last: that many or more), as
        // the SMILES featuriser has it: attention weights are normalised over the neighbours, so
        // without it a GAT cannot tell how many there are (Xu et al. 2019). MUTAG: 0.745 -> 0.844.
        const Eigen::Index f = sample.x.cols();
        sample.x.conservativeResize(Eigen::NoChange, f + kTuMaxDegree + 1);
        sample.x.rightCols(kTuMaxDegree + 1).setZero();
        for (NodeId i = 0; i < sample.graph.num_nodes(); ++i)
            sample.x(i, f + std::min<Eigen::Index>(kTuMaxDegree, sample.graph.in_degree(i))) = 1.0f;
        ds.targets(g, 0) = graph_labels_path.empty() ? std::numeric_limits<float>::quiet_NaN() : static_cast<float>(class_of_value[label_value[g]]);
        ds.source_rows.push_back(static_cast<std::size_t>(g + 1));
    }
    if (repeated > 0)
        ds.report.notes.push_back(std::to_string(repeated) + " repeated edges in " + a_path + " kept as parallel edges (each with its own edge label)");
    return ds;
}

}  // namespace gatkit
