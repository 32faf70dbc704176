#include "gatkit/model/model_file.hpp"

#include "gatkit/chem/featurize.hpp"

#include "gatkit/core/error.hpp"
#include "gatkit/io/atomic_file.hpp"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <type_traits>

namespace gatkit {

using nlohmann::json;

namespace {

json config_to_json(const ModelConfig& c) {
    return {{"task", c.task},
            {"conv", c.conv},
            {"in_features", c.in_features},
            {"num_classes", c.num_classes},
            {"layers", c.layers},
            {"heads", c.heads},
            {"hidden", c.hidden},
            {"out_heads", c.out_heads},
            {"dropout", c.dropout},
            {"attn_dropout", c.attn_dropout},
            {"negative_slope", c.negative_slope},
            {"residual", c.residual},
            {"add_self_loops", c.add_self_loops},
            {"activation", to_string(c.activation)},
            {"edge_dim", c.edge_dim},
            {"readout", c.readout},
            {"mlp_hidden", c.mlp_hidden},
            {"mlp_dropout", c.mlp_dropout},
            {"target_type", c.target_type},
            {"node_input", c.node_input},
            {"num_nodes", c.num_nodes},
            {"out_channels", c.out_channels},
            {"decoder", c.decoder},
            {"mask", c.mask},
            {"block", c.block},
            {"max_full_nodes", c.max_full_nodes},
            {"pe", c.pe},
            {"pe_mode", c.pe_mode}};
}

ModelConfig config_from_json(const json& j) {
    ModelConfig c;
    c.task = j.at("task").get<std::string>();
    c.conv = j.at("conv").get<std::string>();
    c.in_features = j.at("in_features").get<int>();
    c.num_classes = j.at("num_classes").get<int>();
    c.layers = j.at("layers").get<int>();
    c.heads = j.at("heads").get<int>();
    c.hidden = j.at("hidden").get<int>();
    c.out_heads = j.at("out_heads").get<int>();
    c.dropout = j.at("dropout").get<double>();
    c.attn_dropout = j.at("attn_dropout").get<double>();
    c.negative_slope = j.at("negative_slope").get<double>();
    c.residual = j.at("residual").get<bool>();
    c.add_self_loops = j.at("add_self_loops").get<bool>();
    c.activation = parse_activation(j.at("activation").get<std::string>());
    c.edge_dim = j.value("edge_dim", 0);
    c.readout = j.value("readout", std::string("mean"));
    c.mlp_hidden = j.value("mlp_hidden", 256);
    c.mlp_dropout = j.value("mlp_dropout", 0.0);
    c.target_type = j.value("target_type", std::string());
    c.node_input = j.value("node_input", std::string("features"));
    c.num_nodes = j.value("num_nodes", 0);
    c.out_channels = j.value("out_channels", 64);
    c.decoder = j.value("decoder", std::string("dot"));
    c.mask = j.value("mask", std::string("edges"));
    c.block = j.value("block", std::string("plain"));
    c.max_full_nodes = j.value("max_full_nodes", 512);
    c.pe = j.value("pe", std::string("none"));
    c.pe_mode = j.value("pe_mode", std::string("concat"));
    return c;
}

json info_to_json(const ModelInfo& info) {
    return {{"class_names", info.class_names},
            {"target_names", info.target_names},
            {"target_mean", info.target_mean},
            {"target_std", info.target_std},
            {"feature_normalization", info.feature_normalization},
            {"featurizer", info.featurizer},
            {"smiles_column", info.smiles_column},
            {"data_name", info.data_name},
            {"metrics", info.metrics},
            {"node_ids", info.node_ids},
            {"directed", info.directed}};
}

ModelInfo info_from_json(const json& j) {
    ModelInfo info;
    info.class_names = j.at("class_names").get<std::vector<std::string>>();
    info.target_names = j.value("target_names", std::vector<std::string>());
    info.target_mean = j.value("target_mean", std::vector<double>());
    info.target_std = j.value("target_std", std::vector<double>());
    info.feature_normalization = j.at("feature_normalization").get<std::string>();
    info.featurizer = j.value("featurizer", std::string());
    info.smiles_column = j.value("smiles_column", std::string());
    info.data_name = j.value("data_name", std::string());
    info.metrics = j.value("metrics", std::map<std::string, double>());
    info.node_ids = j.value("node_ids", std::vector<std::string>());
    info.directed = j.value("directed", false);
    return info;
}

}  // namespace

namespace {

// One 2-D tensor to write: F32 (a float matrix) or I32 (node ids).
struct TensorRef {
    std::string name;
    const char* dtype;
    std::int64_t rows, cols;
    const void* data;
};

std::vector<TensorRef> float_tensors(const std::vector<std::pair<std::string, const Matrix*>>& tensors) {
    std::vector<TensorRef> out;
    for (const auto& [name, m] : tensors) out.push_back({name, "F32", m->rows(), m->cols(), m->data()});
    return out;
}

// The bytes of a safetensors file for named tensors and gatkit metadata.
std::string safetensors_bytes(const std::vector<TensorRef>& tensors, const json& metadata) {
    json header;
    std::string data;
    for (const auto& t : tensors) {
        const std::size_t bytes = static_cast<std::size_t>(t.rows * t.cols) * 4;  // F32 and I32: 4 bytes
        header[t.name] = {{"dtype", t.dtype}, {"shape", {t.rows, t.cols}}, {"data_offsets", {data.size(), data.size() + bytes}}};
        // x86-64 and AArch64 Linux are little-endian, which is what safetensors stores.
        data.append(static_cast<const char*>(t.data), bytes);
    }
    header["__metadata__"] = metadata;
    std::string text = header.dump();
    text.append((8 - text.size() % 8) % 8, ' ');
    std::string bytes(8, '\0');
    const std::uint64_t n = text.size();
    for (int k = 0; k < 8; ++k) bytes[k] = static_cast<char>((n >> (8 * k)) & 0xff);
    return bytes + text + data;
}

// A gatkit model file read and checked up to its metadata; tensors are read on demand.
struct GatkitFile {
    std::string path;
    std::string bytes;
    json header;
    std::size_t data_start = 0;

    ParseError bad(const std::string& why) const { return ParseError("model file '" + path + "': " + why); }

    // safetensors metadata values are strings; anything else is shown as its JSON text (json::value
    // would throw a type_error that is not a gatkit::Error).
    static std::string text_of(const json& object, const char* key) {
        const auto it = object.find(key);
        return it == object.end() ? std::string() : it->is_string() ? it->get<std::string>() : it->dump();
    }
    const json& meta() const { return header["__metadata__"]; }
    std::string model_type() const {
        const std::string t = text_of(meta(), "model_type");
        return t.empty() ? "gat" : t;
    }

    explicit GatkitFile(const std::string& p) : path(p) {
        std::ifstream in(path, std::ios::binary);
        if (!in) throw IoError("cannot open model file '" + path + "': " + std::strerror(errno));
        std::ostringstream buf;
        buf << in.rdbuf();
        bytes = buf.str();
        if (bytes.size() < 8) throw bad("truncated (" + std::to_string(bytes.size()) + " bytes; not a safetensors file)");
        std::uint64_t n = 0;
        for (int k = 0; k < 8; ++k) n |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[k])) << (8 * k);
        if (n > bytes.size() - 8)
            throw bad("header length " + std::to_string(n) + " exceeds the file size " + std::to_string(bytes.size()) +
                      " (truncated, or not a safetensors file)");
        try {
            header = json::parse(bytes.substr(8, n));
        } catch (const json::exception& e) {
            throw bad(std::string("header is not valid JSON: ") + e.what());
        }
        if (!header.is_object() || !header.contains("__metadata__") || !header["__metadata__"].is_object() ||
            text_of(header["__metadata__"], "format") != "gatkit")
            throw bad("unsupported model file: a safetensors file without gatkit metadata");
        const std::string version = text_of(meta(), "format_version");
        if (version != std::to_string(kModelFormatVersion))
            throw bad("unsupported model file format version '" + version + "' (this gatkit reads version " +
                      std::to_string(kModelFormatVersion) + ")");
        data_start = 8 + n;
    }

    json meta_json(const char* key) const {
        try {
            return json::parse(meta().at(key).get<std::string>());
        } catch (const json::exception& e) {
            throw bad(std::string("metadata is incomplete or malformed: ") + e.what());
        }
    }

    // Reads tensor `name` into `m`; with expected shape unless m is empty (then any 2-D shape).
    template <class M>
    void read(const std::string& name, M& m) const {
        using Scalar = typename M::Scalar;
        static_assert(sizeof(Scalar) == 4);
        const char* dtype = std::is_floating_point_v<Scalar> ? "F32" : "I32";
        if (!header.contains(name)) throw bad("tensor '" + name + "' is missing");
        const json& t = header[name];
        const std::size_t data_size = bytes.size() - data_start;
        try {
            if (t.at("dtype").get<std::string>() != dtype)
                throw bad("tensor '" + name + "' has dtype " + t.at("dtype").get<std::string>() + ", expected " + dtype);
            const auto shape = t.at("shape").get<std::vector<std::int64_t>>();
            const bool any = m.size() == 0 && m.rows() == 0;
            if (shape.size() != 2 || shape[0] < 0 || shape[1] < 0 || (!any && (shape[0] != m.rows() || shape[1] != m.cols())))
                throw bad("tensor '" + name + "' has shape " + t.at("shape").dump() + ", expected [" + std::to_string(m.rows()) + "," +
                          std::to_string(m.cols()) + "]");
            const auto off = t.at("data_offsets").get<std::vector<std::uint64_t>>();
            const std::size_t want = static_cast<std::size_t>(shape[0]) * static_cast<std::size_t>(shape[1]) * sizeof(Scalar);
            if (off.size() != 2 || off[0] > off[1] || off[1] > data_size || off[1] - off[0] != want)
                throw bad("tensor '" + name + "' has data offsets " + t.at("data_offsets").dump() + " outside the " +
                          std::to_string(data_size) + " data bytes (truncated file?)");
            if (any) m.resize(shape[0], shape[1]);
            std::memcpy(m.data(), bytes.data() + data_start + off[0], want);
        } catch (const json::exception& e) {
            throw bad("tensor '" + name + "' entry is malformed: " + e.what());
        }
    }
};

json base_metadata(const std::string& model_type) {
    return {{"format", "gatkit"}, {"format_version", std::to_string(kModelFormatVersion)}, {"model_type", model_type}};
}

}  // namespace

void save_model(const std::string& path, Model& model) {
    std::vector<std::pair<std::string, const Matrix*>> tensors;
    for (const auto* p : model.parameters()) tensors.emplace_back(p->name, &p->value);
    json meta = base_metadata("gat");
    meta["config"] = config_to_json(model.config()).dump();
    meta["info"] = info_to_json(model.info()).dump();
    if (model.info().featurizer == chem::featurizer_id()) meta["featurizer_spec"] = chem::featurizer_spec();
    write_file_atomically(path, safetensors_bytes(float_tensors(tensors), meta));
}

Model load_model(const std::string& path) {
    const GatkitFile file(path);
    if (file.model_type() != "gat")
        throw file.bad("holds a '" + file.model_type() + "' model, not an attention model");
    ModelConfig config;
    ModelInfo info;
    try {
        config = config_from_json(file.meta_json("config"));
        config.validate();  // here, so a bad value is reported with the file's name
        info = info_from_json(file.meta_json("info"));
    } catch (const json::exception& e) {
        throw file.bad(std::string("metadata is incomplete or malformed: ") + e.what());
    } catch (const ConfigError& e) {
        throw file.bad(e.what());
    }
    if (config.task != "node" && config.task != "graph")
        throw file.bad("holds a " + config.task + " model; load it with load_link_model");
    if (info.featurizer == chem::featurizer_id() && file.meta().contains("featurizer_spec") &&
        file.meta()["featurizer_spec"] != chem::featurizer_spec())
        throw file.bad("its atom/bond features (featurizer '" + info.featurizer + "', layout " + file.meta()["featurizer_spec"].dump() +
                       ") differ from this gatkit's (" + chem::featurizer_spec() + "); train the model again");
    Model model(config, 0);
    model.info() = info;
    for (auto* p : model.parameters()) file.read(p->name, p->value);
    return model;
}

namespace {

MatrixT<std::int32_t> pairs_to_matrix(const std::vector<NodePair>& pairs) {
    MatrixT<std::int32_t> m(static_cast<Eigen::Index>(pairs.size()), 2);
    for (std::size_t k = 0; k < pairs.size(); ++k) {
        m(static_cast<Eigen::Index>(k), 0) = pairs[k].first;
        m(static_cast<Eigen::Index>(k), 1) = pairs[k].second;
    }
    return m;
}

// Reads the known edges and checks every id against the node count.
std::vector<NodePair> read_edges(const GatkitFile& file, std::size_t num_nodes) {
    MatrixT<std::int32_t> m;
    file.read("graph.edges", m);
    if (m.rows() > 0 && m.cols() != 2) throw file.bad("tensor 'graph.edges' must have 2 columns");
    std::vector<NodePair> pairs(static_cast<std::size_t>(m.rows()));
    for (Eigen::Index k = 0; k < m.rows(); ++k) {
        const NodeId u = m(k, 0), v = m(k, 1);
        if (u < 0 || v < 0 || static_cast<std::size_t>(u) >= num_nodes || static_cast<std::size_t>(v) >= num_nodes)
            throw file.bad("tensor 'graph.edges' row " + std::to_string(k) + " names node " + std::to_string(std::min(u, v) < 0 ? std::min(u, v) : std::max(u, v)) +
                           ", outside the model's " + std::to_string(num_nodes) + " nodes");
        pairs[static_cast<std::size_t>(k)] = {u, v};
    }
    return pairs;
}

ModelInfo read_info(const GatkitFile& file) {
    try {
        return info_from_json(file.meta_json("info"));
    } catch (const json::exception& e) {
        throw file.bad(std::string("metadata is incomplete or malformed: ") + e.what());
    }
}

}  // namespace

void save_link_model(const std::string& path, LinkModel& model) {
    std::vector<std::pair<std::string, const Matrix*>> named;
    for (const auto* p : model.parameters()) named.emplace_back(p->name, &p->value);
    named.emplace_back("node_vectors", &model.node_vectors);
    std::vector<TensorRef> tensors = float_tensors(named);
    const MatrixT<std::int32_t> edges = pairs_to_matrix(model.known_edges);
    tensors.push_back({"graph.edges", "I32", edges.rows(), 2, edges.data()});
    json meta = base_metadata("gat");
    meta["config"] = config_to_json(model.config()).dump();
    meta["info"] = info_to_json(model.info()).dump();
    write_file_atomically(path, safetensors_bytes(tensors, meta));
}

LinkModel load_link_model(const std::string& path) {
    const GatkitFile file(path);
    if (file.model_type() != "gat") throw file.bad("holds a '" + file.model_type() + "' model, not an attention model");
    ModelConfig config;
    try {
        config = config_from_json(file.meta_json("config"));
        config.validate();
    } catch (const json::exception& e) {
        throw file.bad(std::string("metadata is incomplete or malformed: ") + e.what());
    } catch (const ConfigError& e) {
        throw file.bad(e.what());
    }
    if (config.task != "link" && config.task != "edge") throw file.bad("holds a " + config.task + " model, not a link or edge model");
    LinkModel model(config, 0);
    model.info() = read_info(file);
    for (auto* p : model.parameters()) file.read(p->name, p->value);
    const std::size_t n = model.info().node_ids.size();
    model.node_vectors.resize(static_cast<Eigen::Index>(n), config.out_channels);
    file.read("node_vectors", model.node_vectors);
    model.known_edges = read_edges(file, n);
    return model;
}

void save_heuristic_model(const std::string& path, const HeuristicLinkModel& model) {
    const MatrixT<std::int32_t> edges = pairs_to_matrix(model.edges);
    json meta = base_metadata("heuristic");
    meta["heuristic"] = to_string(model.heuristic);
    meta["info"] = info_to_json(model.info).dump();
    write_file_atomically(path, safetensors_bytes({{"graph.edges", "I32", edges.rows(), 2, edges.data()}}, meta));
}

HeuristicLinkModel load_heuristic_model(const std::string& path) {
    const GatkitFile file(path);
    if (file.model_type() != "heuristic") throw file.bad("holds a '" + file.model_type() + "' model, not a link heuristic");
    HeuristicLinkModel model;
    try {
        model.heuristic = parse_link_heuristic(GatkitFile::text_of(file.meta(), "heuristic"));
    } catch (const ConfigError& e) {
        throw file.bad(e.what());
    }
    model.info = read_info(file);
    model.edges = read_edges(file, model.info.node_ids.size());
    return model;
}

std::string model_kind(const std::string& path) {
    const GatkitFile file(path);
    if (file.model_type() == "fingerprint" || file.model_type() == "heuristic") return file.model_type();
    try {
        return file.meta_json("config").at("task").get<std::string>();
    } catch (const json::exception& e) {
        throw file.bad(std::string("metadata is incomplete or malformed: ") + e.what());
    }
}

void save_fingerprint_model(const std::string& path, const FingerprintModel& model, const ModelInfo& info, const std::string& target_type) {
    const auto named = model.tensors();
    std::vector<std::pair<std::string, const Matrix*>> tensors;
    for (const auto& [name, m] : named) tensors.emplace_back(name, &m);
    json meta = base_metadata("fingerprint");
    meta["target_type"] = target_type;
    meta["info"] = info_to_json(info).dump();
    write_file_atomically(path, safetensors_bytes(float_tensors(tensors), meta));
}

LoadedFingerprintModel load_fingerprint_model(const std::string& path) {
    const GatkitFile file(path);
    if (file.model_type() != "fingerprint") throw file.bad("holds a '" + file.model_type() + "' model, not a fingerprint model");
    std::vector<std::pair<std::string, Matrix>> tensors;
    for (const char* name : {"fingerprint.weight", "fingerprint.bias", "fingerprint.options"}) {
        Matrix m;
        file.read(name, m);
        tensors.emplace_back(name, std::move(m));
    }
    try {
        ModelInfo info = info_from_json(file.meta_json("info"));
        return {FingerprintModel(tensors), std::move(info), GatkitFile::text_of(file.meta(), "target_type")};
    } catch (const json::exception& e) {
        throw file.bad(std::string("metadata is incomplete or malformed: ") + e.what());
    } catch (const Error& e) {
        throw file.bad(e.what());
    }
}

}  // namespace gatkit
