#include "molecule_inputs.hpp"

#include "common.hpp"

#include "gatkit/chem/featurize.hpp"
#include "gatkit/chem/smiles.hpp"
#include "gatkit/core/error.hpp"
#include "gatkit/model/model_file.hpp"
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
    const auto trim = [](const std::string& s) {
        const auto first = s.find_first_not_of(" \t\r");
        return first == std::string::npos ? std::string() : s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
    };
    const std::string named = smiles_column.empty() ? info.smiles_column : smiles_column;
    const auto& h = table.header;
    auto it = std::find(h.begin(), h.end(), named);
    if (named.empty() || it == h.end())
        it = std::find_if(h.begin(), h.end(), [&](const std::string& c) {
            std::string lower = trim(c);
            std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char ch) { return std::tolower(ch); });
            return lower == "smiles";
        });
    const std::size_t col = it == h.end() ? 0 : static_cast<std::size_t>(it - h.begin());
    std::vector<std::string> out;
    for (const auto& record : table.records) out.push_back(col < record.size() ? trim(record[col]) : std::string());
    return out;
}

GraphBatchData forward_molecule(Model& model, const GraphDataset& data, std::size_t g) {
    GraphBatchData b = make_batch_data(data, {g});
    model.forward(b.batch, b.x, &b.edge_attr, /*training=*/false, nullptr, &b.u);
    return b;
}

}  // namespace gatkit::cli
