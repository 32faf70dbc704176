#include "safetensors_io.hpp"

#include "gatkit/core/error.hpp"

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

namespace gatkit::detail {

using nlohmann::json;

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
            {"graph_dim", c.graph_dim},
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
            {"pe_mode", c.pe_mode},
            {"root_weight", c.root_weight},
            {"beta", c.beta}};
}

ModelConfig config_from_json(const json& j) {
    ModelConfig c;
    c.task = j.at("task").get<std::string>();
    c.conv = j.at("conv").get<std::string>();
    c.in_features = integer_of<int>(j, "in_features");
    c.num_classes = integer_of<int>(j, "num_classes");
    c.layers = integer_of<int>(j, "layers");
    c.heads = integer_of<int>(j, "heads");
    c.hidden = integer_of<int>(j, "hidden");
    c.out_heads = integer_of<int>(j, "out_heads");
    c.dropout = j.at("dropout").get<double>();
    c.attn_dropout = j.at("attn_dropout").get<double>();
    c.negative_slope = j.at("negative_slope").get<double>();
    c.residual = j.at("residual").get<bool>();
    c.add_self_loops = j.at("add_self_loops").get<bool>();
    c.activation = parse_activation(j.at("activation").get<std::string>());
    c.edge_dim = integer_of<int>(j, "edge_dim", 0);
    c.graph_dim = integer_of<int>(j, "graph_dim", 0);
    c.readout = j.value("readout", std::string("mean"));
    c.mlp_hidden = integer_of<int>(j, "mlp_hidden", 256);
    c.mlp_dropout = j.value("mlp_dropout", 0.0);
    c.target_type = j.value("target_type", std::string());
    c.node_input = j.value("node_input", std::string("features"));
    c.num_nodes = integer_of<int>(j, "num_nodes", 0);
    c.out_channels = integer_of<int>(j, "out_channels", 64);
    c.decoder = j.value("decoder", std::string("dot"));
    c.mask = j.value("mask", std::string("edges"));
    c.block = j.value("block", std::string("plain"));
    c.max_full_nodes = integer_of<int>(j, "max_full_nodes", 512);
    c.pe = j.value("pe", std::string("none"));
    c.pe_mode = j.value("pe_mode", std::string("concat"));
    c.root_weight = j.value("root_weight", true);
    c.beta = j.value("beta", false);
    return c;
}

json info_to_json(const ModelInfo& info) {
    json j = {{"class_names", info.class_names},
            {"target_names", info.target_names},
            {"target_mean", info.target_mean},
            {"target_std", info.target_std},
            {"feature_normalization", info.feature_normalization},
            {"featurizer", info.featurizer},
            {"graph_features", info.graph_features},
            {"graph_feature_names", info.graph_feature_names},
            {"graph_feature_mean", info.graph_feature_mean},
            {"graph_feature_std", info.graph_feature_std},
            {"node_feature_columns", info.node_feature_columns},
            {"node_feature_mean", info.node_feature_mean},
            {"node_feature_std", info.node_feature_std},
            {"smiles_column", info.smiles_column},
            {"data_name", info.data_name},
            {"metrics", info.metrics},
            {"node_ids", info.node_ids},
            {"directed", info.directed}};
    if (!info.tu_layout.empty()) j["tu_layout"] = info.tu_layout;  // TU models only: other model files keep their bytes
    return j;
}

ModelInfo info_from_json(const json& j) {
    ModelInfo info;
    info.class_names = j.at("class_names").get<std::vector<std::string>>();
    info.target_names = j.value("target_names", std::vector<std::string>());
    info.target_mean = j.value("target_mean", std::vector<double>());
    info.target_std = j.value("target_std", std::vector<double>());
    info.feature_normalization = j.at("feature_normalization").get<std::string>();
    info.featurizer = j.value("featurizer", std::string());
    info.graph_features = j.value("graph_features", std::string("none"));
    info.graph_feature_names = j.value("graph_feature_names", std::vector<std::string>());
    info.graph_feature_mean = j.value("graph_feature_mean", std::vector<double>());
    info.graph_feature_std = j.value("graph_feature_std", std::vector<double>());
    info.node_feature_columns = j.value("node_feature_columns", std::vector<int>());
    info.tu_layout = j.value("tu_layout", std::vector<int>());
    info.node_feature_mean = j.value("node_feature_mean", std::vector<double>());
    info.node_feature_std = j.value("node_feature_std", std::vector<double>());
    info.smiles_column = j.value("smiles_column", std::string());
    info.data_name = j.value("data_name", std::string());
    // JSON has no NaN: a metric that was undefined (e.g. ROC AUC of a one-class test set) is
    // written as null and read back as NaN, not refused.
    if (const auto m = j.find("metrics"); m != j.end() && m->is_object())
        for (const auto& [name, value] : m->items())
            info.metrics[name] = value.is_number() ? value.get<double>() : std::numeric_limits<double>::quiet_NaN();
    info.node_ids = j.value("node_ids", std::vector<std::string>());
    info.directed = j.value("directed", false);
    return info;
}

std::vector<TensorRef> float_tensors(const std::vector<std::pair<std::string, const Matrix*>>& tensors) {
    std::vector<TensorRef> out;
    for (const auto& [name, m] : tensors) out.push_back({name, "F32", m->rows(), m->cols(), m->data()});
    return out;
}

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

SafetensorsFile::SafetensorsFile(std::string w, const std::string& p) : what(std::move(w)), path(p) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) throw IoError("cannot open " + what + " '" + path + "': it is a directory");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw IoError("cannot open " + what + " '" + path + "': " + std::strerror(errno));
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
    // A header without a metadata object gets an empty one, so the callers' format checks
    // ("a safetensors file without gatkit metadata") read every foreign file alike.
    if (!header.is_object()) header = json::object();
    if (!header.contains("__metadata__") || !header["__metadata__"].is_object()) header["__metadata__"] = json::object();
    data_start = 8 + n;
}

std::string SafetensorsFile::text_of(const json& object, const char* key) {
    const auto it = object.find(key);
    return it == object.end() ? std::string() : it->is_string() ? it->get<std::string>() : it->dump();
}

json SafetensorsFile::meta_json(const char* key) const {
    try {
        return json::parse(meta().at(key).get<std::string>());
    } catch (const json::exception& e) {
        throw bad(std::string("metadata is incomplete or malformed: ") + e.what());
    }
}

}  // namespace gatkit::detail
