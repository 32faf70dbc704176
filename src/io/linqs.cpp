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

LinqsPaths resolve_linqs_paths(const std::string& path) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
        std::vector<std::string> contents, cites;
        for (const auto& entry : fs::directory_iterator(path)) {
            const std::string p = entry.path().string();
            if (ends_with(p, ".content") || ends_with(p, ".content.gz")) contents.push_back(p);
            if (ends_with(p, ".cites") || ends_with(p, ".cites.gz")) cites.push_back(p);
        }
        std::sort(contents.begin(), contents.end());
        std::sort(cites.begin(), cites.end());
        if (contents.size() != 1 || cites.size() != 1)
            throw IoError("'" + path + "': expected one *.content[.gz] and one *.cites[.gz] file in the folder, found " +
                          std::to_string(contents.size()) + " and " + std::to_string(cites.size()));
        return {contents[0], cites[0]};
    }
    LinqsPaths p{with_optional_gz(path, ".content"), with_optional_gz(path, ".cites")};
    if (p.content.empty() || p.cites.empty())
        throw IoError("cannot open '" + path + "': " + (fs::exists(path, ec) ? "a file, not a LINQS folder" : "no such folder") + ", and no " +
                      path + ".content[.gz] + " + path + ".cites[.gz] pair");
    return p;
}

NodeDataset load_linqs(const std::string& path) {
    const LinqsPaths paths = resolve_linqs_paths(path);
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

    ds.class_names = label_names;
    std::sort(ds.class_names.begin(), ds.class_names.end());
    ds.class_names.erase(std::unique(ds.class_names.begin(), ds.class_names.end()), ds.class_names.end());
    std::map<std::string, int> class_index;
    for (std::size_t c = 0; c < ds.class_names.size(); ++c) class_index[ds.class_names[c]] = static_cast<int>(c);
    ds.labels.resize(N);
    for (NodeId i = 0; i < N; ++i) ds.labels[i] = class_index[label_names[i]];

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
