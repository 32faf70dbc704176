#include "node_network.hpp"

#include "common.hpp"
#include "network_inputs.hpp"

#include "gatkit/core/error.hpp"
#include "gatkit/io/edgelist.hpp"
#include "gatkit/io/linqs.hpp"
#include "gatkit/model/link_model.hpp"
#include "gatkit/nn/positional.hpp"

#include <algorithm>
#include <filesystem>

namespace gatkit::cli {

namespace {

// Default split rule for edge lists: the planetoid split (20 per class, 500 validation, 1000
// test) where the labelled nodes are Cora-like enough for it, else stratified fractions.
const PlanetoidOptions kPlanetoid{};
const char* const kDefaultSplitSizes = "0.6,0.2,0.2";

NodeTaskData from_linqs(const std::string& path) {
    NodeDataset ds = load_linqs(path);
    NodeTaskData d;
    d.name = ds.name;
    d.linqs = true;
    d.graph = std::move(ds.graph);
    d.num_edges = static_cast<std::size_t>(d.graph.num_edges()) / 2;
    d.num_skipped = ds.report.n_skipped();
    d.features = std::move(ds.features);
    d.labels = std::move(ds.labels);
    d.node_ids = std::move(ds.node_ids);
    d.class_names = std::move(ds.class_names);
    d.notes = std::move(ds.report.notes);
    return d;
}

NodeTaskData from_network(NetworkDataset net) {
    NodeTaskData d;
    d.name = net.name;
    d.directed = net.directed;
    d.graph = net.graph();
    d.num_edges = net.edges.size();
    d.num_skipped = net.report.n_skipped();
    d.features = std::move(net.features);
    d.labels = std::move(net.node_labels);
    if (d.labels.empty()) d.labels.assign(net.node_ids.size(), -1);
    d.node_ids = std::move(net.node_ids);
    d.class_names = std::move(net.node_class_names);
    d.notes = std::move(net.report.notes);
    return d;
}

bool is_file(const std::string& path) {
    std::error_code ec;
    return std::filesystem::is_regular_file(path, ec);
}

// LINQS as link tasks decide (is_linqs), and also a path that does not exist when no edge-list
// companion file was given, so a mistyped Cora folder keeps the LINQS loader's message.
bool node_data_is_linqs(const std::string& data, const std::string& format, bool companions) {
    return is_linqs(data, format) || (format == "auto" && !companions && !is_file(data));
}

// Every class has at least per_class labelled nodes, and enough remain for the validation and
// test sets.
bool planetoid_fits(const std::vector<int>& labels, int num_classes) {
    std::vector<std::size_t> count(static_cast<std::size_t>(num_classes), 0);
    std::size_t labelled = 0;
    for (const int y : labels) {
        if (y < 0) continue;
        ++count[static_cast<std::size_t>(y)];
        ++labelled;
    }
    const auto per_class = static_cast<std::size_t>(kPlanetoid.per_class);
    if (std::any_of(count.begin(), count.end(), [&](std::size_t c) { return c < per_class; })) return false;
    return labelled >= per_class * count.size() + static_cast<std::size_t>(kPlanetoid.num_val + kPlanetoid.num_test);
}

}  // namespace

std::size_t NodeTaskData::num_labelled() const {
    return static_cast<std::size_t>(std::count_if(labels.begin(), labels.end(), [](int y) { return y >= 0; }));
}

NodeTaskData load_node_training_data(const TrainArgs& a) {
    const bool companions = !a.feature_file.empty() || !a.label_file.empty();
    if (node_data_is_linqs(a.data, a.format, companions)) {
        if (companions)
            throw UserError("--feature-file and --label-file go with edge lists; " + a.data + " is a LINQS data set with its own");
        if (a.directed) throw UserError("--directed: LINQS citation graphs are read as undirected");
        NodeTaskData d = from_linqs(a.data);
        d.path = a.data;
        return d;
    }
    if (a.format != "auto" && a.format != "edgelist" && a.format != "snap" && a.format != "csv")
        throw UserError("--format " + a.format + " is not available for --task node (available: auto, linqs, edgelist, snap, csv)");
    if (a.label_file.empty())
        throw UsageError("--task node on the edge list " + a.data + " needs --label-file (the classes to learn)",
                        "give --label-file FILE with 'id label' lines or a CSV id,label; unlabelled nodes may be left out");
    NetworkOptions o;
    o.directed = a.directed;
    o.format = a.format == "edgelist" ? "auto" : a.format;
    NodeTaskData d = from_network(load_network(a.data, o, a.feature_file, a.label_file));
    d.path = a.data;
    if (d.class_names.empty())
        throw UserError(a.label_file + ": no labelled node (the file has no 'id label' line)", "a label file needs at least 2 classes");
    if (d.class_names.size() < 2)
        throw UserError(a.label_file + ": every labelled node has the class '" + d.class_names.front() + "'; need at least 2 classes");
    return d;
}

NodeTaskData load_node_prediction_data(const PredictArgs& a, const ModelInfo& info) {
    const bool companions = !a.feature_file.empty() || !a.label_file.empty();
    if (node_data_is_linqs(a.data, "auto", companions)) {
        if (companions)
            throw UserError("--feature-file and --label-file go with edge lists; " + a.data + " is a LINQS data set with its own");
        NodeTaskData d = from_linqs(a.data);
        d.path = a.data;
        return d;
    }
    NetworkOptions o;
    o.directed = info.directed;
    NodeTaskData d = from_network(load_network(a.data, o, a.feature_file, a.label_file));
    d.path = a.data;
    return d;
}

NodeTaskInputs make_node_task_inputs(const std::string& requested, const NodeTaskData& data) {
    NodeTaskInputs in;
    // Without features: lap:4 (karate: 1.00 test accuracy over seeds 0–9; degree features are at
    // chance there, since the two factions have the same degrees).
    in.spec = requested.empty() ? (data.features.cols() > 0 ? "features" : "lap:4") : requested;
    NodeInputSpec spec;
    try {
        spec = parse_node_input(in.spec);
    } catch (const ConfigError&) {
        throw UserError("--node-features " + in.spec + " is not available for --task node (available: features, degree, lap:K)");
    }
    in.normalization = "none";
    if (spec.kind == "embedding")
        throw UserError("--node-features " + in.spec + ": a node model has no embedding table (available: features, degree, lap:K)",
                        "use --node-features features (with --feature-file), degree or lap:K");
    if (spec.kind == "features") {
        if (data.features.cols() == 0)
            throw UserError(data.path + " has no node features", "give --feature-file FILE (id,f1,...), or --node-features degree|lap:K");
        in.x = data.features;
        // Row-normalised like Cora's bag of words; features with negative values are used as given
        // (a row sum near 0 would blow them up). LINQS features are always normalised, as before.
        if (data.linqs || in.x.minCoeff() >= 0) {
            row_normalize(in.x);
            in.normalization = "row";
        }
    } else if (spec.kind == "degree") {
        in.x = degree_features(data.graph);
    } else {
        in.x = laplacian_pe(data.graph, {.k = spec.size}).vectors;
    }
    return in;
}

Matrix node_task_inputs_for(const Model& model, const NodeTaskData& data) {
    const ModelConfig& config = model.config();
    const std::string& spec = config.node_input;
    Matrix x;
    if (spec == "features") {
        if (data.features.cols() == 0)
            throw UserError(data.path + " has no node features; the model reads " + std::to_string(config.in_features) + " per node",
                            "give --feature-file FILE with the features it was trained on");
        x = data.features;
        if (model.info().feature_normalization == "row") row_normalize(x);
    } else {
        // degree and lap:K are computed on this graph, as in training; any node count works.
        NodeTaskInputs in = make_node_task_inputs(spec, data);
        x = std::move(in.x);
    }
    x = with_positional_encoding(data.graph, std::move(x), config.pe);
    if (x.cols() != config.in_features)
        throw UserError(data.path + ": nodes have " + std::to_string(x.cols()) + " " + (spec == "features" ? "features" : spec + " inputs") +
                        ", the model expects " + std::to_string(config.in_features));
    return x;
}

ChosenSplit make_node_split(const TrainArgs& a, const NodeTaskData& data, Rng& rng) {
    // The labelled nodes, ascending, and their labels: splits run on these, then map back.
    std::vector<NodeId> labelled;
    std::vector<int> compact;
    for (NodeId i = 0; i < data.num_nodes(); ++i)
        if (data.labels[static_cast<std::size_t>(i)] >= 0) {
            labelled.push_back(i);
            compact.push_back(data.labels[static_cast<std::size_t>(i)]);
        }
    const auto to_rows = [&](const auto& part) {
        std::vector<NodeId> rows;
        for (const auto k : part) rows.push_back(labelled[static_cast<std::size_t>(k)]);
        return rows;  // ascending: `part` is sorted and `labelled` ascending
    };
    const int num_classes = static_cast<int>(data.class_names.size());

    ChosenSplit out;
    if (!a.split_file.empty()) {
        if (!a.split_sizes.empty()) throw UserError("--split-sizes goes with --split random|stratified, not with --split-file");
        if (!a.split.empty()) throw UsageError("give --split " + a.split + " or --split-file " + a.split_file + ", not both");
        out.name = "file";
        out.split = read_split_file(a.split_file, data.node_ids);
        for (const auto* part : {&out.split.train, &out.split.val, &out.split.test})
            for (const NodeId i : *part)
                if (data.labels[static_cast<std::size_t>(i)] < 0)
                    throw UserError(a.split_file + ": node '" + data.node_ids[static_cast<std::size_t>(i)] + "' is in the " +
                                    (part == &out.split.train ? "train" : part == &out.split.val ? "val" : "test") +
                                    " set but has no label");
        return out;
    }
    out.name = !a.split.empty() ? a.split : data.linqs || planetoid_fits(data.labels, num_classes) ? "planetoid" : "stratified";
    if (out.name == "planetoid") {
        if (!a.split_sizes.empty()) throw UserError("--split-sizes goes with --split random|stratified; planetoid takes 20 per class, 500, 1000");
        try {
            const NodeSplit s = planetoid_split(compact, num_classes, rng, kPlanetoid);
            out.split = {to_rows(s.train), to_rows(s.val), to_rows(s.test)};
        } catch (const ConfigError& e) {
            throw UserError(e.what(), "use --split stratified [--split-sizes 0.6,0.2,0.2] or --split-file FILE");
        }
        return out;
    }
    if (out.name != "random" && out.name != "stratified")
        throw UserError("--split " + out.name + " is not available for --task node (available: planetoid, random, stratified, or --split-file)");
    const auto sizes = parse_split_sizes(a.split_sizes.empty() ? kDefaultSplitSizes : a.split_sizes);
    const IndexSplit s = out.name == "random" ? random_split(labelled.size(), sizes, rng) : stratified_split(compact, sizes, rng);
    out.split = {to_rows(s.train), to_rows(s.val), to_rows(s.test)};
    if (out.split.train.empty() || out.split.val.empty() || out.split.test.empty())
        throw UserError("--split " + out.name + " of " + std::to_string(labelled.size()) + " labelled nodes leaves " +
                            std::to_string(out.split.train.size()) + " / " + std::to_string(out.split.val.size()) + " / " +
                            std::to_string(out.split.test.size()) + " train / val / test nodes; each needs at least one",
                        "label more nodes, or change --split-sizes (now " + std::string(a.split_sizes.empty() ? kDefaultSplitSizes : a.split_sizes.c_str()) + ")");
    return out;
}

}  // namespace gatkit::cli
