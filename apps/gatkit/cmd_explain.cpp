// gatkit explain — where a trained model looks: molecules drawn with atoms and bonds shaded by
// the attention they receive (SVG), or a node's most-attended neighbours.
// gatkit embed — the learned vectors: one per molecule (the pooled graph vector) or per node.
// docs/cli.md describes both; the scores are defined in model/explain.hpp.
#include "args.hpp"
#include "common.hpp"
#include "molecule_inputs.hpp"
#include "node_network.hpp"

#include "gatkit/chem/draw.hpp"
#include "gatkit/chem/featurize.hpp"
#include "gatkit/chem/smiles.hpp"
#include "gatkit/core/error.hpp"
#include "gatkit/core/parallel.hpp"
#include "gatkit/io/atomic_file.hpp"
#include "gatkit/model/explain.hpp"
#include "gatkit/model/model_file.hpp"
#include "gatkit/train/fit.hpp"
#include "gatkit/train/graph_trainer.hpp"
#include "gatkit/train/loss.hpp"

#include <GraphMol/ROMol.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <unistd.h>

namespace gatkit::cli {

namespace {

struct ExplainArgs {
    std::string model, smiles, data, smiles_column, out, out_dir, node, graph;
    std::string format = "auto";  // molecule models: --format of the --data file
    std::optional<int> layer, head;
    int top_k = 10, threads = 0;
    bool atom_indices = false;
    std::string feature_file, label_file;  // node models on an edge list, as for predict
};

struct EmbedArgs {
    std::string model, smiles, data, smiles_column, out;
    std::string format = "auto";  // molecule models: --format of the --data file
    int threads = 0;
    std::string feature_file, label_file;
};

// Three significant digits, for titles.
std::string rounded(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}

// The node-model inputs of `gatkit predict`, from explain's or embed's options.
NodeTaskData node_data(const std::string& model_path, const std::string& data, const std::string& feature_file,
                       const std::string& label_file, const Model& model) {
    PredictArgs p;
    p.model = model_path;
    p.data = data;
    p.feature_file = feature_file;
    p.label_file = label_file;
    return load_node_prediction_data(p, model.info());
}

// ---- molecules

struct MoleculePicture {
    std::string svg;
    std::vector<double> prediction;  // one value per prediction column
};

MoleculePicture explain_molecule(std::vector<Model>& members, const std::string& smiles, const std::vector<std::string>& columns,
                                 const ExplainArgs& a) {
    Model& model = members.front();
    // Parsed and featurised here, not taken from the loaded table: the drawing's atom indices
    // must be the graph's node ids (an SDF record's atom order differs from its SMILES').
    const auto mol = chem::parse_smiles(smiles);
    GraphDataset one;
    one.graphs.push_back(chem::featurize_molecule(*mol));
    one.smiles.push_back(smiles);
    add_positional_encodings(one, model.config().pe);
    add_molecule_features(one, model.info().graph_features);
    const Matrix pred = predict_graphs(model_pointers(members), one, {0});
    // An ensemble's scores are the mean of its members' (each a mean over heads).
    const AttentionChoice choice{.layer = a.layer, .head = a.head};
    const auto bonds = chem::bond_atom_pairs(*mol);
    std::vector<double> atom, bond;
    EdgeAttention att;
    for (Model& member : members) {
        const GraphBatchData batch = forward_molecule(member, one, 0);  // alive while α is read
        att = edge_attention(member, choice);
        const std::vector<double> atom_k = attention_received(*att.graph, att.weight);
        const std::vector<double> bond_k = pair_attention(*att.graph, att.weight, bonds);
        if (atom.empty()) atom.assign(atom_k.size(), 0.0), bond.assign(bond_k.size(), 0.0);
        for (std::size_t i = 0; i < atom.size(); ++i) atom[i] += atom_k[i] / static_cast<double>(members.size());
        for (std::size_t i = 0; i < bond.size(); ++i) bond[i] += bond_k[i] / static_cast<double>(members.size());
    }
    att.graph = nullptr;  // the batches are gone

    MoleculePicture p;
    // Long SMILES are cut so that the title stays legible (the index and CSVs keep them whole).
    constexpr std::size_t kTitleSmiles = 60;
    std::string title = (smiles.size() > kTitleSmiles ? smiles.substr(0, kTitleSmiles - 3) + "..." : smiles) + "   ";
    for (std::size_t c = 0; c < columns.size(); ++c) {
        p.prediction.push_back(pred(0, static_cast<Eigen::Index>(c)));
        title += (c ? ", " : "") + columns[c] + " = " + rounded(p.prediction.back());
    }
    chem::SvgOptions o;
    o.caption = "attention of " + describe_attention(att, model, choice) +
                (members.size() > 1 ? ", mean of " + std::to_string(members.size()) + " ensemble members" : std::string());
    o.atom_label = "atoms: Σ α received";
    o.bond_label = "bonds: mean α (u→v, v→u)";
    o.atom_indices = a.atom_indices;
    p.svg = chem::attention_svg(*mol, atom, bond, title, o);
    return p;
}

void prepare_out_dir(const std::string& dir) {
    std::error_code ec;
    if (std::filesystem::exists(dir, ec) && !std::filesystem::is_directory(dir, ec))
        throw UserError("--out-dir " + dir + ": exists and is not a folder");
    if (!std::filesystem::exists(dir, ec)) {
        const std::filesystem::path parent = std::filesystem::path(dir).parent_path();
        if (!parent.empty() && !std::filesystem::is_directory(parent, ec))
            throw UserError("--out-dir " + dir + ": folder '" + parent.string() + "' does not exist");
        if (!std::filesystem::create_directory(dir, ec)) throw UserError("--out-dir " + dir + ": cannot create it: " + ec.message());
    }
    if (::access(dir.c_str(), W_OK) != 0) throw UserError("--out-dir " + dir + ": folder is not writable");
}

int explain_molecules(const ExplainArgs& a, std::vector<Model>& members) {
    if (!a.node.empty()) throw UserError("--node goes with node models; " + a.model + " is a molecule model", "use --smiles S or --data FILE");
    if (a.smiles.empty() == a.data.empty()) throw UsageError("explain needs exactly one of --smiles and --data for a molecule model");
    if (!a.smiles.empty() && a.out.empty()) throw UsageError("explain --smiles needs --out FILE.svg");
    if (!a.data.empty() && a.out_dir.empty())
        throw UsageError("explain --data writes one picture per row and needs --out-dir DIR", "for one molecule use --smiles S --out FILE.svg");
    if (!a.out.empty() && !a.out_dir.empty()) throw UsageError("give --out (with --smiles) or --out-dir (with --data), not both");
    if (!a.out.empty()) check_output_path("--out", a.out);

    check_molecule_featurizer(a.model, members.front().info(), "explain");
    const Model& model = members.front();
    if (members.size() > 1 && a.head)
        throw UserError("--head " + std::to_string(*a.head) + ": " + a.model + " is an ensemble of " + std::to_string(members.size()) +
                            " separately trained models, whose heads do not correspond",
                        "leave out --head: the picture shows each member's mean over heads, averaged");
    const std::vector<std::string> columns = prediction_columns(model.config().target_type, model.info());
    if (!a.smiles.empty()) {
        const MoleculePicture p = explain_molecule(members, a.smiles, columns, a);
        write_file_atomically(a.out, p.svg);
        std::cerr << a.smiles << ":";
        for (std::size_t c = 0; c < columns.size(); ++c) std::cerr << " " << columns[c] << " " << float_text(p.prediction[c]);
        std::cerr << "; picture written to " << a.out << "\n";
        return 0;
    }

    // Only the rows' SMILES are needed here; explain_molecule featurises each one again. The
    // folder is made once the file has been read, and taken away again if this run made it and
    // fails part way (a bad --layer or --head), so a failure leaves no folder of partial output.
    const MoleculeTable table = read_molecule_inputs("", a.data, a.format, a.smiles_column, model.info(), "none", "none");
    std::error_code ec;
    const bool made_dir = !std::filesystem::exists(a.out_dir, ec);
    prepare_out_dir(a.out_dir);
    struct RemoveUnlessKept {
        std::string dir;
        bool armed;
        ~RemoveUnlessKept() {
            std::error_code e;
            if (armed) std::filesystem::remove_all(dir, e);
        }
    } cleanup{a.out_dir, made_dir};
    const std::vector<std::string> smiles = record_smiles(table, a.smiles_column, model.info());
    std::string index = "row,smiles";
    for (const auto& c : columns) index += "," + csv_field(c);
    index += ",file,error\n";
    std::size_t drawn = 0;
    for (std::size_t r = 0; r < table.num_records(); ++r) {
        const std::string row = std::to_string(r + 1);
        std::string error = table.error_of_record[r], file;
        MoleculePicture p;
        if (table.graph_of_record[r] >= 0) {
            try {
                p = explain_molecule(members, table.data.smiles[static_cast<std::size_t>(table.graph_of_record[r])], columns, a);
                file = "row-" + row + ".svg";
                write_file_atomically((std::filesystem::path(a.out_dir) / file).string(), p.svg);
                ++drawn;
            } catch (const ConfigError&) {
                throw;  // a bad --layer/--head is wrong for every row
            } catch (const Error& e) {
                error = e.what();
                file.clear();
                p.prediction.clear();
            }
        }
        index += row + "," + csv_field(smiles[r]);
        for (std::size_t c = 0; c < columns.size(); ++c) index += "," + (c < p.prediction.size() ? float_text(p.prediction[c]) : std::string());
        index += "," + csv_field(file) + "," + csv_field(error) + "\n";
    }
    const std::string index_path = (std::filesystem::path(a.out_dir) / "index.csv").string();
    write_file_atomically(index_path, index);
    cleanup.armed = false;
    std::cerr << table.num_records() << " rows: " << drawn << " pictures, " << table.num_records() - drawn << " with errors; list in "
              << index_path << "\n";
    return 0;
}

// ---- nodes

NodeId find_node(const NodeTaskData& data, const std::string& id) {
    const auto it = std::find(data.node_ids.begin(), data.node_ids.end(), id);
    if (it == data.node_ids.end())
        throw UserError("--node " + id + ": no node with id '" + id + "' in " + data.path + " (" + std::to_string(data.num_nodes()) + " nodes)",
                        "node ids are the ids of the data file, e.g. '" + (data.node_ids.empty() ? std::string() : data.node_ids.front()) + "'");
    return static_cast<NodeId>(it - data.node_ids.begin());
}

int explain_node(const ExplainArgs& a) {
    if (a.node.empty()) throw UsageError("explain for a node model needs --node ID (and --data, as for gatkit predict)");
    if (a.data.empty()) throw UsageError("explain --node needs --data: the graph the node model runs on (as for gatkit predict)");
    if (!a.smiles.empty() || !a.out_dir.empty()) throw UserError("--smiles and --out-dir go with molecule models; " + a.model + " is a node model");
    if (!a.out.empty() && a.out != "-") check_output_path("--out", a.out);
    Model model = load_model(a.model);
    const NodeTaskData data = node_data(a.model, a.data, a.feature_file, a.label_file, model);
    const NodeId node = find_node(data, a.node);
    const Matrix probs = softmax_rows(model.forward(data.graph, node_task_inputs_for(model, data), /*training=*/false));
    const AttentionChoice choice{.layer = a.layer, .head = a.head};
    const EdgeAttention att = edge_attention(model, choice);
    const std::vector<AttendedNeighbor> ranked = attended_neighbors(*att.graph, att.weight, node);

    std::string out = "rank,neighbor,alpha,self_loop\n";
    const std::size_t shown = std::min(ranked.size(), static_cast<std::size_t>(a.top_k));
    for (std::size_t k = 0; k < shown; ++k)
        out += std::to_string(k + 1) + "," + csv_field(data.node_ids[static_cast<std::size_t>(ranked[k].node)]) + "," + float_text(ranked[k].alpha) +
               "," + (ranked[k].self_loop ? "1" : "0") + "\n";
    Eigen::Index predicted = 0;
    probs.row(node).maxCoeff(&predicted);
    std::cerr << "node " << a.node << ": predicted class " << model.info().class_names.at(static_cast<std::size_t>(predicted)) << " ("
              << float_text(probs(node, predicted)) << "); attends to " << ranked.size() << " nodes (" << describe_attention(att, model, choice) << ")";
    const bool to_stdout = a.out.empty() || a.out == "-";
    if (to_stdout) std::cerr << "\n";
    const std::string where = write_output(to_stdout ? "-" : a.out, out);
    if (!to_stdout) std::cerr << "; top " << shown << " written to " << where << "\n";
    return 0;
}

// Kinds explain and embed cannot read, with what to use instead.
[[noreturn]] void refuse(const std::string& command, const std::string& model, const std::string& kind) {
    if (kind == "fingerprint")
        throw UserError(command + " needs an attention model; " + model + " is a fingerprint model (Morgan bits, no attention, no learned vectors)");
    if (command == "explain")
        throw UserError("explain reads molecule, TU graph and node models; " + model + " is a " + kind + " model",
                        kind == "heuristic" ? "" : "its node vectors: gatkit embed --model " + model + " --out FILE.csv");
    throw UserError(command + " does not read " + kind + " models (" + model + ")");
}

// ---- TU graphs

int explain_tu(const ExplainArgs& a, std::vector<Model>& members) {
    if (!a.smiles.empty()) throw UserError("--smiles needs a molecule model; " + a.model + " was trained on TU graphs (give their folder with --data)");
    if (a.data.empty()) throw UsageError("explain for a TU model needs --data: a TU folder (and --graph ID for one graph)");
    if (!a.node.empty() || !a.out_dir.empty() || a.atom_indices || !a.feature_file.empty() || !a.label_file.empty())
        throw UserError(std::string(!a.node.empty() ? "--node" : !a.out_dir.empty() ? "--out-dir" : a.atom_indices ? "--atom-indices"
                                                                                     : !a.feature_file.empty() ? "--feature-file" : "--label-file") +
                        " does not go with TU models; " + a.model + " lists the attention each node of a graph receives",
                        "gatkit explain --model " + a.model + " --data FOLDER [--graph ID] [--out FILE.csv]");
    if (!a.out.empty() && a.out != "-") check_output_path("--out", a.out);
    return run_tu_explain({.model = a.model,
                           .data = a.data,
                           .graph = a.graph,
                           .out = a.out,
                           .smiles_column = a.smiles_column,
                           .format = a.format,
                           .choice = {.layer = a.layer, .head = a.head}},
                          members);
}

int run_explain(const ExplainArgs& a) {
    use_threads(a.threads);
    const std::string kind = model_kind(a.model);
    check_molecule_format_applies(a.format, kind, a.model, a.smiles);
    if (!a.graph.empty() && kind != "graph") throw UserError("--graph goes with TU graph models; " + a.model + " is a " + kind + " model");
    if (kind == "graph") {
        std::vector<Model> members = load_model_ensemble(a.model);
        if (members.front().info().featurizer == "tu") return explain_tu(a, members);
        if (!a.graph.empty()) throw UserError("--graph goes with TU graph models; " + a.model + " is a molecule model", "use --smiles S or --data FILE");
        return explain_molecules(a, members);
    }
    if (kind == "node") return explain_node(a);
    refuse("explain", a.model, kind);
}

// ---- embed

int embed_molecules(const EmbedArgs& a) {
    std::vector<Model> members = load_model_ensemble(a.model);
    if (members.front().info().featurizer == "tu") {
        // A TU model: the graphs of a TU folder (run_tu_embed refuses the molecule file options).
        if (!a.smiles.empty()) throw UserError("--smiles needs a molecule model; " + a.model + " was trained on TU graphs (give their folder with --data)");
        if (a.data.empty()) throw UsageError("embed for a TU model needs --data: a TU folder");
        if (!a.feature_file.empty() || !a.label_file.empty())
            throw UsageError("--feature-file and --label-file go with node models; " + a.model + " reads TU folders");
        return run_tu_embed(a.model, a.data, a.smiles_column, a.format, a.out, members);
    }
    check_molecule_featurizer(a.model, members.front().info(), "embed");
    if (a.smiles.empty() == a.data.empty()) throw UsageError("embed needs exactly one of --smiles and --data for a molecule model");
    const Model& model = members.front();
    const MoleculeTable table = read_molecule_inputs(a.smiles, a.data, a.format, a.smiles_column, model.info(), model.config().pe, model.info().graph_features);
    if (!a.smiles.empty() && table.graph_of_record.front() < 0) throw UserError(table.error_of_record.front());
    const std::vector<std::string> smiles = record_smiles(table, a.smiles_column, model.info());
    // .smi files name their molecules; the name goes along.
    const bool named = !a.data.empty() && (a.format == "auto" ? molecule_format_of(a.data) : a.format) == "smi";
    // Each molecule alone: graph_embeddings() is then its one pooled row. An ensemble's members
    // each give their own vector, side by side (columns m<k>_g<c>, k = 1..N), as Chemprop's
    // fingerprint command writes one per model.
    std::vector<std::string> columns;
    const Matrix emb = pooled_embeddings(members, table.data, std::vector<bool>(table.data.size(), true), columns);
    std::string out = named ? "row,smiles,name" : "row,smiles";
    for (const auto& c : columns) out += "," + c;
    out += ",error\n";
    for (std::size_t r = 0; r < table.num_records(); ++r) {
        out += std::to_string(r + 1) + "," + csv_field(smiles[r]);
        if (named) out += "," + csv_field(table.records[r].size() > 1 ? table.records[r][1] : std::string());
        const long g = table.graph_of_record[r];
        for (Eigen::Index c = 0; c < emb.cols(); ++c) out += "," + (g >= 0 ? float_text(emb(g, c)) : std::string());
        out += "," + csv_field(table.error_of_record[r]) + "\n";
    }
    const std::string where = write_output(a.out, out);
    std::cerr << table.num_records() << " rows (" << table.data.size() << " embedded, " << table.num_records() - table.data.size()
              << " with errors), " << emb.cols() << " values each, written to " << where << "\n";
    return 0;
}

int embed_nodes(const EmbedArgs& a) {
    if (a.data.empty()) throw UsageError("embed for a node model needs --data: the graph it runs on (as for gatkit predict)");
    if (!a.smiles.empty()) throw UserError("--smiles needs a molecule model; " + a.model + " is a node model");
    Model model = load_model(a.model);
    const NodeTaskData data = node_data(a.model, a.data, a.feature_file, a.label_file, model);
    model.forward(data.graph, node_task_inputs_for(model, data), /*training=*/false);
    const Matrix& z = model.node_embeddings();
    std::string out = "node_id";
    for (Eigen::Index c = 0; c < z.cols(); ++c) out += ",z" + std::to_string(c);
    out += "\n";
    for (NodeId i = 0; i < data.num_nodes(); ++i) {
        out += csv_field(data.node_ids[static_cast<std::size_t>(i)]);
        for (Eigen::Index c = 0; c < z.cols(); ++c) out += "," + float_text(z(i, c));
        out += "\n";
    }
    const std::string where = write_output(a.out, out);
    std::cerr << data.num_nodes() << " nodes, " << z.cols() << " values each, written to " << where << "\n";
    return 0;
}

int run_embed(const EmbedArgs& a) {
    use_threads(a.threads);
    if (a.out != "-") check_output_path("--out", a.out);
    const std::string kind = model_kind(a.model);
    check_molecule_format_applies(a.format, kind, a.model, a.smiles);
    if (kind == "graph") return embed_molecules(a);
    if (kind == "node") return embed_nodes(a);
    if (kind == "link" || kind == "edge") {
        // A link or edge model keeps its network: its node vectors are what predict --embeddings writes.
        if (!a.data.empty() || !a.smiles.empty())
            throw UserError("a " + kind + " model keeps its network; embed it without --data/--smiles");
        PredictArgs p;
        p.model = a.model;
        p.embeddings = a.out;
        return run_link_predict(p);
    }
    refuse("embed", a.model, kind);
}

}  // namespace

int write_predict_embeddings(const PredictArgs& p, const std::string& kind) {
    EmbedArgs a;
    a.model = p.model;
    a.smiles = p.smiles;
    a.data = p.data;
    a.smiles_column = p.smiles_column;
    a.format = p.format;
    a.out = p.embeddings;
    a.feature_file = p.feature_file;
    a.label_file = p.label_file;
    if (kind == "graph") return embed_molecules(a);
    if (kind == "node") return embed_nodes(a);
    refuse("predict --embeddings", p.model, kind);
}

void add_explain_command(CLI::App& app, Action& action) {
    auto a = std::make_shared<ExplainArgs>();
    CLI::App* c = app.add_subcommand("explain", "Show where a model's attention goes (molecule pictures, a node's neighbours, TU graphs' nodes)");
    c->add_option("--model", a->model, "Model file from gatkit train (molecule, TU graph or node model)")->required();
    c->add_option("--smiles", a->smiles, "molecule models: one molecule, drawn to --out");
    c->add_option("--data", a->data, "molecule models: CSV/.smi/SDF, one picture per row in --out-dir; node models: the graph (as for predict); TU models: a TU folder");
    c->add_option("--smiles-column", a->smiles_column, "CSV column with the SMILES (default: as in training)");
    add_molecule_format_option(c, a->format);
    c->add_option("--out", a->out, "--smiles: the SVG file; --node and TU models: a CSV file (default: stdout)");
    c->add_option("--out-dir", a->out_dir, "--data: folder for row-<n>.svg and index.csv (created if missing)");
    c->add_option("--layer", a->layer, "attention layer, 0-based (default: the last)");
    c->add_option("--head", a->head, "attention head, 0-based (default: the mean over the layer's heads)");
    c->add_option("--node", a->node, "node models: the node id whose neighbours to list");
    c->add_option("--graph", a->graph, "TU models: the graph id (DS_graph_indicator.txt) to list (default: every graph)");
    c->add_option("--top-k", a->top_k, "--node: neighbours listed")->capture_default_str()->check(integer_at_least(1));
    c->add_flag("--atom-indices", a->atom_indices, "molecule pictures: write each atom's index");
    c->add_option("--feature-file", a->feature_file, "node model on an edge list: the node feature file it was trained with");
    c->add_option("--label-file", a->label_file, "node model on an edge list: adds the nodes it names");
    c->add_option("--threads", a->threads, "Threads (default: all cores)")->check(thread_count_check());
    c->callback([&action, a] { action = [a] { return run_explain(*a); }; });
}

void add_embed_command(CLI::App& app, Action& action) {
    auto a = std::make_shared<EmbedArgs>();
    CLI::App* c = app.add_subcommand("embed", "Write the learned vectors of molecules or nodes");
    c->add_option("--model", a->model, "Model file from gatkit train")->required();
    c->add_option("--data", a->data, "molecule models: CSV/.smi/SDF; node models: the graph (as for predict)");
    c->add_option("--smiles", a->smiles, "molecule models: one molecule");
    c->add_option("--smiles-column", a->smiles_column, "CSV column with the SMILES (default: as in training)");
    add_molecule_format_option(c, a->format);
    c->add_option("--out", a->out, "CSV: row,smiles[,name],g0..,error (molecules) or node_id,z0.. (nodes)")->required();
    c->add_option("--feature-file", a->feature_file, "node model on an edge list: the node feature file it was trained with");
    c->add_option("--label-file", a->label_file, "node model on an edge list: adds the nodes it names");
    c->add_option("--threads", a->threads, "Threads (default: all cores)")->check(thread_count_check());
    c->callback([&action, a] { action = [a] { return run_embed(*a); }; });
}

}  // namespace gatkit::cli
