#include "molecule_inputs.hpp"

#include "args.hpp"
#include "common.hpp"

#include "gatkit/chem/featurize.hpp"
#include "gatkit/chem/smiles.hpp"
#include "gatkit/core/error.hpp"
#include "gatkit/model/model_file.hpp"
#include "gatkit/nn/masks.hpp"
#include "gatkit/train/fit.hpp"
#include "gatkit/train/graph_trainer.hpp"

#include <GraphMol/ROMol.h>

#include <algorithm>
#include <cctype>

namespace gatkit::cli {

std::vector<std::string> prediction_columns(const std::string& target_type, const ModelInfo& info) {
    std::vector<std::string> columns;
    if (target_type == "multiclass")
        for (const auto& c : info.class_names) columns.push_back("p_" + c);
    else
        for (const auto& t : info.target_names) columns.push_back((target_type == "binary" ? "p_" : "pred_") + t);
    return columns;
}

std::vector<Model> load_molecule_models(const std::string& path, const std::string& command) {
    std::vector<Model> model = load_model_ensemble(path);
    check_molecule_featurizer(path, model.front().info(), command);
    return model;
}

void check_molecule_featurizer(const std::string& path, const ModelInfo& info, const std::string& command) {
    if (info.featurizer == "tu")
        throw UserError(command + " for TU-format graph models is not available; gatkit predict and gatkit evaluate read TU folders with " + path);
    if (info.featurizer != chem::featurizer_id())
        throw UserError(path + ": model uses featurizer '" + info.featurizer + "', this gatkit has '" + chem::featurizer_id() + "'");
}

MoleculeTable read_molecule_inputs(const std::string& smiles, const std::string& data, const std::string& format, const std::string& smiles_column,
                                   const ModelInfo& info, const std::string& pe, const std::string& mol_features) {
    MoleculeTable table;
    if (!smiles.empty()) {
        // One molecule from the command line: a one-row table.
        table.header = {"smiles"};
        table.records = {{smiles}};
        try {
            const auto mol = chem::parse_smiles(smiles);
            GraphSample s = chem::featurize_molecule(*mol);
            table.data.graphs.push_back(std::move(s));
            table.data.smiles.push_back(smiles);
            table.graph_of_record = {0};
            table.error_of_record = {""};
        } catch (const ParseError& e) {
            table.graph_of_record = {-1};
            table.error_of_record = {e.what()};
        }
    } else {
        // The reader computes the molecule-level features from its own parse; a molecule they
        // fail for is an invalid row, its error the reason.
        table = load_molecules(data, {.format = format, .smiles_column = smiles_column.empty() ? info.smiles_column : smiles_column, .mol_features = mol_features});
    }
    add_positional_encodings(table.data, pe);
    // A molecule whose features RDKit cannot compute is its row's error, as an invalid SMILES is.
    const std::vector<std::string> failed = try_add_molecule_features(table.data, smiles.empty() ? std::string("none") : mol_features);
    for (std::size_t r = 0; r < table.records.size(); ++r) {
        const long g = table.graph_of_record[r];
        if (g < 0 || failed[static_cast<std::size_t>(g)].empty()) continue;
        table.error_of_record[r] = failed[static_cast<std::size_t>(g)];
        table.graph_of_record[r] = -1;
    }
    return table;
}

std::vector<std::string> record_smiles(const MoleculeTable& table, const std::string& smiles_column, const ModelInfo& info) {
    // The column load_molecules read: the one named, else the one named "smiles" in any case
    // (.smi and SDF tables have "smiles" first).
    const std::string named = smiles_column.empty() ? info.smiles_column : smiles_column;
    const auto& h = table.header;
    auto it = std::find(h.begin(), h.end(), named);
    if (named.empty() || it == h.end())
        it = std::find_if(h.begin(), h.end(), [&](const std::string& c) {
            std::string lower = trimmed(c);
            std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char ch) { return std::tolower(ch); });
            return lower == "smiles";
        });
    const std::size_t col = it == h.end() ? 0 : static_cast<std::size_t>(it - h.begin());
    std::vector<std::string> out;
    for (const auto& record : table.records) out.push_back(col < record.size() ? trimmed(record[col]) : std::string());
    return out;
}

GraphBatchData forward_molecule(Model& model, const GraphDataset& data, std::size_t g) {
    GraphBatchData b = make_batch_data(data, {g});
    model.forward(b.batch, b.x, &b.edge_attr, /*training=*/false, nullptr, &b.u);
    return b;
}

std::vector<std::size_t> graphs_within_full_mask(const GraphDataset& data, const ModelConfig& config, const std::string& unit,
                                                 std::vector<std::string>& why) {
    why.assign(data.size(), "");
    std::vector<std::size_t> kept;
    const bool full_mask = parse_mask(config.mask).kind == MaskKind::full;
    for (std::size_t g = 0; g < data.size(); ++g) {
        const NodeId n = data.graphs[g].graph.num_nodes();
        if (full_mask && n > config.max_full_nodes)
            why[g] = std::to_string(n) + " " + unit + ", more than the " + std::to_string(config.max_full_nodes) +
                     " the model attends over in full (--mask full, --max-full-nodes)";
        else
            kept.push_back(g);
    }
    return kept;
}

std::string per_graph_attention(std::vector<Model>& members, const GraphDataset& data,
                                const std::vector<std::pair<std::size_t, std::string>>& graphs, const std::string& id_column,
                                const std::string& unit) {
    const bool ensemble = members.size() > 1;
    std::string out = id_column + (ensemble ? ",member" : "") + ",layer,head,src_" + unit + ",dst_" + unit + ",self_loop,alpha\n";
    for (const auto& [g, id] : graphs)
        for (std::size_t k = 0; k < members.size(); ++k) {
            const GraphBatchData b = forward_molecule(members[k], data, g);
            std::vector<std::string> nodes(static_cast<std::size_t>(b.x.rows()));
            for (std::size_t i = 0; i < nodes.size(); ++i) nodes[i] = std::to_string(i);
            out += attention_rows(members[k], nodes, id + "," + (ensemble ? std::to_string(k + 1) + "," : std::string()));
        }
    return out;
}

std::string describe_attention(const EdgeAttention& att, const Model& model, const AttentionChoice& choice) {
    std::string s = "layer " + std::to_string(att.layer) + (att.layer + 1 == model.num_layers() ? " (last)" : "") + ", ";
    return s + (choice.head ? "head " + std::to_string(*choice.head) + " of " + std::to_string(att.heads)
                            : "mean of " + std::to_string(att.heads) + (att.heads == 1 ? " head" : " heads"));
}

Matrix pooled_embeddings(std::vector<Model>& members, const GraphDataset& data, const std::vector<bool>& run,
                         std::vector<std::string>& columns) {
    Matrix emb;
    Eigen::Index width = 0;
    for (std::size_t g = 0; g < data.size(); ++g) {
        if (!run[g]) continue;
        for (std::size_t k = 0; k < members.size(); ++k) {
            forward_molecule(members[k], data, g);
            const Matrix& pooled = members[k].graph_embeddings();
            if (emb.size() == 0) {
                width = pooled.cols();
                emb = Matrix::Zero(static_cast<Eigen::Index>(data.size()), width * static_cast<Eigen::Index>(members.size()));
            }
            emb.block(static_cast<Eigen::Index>(g), static_cast<Eigen::Index>(k) * width, 1, width) = pooled.row(0);
        }
    }
    columns.clear();
    for (Eigen::Index c = 0; c < emb.cols(); ++c)
        columns.push_back(members.size() > 1 ? "m" + std::to_string(c / width + 1) + "_g" + std::to_string(c % width) : "g" + std::to_string(c));
    return emb;
}

}  // namespace gatkit::cli
