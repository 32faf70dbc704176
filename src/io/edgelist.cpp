#include "gatkit/io/edgelist.hpp"

#include "gatkit/core/error.hpp"
#include "gatkit/graph/build.hpp"
#include "gatkit/io/atomic_file.hpp"
#include "gatkit/io/csv.hpp"
#include "gatkit/io/linqs.hpp"
#include "gatkit/io/text_reader.hpp"

#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <limits>

namespace gatkit {

namespace fs = std::filesystem;

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::string trim(const std::string& s) {
    const auto first = s.find_first_not_of(" \t");
    if (first == std::string::npos) return {};
    return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

bool is_csv_name(const std::string& path) {
    const std::string p = lower(path);
    return ends_with(p, ".csv") || ends_with(p, ".csv.gz");
}

bool is_comment(std::string_view first_field) { return first_field.front() == '#' || first_field.front() == '%'; }

std::string join(const std::vector<std::string>& fields) {
    std::string s;
    for (std::size_t k = 0; k < fields.size(); ++k) s += (k ? "," : "") + fields[k];
    return s;
}

// "a.txt" → "a", "dir/x.csv.gz" → "x".
std::string file_stem(const std::string& path) {
    fs::path p = fs::path(path).filename();
    if (lower(p.extension().string()) == ".gz") p = p.stem();
    return p.stem().string();
}

// The row of node `id`, adding it at the end when it is new.
NodeId intern(NetworkDataset& ds, std::string_view id) {
    const auto next = static_cast<NodeId>(ds.node_ids.size());
    const auto [it, inserted] = ds.index.try_emplace(std::string(id), next);
    if (inserted) {
        if (ds.node_ids.size() >= static_cast<std::size_t>(std::numeric_limits<NodeId>::max()))
            throw GraphError("too many nodes: more than " + std::to_string(std::numeric_limits<NodeId>::max()));
        ds.node_ids.push_back(it->first);
    }
    return it->second;
}

// Collects edges as they are read: ids → rows, self-loops dropped, duplicates merged.
class EdgeSink {
public:
    EdgeSink(NetworkDataset& ds, std::string file) : ds_(ds), file_(std::move(file)) {}

    // `weight` is used when the file has a weight column, `label` when it has a label column.
    void add(std::string_view src, std::string_view dst, float weight, const std::string* label, std::size_t line,
             std::string_view text) {
        NodeId u = intern(ds_, src);
        NodeId v = intern(ds_, dst);
        if (u == v) {
            ++self_loops_;
            return;
        }
        if (!ds_.directed && v < u) std::swap(u, v);
        const std::uint64_t key = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(u)) << 32) | static_cast<std::uint32_t>(v);
        const auto [it, inserted] = seen_.try_emplace(key, ds_.edges.size());
        if (!inserted) {
            ++duplicates_;
            if (label && *label != labels_[it->second])
                ds_.report.skip(file_, line, clip(text), "conflicting label: first seen as '" + clip(labels_[it->second]) + "'");
            return;
        }
        ds_.edges.emplace_back(u, v);
        weights_.push_back(weight);
        if (label) labels_.push_back(*label);
    }

    // Moves the edges' weights and labels into the data set and writes the notes.
    void finish(bool has_weights, bool has_labels) {
        if (self_loops_ > 0) ds_.report.notes.push_back(std::to_string(self_loops_) + " self-loops dropped");
        if (duplicates_ > 0)
            ds_.report.notes.push_back(std::to_string(duplicates_) + " duplicate edges merged" +
                                       (ds_.directed ? "" : " (undirected: 'v u' after 'u v' is a duplicate)"));
        if (ds_.edges.empty())
            throw GraphError(file_ + ": no edges" +
                             (self_loops_ > 0 ? " (only " + std::to_string(self_loops_) + " self-loops, which are dropped)" : ""));
        if (has_weights) ds_.edge_weights = std::move(weights_);
        if (has_labels) {
            ds_.edge_labels = number_labels(labels_, ds_.edge_class_names);  // never empty: read_edge_csv refuses that
        }
    }

private:
    NetworkDataset& ds_;
    std::string file_;
    std::unordered_map<std::uint64_t, std::size_t> seen_;  // (u,v) → edge index
    std::vector<float> weights_;
    std::vector<std::string> labels_;
    std::size_t self_loops_ = 0, duplicates_ = 0;
};

float parse_weight(std::string_view text, const std::string& where) {
    float w = 0;
    if (!parse_float(text, w)) throw ParseError(where + ": weight '" + clip(text) + "' is not a finite number");
    return w;
}

void read_snap(const std::string& path, NetworkDataset& ds) {
    EdgeSink sink(ds, path);
    TextReader in(path);
    std::string line;
    std::size_t columns = 0, first_line = 0;
    while (in.next(line)) {
        const auto cols = split_whitespace(line);
        if (cols.empty() || is_comment(cols[0])) continue;
        if (cols.size() < 2 || cols.size() > 3)
            throw ParseError(in.where() + ": expected 2 or 3 columns (src dst [weight]), found " + std::to_string(cols.size()) +
                             ": '" + clip(line) + "'");
        if (columns == 0) {
            columns = cols.size();
            first_line = in.line_number();
        } else if (cols.size() != columns) {
            throw ParseError(in.where() + ": " + std::to_string(cols.size()) + " columns, but the first edge line (line " +
                             std::to_string(first_line) + ") has " + std::to_string(columns) + ": '" + clip(line) + "'");
        }
        const float w = columns == 3 ? parse_weight(cols[2], in.where()) : 1.0f;
        sink.add(cols[0], cols[1], w, nullptr, in.line_number(), line);
    }
    sink.finish(columns == 3, false);
}

// LINQS's tab layout links file (io/linqs.hpp), without its node file: `<type>:` prefixes are
// taken off the ids.
void read_linqs_tab(const std::string& path, NetworkDataset& ds) {
    EdgeSink sink(ds, path);
    read_linqs_tab_links(
        path, "", [&](std::string_view src, std::string_view dst, std::size_t line, const std::string& row) { sink.add(src, dst, 1.0f, nullptr, line, row); },
        ds.report);
    sink.finish(false, false);
}

void read_edge_csv(const std::string& path, NetworkDataset& ds) {
    CsvReader in(path);
    constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
    std::size_t src = kNone, dst = kNone, label = kNone, weight = kNone;
    const auto& header = in.header();
    for (std::size_t k = 0; k < header.size(); ++k) {
        const std::string name = lower(trim(header[k]));
        std::size_t* role = name == "src" || name == "source"   ? &src
                            : name == "dst" || name == "target" ? &dst
                            : name == "label"                   ? &label
                            : name == "weight"                  ? &weight
                                                                : nullptr;
        if (!role)
            throw ParseError(path + ":1: column '" + clip(header[k]) +
                             "' is not one of src, dst, label, weight (src/dst may be named source/target)");
        if (*role != kNone)
            throw ParseError(path + ":1: columns '" + clip(header[*role]) + "' and '" + clip(header[k]) + "' name the same thing");
        *role = k;
    }
    if (src == kNone || dst == kNone)
        throw ParseError(path + ":1: the header '" + clip(join(header)) + "' needs a src and a dst column (or source, target)");

    EdgeSink sink(ds, path);
    std::vector<std::string> fields;
    while (in.next(fields)) {
        if (fields.size() != header.size())
            throw ParseError(in.where() + ": expected " + std::to_string(header.size()) + " fields as in the header, found " +
                             std::to_string(fields.size()) + ": '" + clip(join(fields)) + "'");
        for (const std::size_t k : {src, dst, label})
            if (k != kNone && fields[k].empty())
                throw ParseError(in.where() + ": empty " + header[k] + " in '" + clip(join(fields)) + "'");
        const float w = weight != kNone ? parse_weight(fields[weight], in.where()) : 1.0f;
        sink.add(fields[src], fields[dst], w, label != kNone ? &fields[label] : nullptr, in.line_number(), join(fields));
    }
    sink.finish(weight != kNone, label != kNone);
}

void note_added(NetworkDataset& ds, std::size_t added, const std::string& path) {
    if (added > 0)
        ds.report.notes.push_back(std::to_string(added) + " ids in " + path +
                                  " are not in the edge file; added as isolated nodes");
}

// Feature rows as read, placed into the matrix once every node is known.
struct FeatureRows {
    std::vector<NodeId> rows;   // node of each record
    std::vector<float> values;  // record-major, F per record
    Eigen::Index F = 0;
};

FeatureRows read_features(const std::string& path, NetworkDataset& ds) {
    CsvReader in(path);
    const auto& header = in.header();
    if (header.size() < 2)
        throw ParseError(path + ":1: expected a header 'id,<feature columns>', found " + std::to_string(header.size()) +
                         " column: '" + clip(join(header)) + "'");
    FeatureRows fr;
    fr.F = static_cast<Eigen::Index>(header.size() - 1);
    std::vector<std::size_t> first_line;  // per node: line of its feature row, 0 = none yet
    std::size_t added = 0;
    std::vector<std::string> fields;
    while (in.next(fields)) {
        if (fields.size() != header.size())
            throw ParseError(in.where() + ": expected " + std::to_string(header.size()) + " fields (id and " +
                             std::to_string(fr.F) + " features) as in the header, found " + std::to_string(fields.size()));
        if (fields[0].empty()) throw ParseError(in.where() + ": empty id");
        const NodeId before = ds.num_nodes();
        const NodeId r = intern(ds, fields[0]);
        if (r >= before) ++added;
        first_line.resize(ds.node_ids.size(), 0);
        if (first_line[r] != 0)
            throw ParseError(in.where() + ": id '" + clip(fields[0]) + "' appears twice (first on line " +
                             std::to_string(first_line[r]) + ")");
        first_line[r] = in.line_number();
        fr.rows.push_back(r);
        for (std::size_t k = 1; k < fields.size(); ++k) {
            float v = 0;
            if (!parse_float(fields[k], v))
                throw ParseError(in.where() + ": column " + std::to_string(k + 1) + " ('" + clip(header[k]) + "'): '" +
                                 clip(fields[k]) + "' is not a finite number");
            fr.values.push_back(v);
        }
    }
    note_added(ds, added, path);
    return fr;
}

void place_features(const std::string& path, const FeatureRows& fr, NetworkDataset& ds) {
    const NodeId N = ds.num_nodes();
    ds.features = Matrix::Zero(N, fr.F);
    std::vector<char> has_row(static_cast<std::size_t>(N), 0);
    for (std::size_t k = 0; k < fr.rows.size(); ++k) {
        ds.features.row(fr.rows[k]) = Eigen::Map<const Eigen::RowVectorXf>(fr.values.data() + k * fr.F, fr.F);
        has_row[fr.rows[k]] = 1;
    }
    std::size_t missing = 0;
    std::string first;
    for (NodeId i = 0; i < N; ++i)
        if (!has_row[i] && ++missing <= 3) first += (first.empty() ? "'" : ", '") + clip(ds.node_ids[i]) + "'";
    if (missing > 0)
        throw ParseError(path + ": " + std::to_string(missing) + " of " + std::to_string(N) +
                         " nodes have no feature row (first: " + first + (missing > 3 ? ", ..." : "") + ")");
}

// CSV when the name says so or the first non-comment line holds a comma.
bool labels_are_csv(const std::string& path) {
    if (is_csv_name(path)) return true;
    TextReader in(path);
    std::string line;
    while (in.next(line)) {
        const auto cols = split_whitespace(line);
        if (cols.empty() || is_comment(cols[0])) continue;
        return line.find(',') != std::string::npos;
    }
    return false;
}

void read_labels(const std::string& path, NetworkDataset& ds) {
    std::vector<std::string> label_of;    // per node: its label, "" = none
    std::vector<std::size_t> first_line;  // per node: line of its label, 0 = none yet
    std::size_t added = 0;
    const auto add = [&](const std::string& where, std::size_t line, std::string_view id, std::string_view label) {
        if (id.empty()) throw ParseError(where + ": empty id");
        if (label.empty()) throw ParseError(where + ": empty label for id '" + clip(id) + "' (leave unlabelled nodes out)");
        const NodeId before = ds.num_nodes();
        const NodeId r = intern(ds, id);
        if (r >= before) ++added;
        first_line.resize(ds.node_ids.size(), 0);
        label_of.resize(ds.node_ids.size());
        if (first_line[r] != 0)
            throw ParseError(where + ": id '" + clip(id) + "' appears twice (first on line " + std::to_string(first_line[r]) + ")");
        first_line[r] = line;
        label_of[r] = std::string(label);
    };
    if (labels_are_csv(path)) {
        CsvReader in(path);
        if (in.header().size() != 2)
            throw ParseError(path + ":1: expected a 2-column header (id,label), found " + std::to_string(in.header().size()) +
                             " columns: '" + clip(join(in.header())) + "'");
        std::vector<std::string> fields;
        while (in.next(fields)) {
            if (fields.size() != 2)
                throw ParseError(in.where() + ": expected 2 fields (id,label), found " + std::to_string(fields.size()) + ": '" +
                                 clip(join(fields)) + "'");
            add(in.where(), in.line_number(), fields[0], fields[1]);
        }
    } else {
        TextReader in(path);
        std::string line;
        while (in.next(line)) {
            const auto cols = split_whitespace(line);
            if (cols.empty() || is_comment(cols[0])) continue;
            if (cols.size() != 2)
                throw ParseError(in.where() + ": expected 2 columns (id label), found " + std::to_string(cols.size()) + ": '" +
                                 clip(line) + "'");
            add(in.where(), in.line_number(), cols[0], cols[1]);
        }
    }
    note_added(ds, added, path);

    label_of.resize(ds.node_ids.size());
    ds.node_labels = number_labels(label_of, ds.node_class_names);
}

}  // namespace

std::optional<NodeId> NetworkDataset::find(const std::string& id) const {
    const auto it = index.find(id);
    if (it == index.end()) return std::nullopt;
    return it->second;
}

Graph NetworkDataset::graph() const {
    return build_graph(num_nodes(), edges, {.undirected = !directed, .drop_duplicates = true, .self_loops = SelfLoops::remove});
}

NetworkDataset load_network(const std::string& edges_path, const NetworkOptions& options, const std::string& features_path,
                            const std::string& labels_path) {
    std::string format = options.format;
    if (format == "auto") format = is_csv_name(edges_path) ? "csv" : is_linqs_tab_links_name(edges_path) ? "linqs-tab" : "snap";
    if (format != "csv" && format != "snap" && format != "linqs-tab")
        throw ConfigError("edge list format '" + options.format + "' is not one of auto, snap, csv, linqs-tab");

    NetworkDataset ds;
    ds.name = file_stem(edges_path);
    ds.directed = options.directed;
    if (format == "csv") read_edge_csv(edges_path, ds);
    else if (format == "linqs-tab") read_linqs_tab(edges_path, ds);
    else read_snap(edges_path, ds);

    FeatureRows features;
    if (!features_path.empty()) features = read_features(features_path, ds);
    if (!labels_path.empty()) read_labels(labels_path, ds);
    if (!features_path.empty()) place_features(features_path, features, ds);
    else ds.features.resize(ds.num_nodes(), 0);
    // a node added by the label file after the edges: every node has a label entry
    if (!ds.node_labels.empty()) ds.node_labels.resize(ds.node_ids.size(), -1);
    return ds;
}

void read_node_features(const std::string& path, NetworkDataset& ds) {
    const FeatureRows rows = read_features(path, ds);
    place_features(path, rows, ds);
}

NetworkDataset network_from_nodes(const NodeDataset& data) {
    const NodeId N = data.num_nodes();
    NetworkDataset net;
    net.name = data.name;
    net.directed = false;
    if (data.node_ids.empty()) {
        for (NodeId i = 0; i < N; ++i) net.node_ids.push_back(std::to_string(i));
    } else if (data.node_ids.size() != static_cast<std::size_t>(N)) {
        throw ShapeError("network_from_nodes: " + std::to_string(data.node_ids.size()) + " node ids for a graph of " +
                         std::to_string(N) + " nodes");
    } else {
        net.node_ids = data.node_ids;
    }
    for (NodeId i = 0; i < N; ++i)
        if (!net.index.emplace(net.node_ids[i], i).second)
            throw GraphError("network_from_nodes: node id '" + clip(net.node_ids[i]) + "' appears twice");

    std::unordered_map<std::uint64_t, char> seen;
    for (auto [u, v] : data.graph.edge_list()) {
        if (u == v) continue;
        if (v < u) std::swap(u, v);
        const std::uint64_t key = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(u)) << 32) | static_cast<std::uint32_t>(v);
        if (seen.emplace(key, 0).second) net.edges.emplace_back(u, v);
    }
    net.features = data.features;
    if (net.features.rows() != N) net.features.resize(N, 0);
    if (data.labels.size() == static_cast<std::size_t>(N)) {
        net.node_labels = data.labels;
        net.node_class_names = data.class_names;
    }
    net.report = data.report;
    return net;
}

namespace {

std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
    std::string q = "\"";
    for (const char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

void append_float(std::string& out, float v) {
    char num[32];
    const auto r = std::to_chars(num, num + sizeof num, v);
    out.append(num, r.ptr);
}

std::string gzip(const std::string& bytes, const std::string& path) {
    z_stream zs{};
    // windowBits 15 + 16: a gzip wrapper, which gzopen (TextReader) reads
    if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        throw IoError("cannot write '" + path + "': zlib deflateInit2 failed");
    std::string out;
    char buf[1 << 16];
    std::size_t pos = 0;
    int flush = Z_NO_FLUSH;
    do {
        const std::size_t chunk = std::min<std::size_t>(bytes.size() - pos, 1u << 30);  // avail_in is 32-bit
        zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data() + pos));
        zs.avail_in = static_cast<uInt>(chunk);
        pos += chunk;
        flush = pos == bytes.size() ? Z_FINISH : Z_NO_FLUSH;
        do {
            zs.next_out = reinterpret_cast<Bytef*>(buf);
            zs.avail_out = sizeof buf;
            deflate(&zs, flush);
            out.append(buf, sizeof buf - zs.avail_out);
        } while (zs.avail_out == 0);
    } while (flush != Z_FINISH);
    deflateEnd(&zs);
    return out;
}

void write_text(const std::string& path, const std::string& text) {
    write_file_atomically(path, ends_with(lower(path), ".gz") ? gzip(text, path) : text);
}

void check_sizes(const NetworkDataset& data) {
    const std::size_t E = data.edges.size();
    if (!data.edge_weights.empty() && data.edge_weights.size() != E)
        throw ShapeError("write_edge_list: " + std::to_string(data.edge_weights.size()) + " edge weights for " +
                         std::to_string(E) + " edges");
    if (!data.edge_labels.empty() && data.edge_labels.size() != E)
        throw ShapeError("write_edge_list: " + std::to_string(data.edge_labels.size()) + " edge labels for " +
                         std::to_string(E) + " edges");
}

}  // namespace

void write_edge_list(const std::string& path, const NetworkDataset& data) {
    check_sizes(data);
    const bool csv = is_csv_name(path);
    const bool weights = !data.edge_weights.empty(), labels = !data.edge_labels.empty();
    if (!csv && labels)
        throw ConfigError("'" + path + "': edge labels can only be written as CSV; name the file .csv or .csv.gz");
    std::vector<char> checked(data.node_ids.size(), 0);
    const auto id = [&](NodeId i) -> const std::string& {
        const std::string& s = data.node_ids[i];
        if (!checked[i]) {
            if (s.empty()) throw ConfigError("'" + path + "': node " + std::to_string(i) + " has an empty id");
            if (!csv && (s.find_first_of(" \t\r\n") != std::string::npos || s[0] == '#' || s[0] == '%'))
                throw ConfigError("'" + path + "': node id '" + clip(s) +
                                  "' cannot be written in a SNAP edge list (whitespace or a leading '#'/'%'); name the file .csv");
            checked[i] = 1;
        }
        return s;
    };
    std::string text;
    if (csv) {
        text = std::string("src,dst") + (labels ? ",label" : "") + (weights ? ",weight" : "") + "\n";
    } else {
        text = "# gatkit edge list: " + std::to_string(data.num_nodes()) + " nodes, " + std::to_string(data.edges.size()) +
               " edges\n";
    }
    const char sep = csv ? ',' : ' ';
    for (std::size_t e = 0; e < data.edges.size(); ++e) {
        const auto [u, v] = data.edges[e];
        text += csv ? csv_field(id(u)) : id(u);
        text += sep;
        text += csv ? csv_field(id(v)) : id(v);
        if (labels) {
            text += sep;
            text += csv_field(data.edge_class_names.at(static_cast<std::size_t>(data.edge_labels[e])));
        }
        if (weights) {
            text += sep;
            append_float(text, data.edge_weights[e]);
        }
        text += '\n';
    }
    write_text(path, text);
}

void write_node_features(const std::string& path, const NetworkDataset& data) {
    if (data.features.rows() != data.num_nodes())
        throw ShapeError("write_node_features: " + std::to_string(data.features.rows()) + " feature rows for " +
                         std::to_string(data.num_nodes()) + " nodes");
    std::string text = "id";
    for (Eigen::Index f = 0; f < data.features.cols(); ++f) text += ",f" + std::to_string(f);
    text += '\n';
    for (NodeId i = 0; i < data.num_nodes(); ++i) {
        text += csv_field(data.node_ids[i]);
        for (Eigen::Index f = 0; f < data.features.cols(); ++f) {
            text += ',';
            append_float(text, data.features(i, f));
        }
        text += '\n';
    }
    write_text(path, text);
}

void write_node_labels(const std::string& path, const NetworkDataset& data) {
    if (data.node_labels.size() != static_cast<std::size_t>(data.num_nodes()))
        throw ShapeError("write_node_labels: " + std::to_string(data.node_labels.size()) + " labels for " +
                         std::to_string(data.num_nodes()) + " nodes");
    std::string text = "id,label\n";
    for (NodeId i = 0; i < data.num_nodes(); ++i)
        if (data.node_labels[i] >= 0)
            text += csv_field(data.node_ids[i]) + "," + csv_field(data.node_class_names.at(static_cast<std::size_t>(data.node_labels[i]))) + "\n";
    write_text(path, text);
}

}  // namespace gatkit
