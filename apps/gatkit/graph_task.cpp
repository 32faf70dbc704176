// gatkit train / predict for whole-graph tasks: molecules (CSV, .smi, SDF) and TU graphs.
#include "args.hpp"
#include "checkpointing.hpp"
#include "common.hpp"
#include "molecule_inputs.hpp"

#include "gatkit/nn/masks.hpp"
#include "gatkit/nn/positional.hpp"

#include "gatkit/chem/featurize.hpp"
#include "gatkit/chem/fingerprint.hpp"
#include "gatkit/chem/scaffold.hpp"
#include "gatkit/chem/smiles.hpp"
#include "gatkit/core/parallel.hpp"
#include "gatkit/io/atomic_file.hpp"
#include "gatkit/io/molecules.hpp"
#include "gatkit/io/text_reader.hpp"
#include "gatkit/io/tu.hpp"
#include "gatkit/model/fingerprint_model.hpp"
#include "gatkit/model/model_file.hpp"
#include "gatkit/train/fit.hpp"
#include "gatkit/train/graph_trainer.hpp"

#include <GraphMol/ROMol.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <iterator>
#include <limits>
#include <memory>
#include <mutex>

namespace gatkit::cli {

namespace {

bool is_tu(const std::string& path, const std::string& format) {
    if (format == "tu") return true;
    if (format != "auto") return false;
    std::error_code ec;
    return std::filesystem::is_directory(path, ec);
}

// Morgan bits of every graph of a molecule data set (parsed again from its SMILES).
std::vector<std::vector<std::uint32_t>> fingerprints(const std::vector<std::string>& smiles) {
    std::vector<std::vector<std::uint32_t>> bits(smiles.size());
    for_each_item(static_cast<std::ptrdiff_t>(smiles.size()), {.chunk = 64}, [&](std::ptrdiff_t i) {
        const auto k = static_cast<std::size_t>(i);
        bits[k] = chem::morgan_bits(*chem::parse_smiles(smiles[k]));
    });
    return bits;
}

// The --split value, checked before the data are read so that a typo fails at once.
void check_split_kind(const TrainArgs& a) {
    if (!a.split_column.empty() || a.split.empty()) return;
    gatkit::check_split_kind(a.split);
}

std::vector<IndexSplit> make_splits(const TrainArgs& a, const GraphDataset& data, const MoleculeTable* table, Rng& rng) {
    const std::string kind = a.split.empty() ? "random" : a.split;
    if (!a.split_column.empty()) {
        if (!table) throw UsageError("--split-column needs a CSV input");
        const auto& header = table->header;
        const auto it = std::find(header.begin(), header.end(), a.split_column);
        if (it == header.end()) {
            std::string columns;
            for (const auto& h : header) columns += (columns.empty() ? "" : ", ") + h;
            throw UserError(a.data + ": no column named '" + a.split_column + "' (--split-column; columns: " + columns + ")");
        }
        const std::size_t col = static_cast<std::size_t>(it - header.begin());
        std::vector<std::string> values(data.size());
        for (std::size_t r = 0; r < table->records.size(); ++r) {
            const long g = table->graph_of_record[r];
            if (g < 0) continue;
            const std::string& v = table->records[r][col];
            if (v != "train" && v != "val" && v != "test")
                throw UserError(a.data + ":" + std::to_string(data.source_rows.at(static_cast<std::size_t>(g))) + ": column '" + a.split_column +
                                "' holds '" + clip(v, 60) + "' (expected train, val or test)");
            values[static_cast<std::size_t>(g)] = v;
        }
        return {split_from_column(values)};
    }
    const auto sizes = parse_split_sizes(a.split_sizes.empty() ? "0.8,0.1,0.1" : a.split_sizes);
    return split_graphs(data, kind, sizes, rng);
}

// --split-out: one line per graph and fold, `row,smiles,split` (row: the graph's line in the input
// file as the invalid-rows report numbers it, the record for SDF, the graph id for TU; smiles empty
// for TU graphs), with a fold column (1..K) after row for k-fold runs. Rows RDKit rejected are in
// neither part and not listed (they are in the invalid-rows report).
void write_split_rows(const std::string& path, const GraphDataset& data, const std::vector<IndexSplit>& folds) {
    const bool kfold = folds.size() > 1;
    std::vector<const char*> part(data.size(), nullptr);  // per graph, in input order
    std::string out = kfold ? "row,fold,smiles,split\n" : "row,smiles,split\n";
    for (std::size_t f = 0; f < folds.size(); ++f) {
        std::fill(part.begin(), part.end(), nullptr);
        for (const std::size_t g : folds[f].train) part[g] = "train";
        for (const std::size_t g : folds[f].val) part[g] = "val";
        for (const std::size_t g : folds[f].test) part[g] = "test";
        for (std::size_t g = 0; g < part.size(); ++g)
            if (part[g])
                out += std::to_string(g < data.source_rows.size() ? data.source_rows[g] : g + 1) + (kfold ? "," + std::to_string(f + 1) : std::string()) +
                       "," + csv_field(g < data.smiles.size() ? data.smiles[g] : std::string()) + "," + part[g] + "\n";
    }
    write_file_atomically(path, out);
}

void write_invalid_rows(const std::string& path, const LoadReport& report) {
    std::string out = "row,smiles,reason\n";
    for (const auto& s : report.skipped) out += std::to_string(s.line) + "," + csv_field(s.text) + "," + csv_field(s.reason) + "\n";
    write_file_atomically(path, out);
}

}  // namespace

int run_graph_train(const TrainArgs& given) {
    if (given.model_type != "gat" && given.model_type != "fingerprint")
        throw UserError("--model-type " + given.model_type + " (expected gat or fingerprint)");
    // Defaults that depend on the input: molecules (CSV, .smi, SDF) get the rdkit2d descriptors in
    // the attention model's head, TU graphs (no SMILES) and the fingerprint baseline none. The
    // resolved value is what checkpoints, model files and metrics record.
    TrainArgs a = given;
    const bool tu = is_tu(a.data, a.format);
    if (a.mol_features.empty()) a.mol_features = !tu && a.model_type == "gat" ? molecule_fit_defaults().mol_features : "none";
    check_split_kind(a);
    RunCheckpoints checkpoints(a);  // reads --resume before the data, so a bad checkpoint fails at once
    // ---- data
    std::unique_ptr<MoleculeTable> table;
    GraphDataset data;
    if (tu) {
        if (!a.target_columns.empty() || !a.smiles_column.empty())
            throw UserError(std::string(!a.target_columns.empty() ? "--target-columns" : "--smiles-column") + " goes with molecule files; " +
                            a.data + " is a TU data set (its labels are graph_labels.txt)");
        data = load_tu(a.data);
    } else {
        if (a.target_columns.empty()) throw UsageError("--task graph needs --target-columns (the label columns of " + a.data + ")");
        table = std::make_unique<MoleculeTable>(load_molecules(a.data, {.format = a.format, .smiles_column = a.smiles_column,
                                                                        .target_columns = a.target_columns}));
        data = std::move(table->data);
        const std::size_t rows = table->num_records(), skipped = data.report.n_skipped();
        if (skipped > 0) {
            if (a.on_invalid == "fail") {
                const auto& s = data.report.skipped.front();
                throw UserError(s.file + ":" + std::to_string(s.line) + ": " + s.reason, "--on-invalid skip trains on the valid rows");
            }
            const std::string invalid = a.invalid_out.empty() ? a.out + ".invalid.csv" : a.invalid_out;
            write_invalid_rows(invalid, data.report);
            std::cerr << skipped << " of " << rows << " rows skipped, reasons in " << invalid << "\n";
        }
    }
    if (data.size() == 0) throw UserError(a.data + ": no graphs to train on");
    if (a.mol_features != "none" && !table)
        throw UserError("--mol-features " + a.mol_features + " needs molecules (SMILES); " + data.name + " holds TU graphs");
    if (a.model_type == "fingerprint" && data.smiles.empty())
        throw UserError("--model-type fingerprint needs molecules (SMILES); " + data.name + " has none");
    const std::string target_type = a.target_type.empty() ? infer_target_type(data) : a.target_type;
    if (target_type != "binary" && target_type != "multiclass" && target_type != "regression")
        throw UserError("--target-type " + target_type + " (expected binary, multiclass or regression)");
    const int outputs = target_type == "multiclass" ? static_cast<int>(data.class_names.size()) : static_cast<int>(data.targets.cols());
    if (target_type == "multiclass" && outputs < 2) throw UserError("--target-type multiclass needs class names (TU data)");
    const std::string select_metric = selection_metric_for(target_type, a.metric);  // --metric must fit the target type
    if (!a.quiet) {
        std::cerr << data.name << ": " << data.size() << " graphs, " << data.targets.cols() << " target(s), " << target_type << "\n";
        // TU notes (self-loops dropped, repeated edges kept); molecule notes repeat the line above
        if (!table)
            for (const auto& note : data.report.notes) std::cerr << data.name << ": " << note << "\n";
    }

    Rng root(a.seed);
    Rng split_rng = root.split();
    const auto [init_seed, train_seed] = model_seeds(a, root);
    const std::vector<IndexSplit> folds = make_splits(a, data, table.get(), split_rng);

    // Positional encodings become the last input columns of every graph, before anything else
    // sees the features; --mask full is checked here, before anything large is allocated.
    if (a.pe != "none") add_positional_encodings(data, a.pe);
    add_molecule_features(data, a.mol_features);
    if (parse_mask(a.mask).kind == MaskKind::full) check_full_mask_sizes(data, a.max_full_nodes);

    GraphFitOptions fit;
    fit.target_type = target_type;
    fit.edge_features = !a.no_edge_features;
    fit.mol_features = a.mol_features;
    ModelConfig& config = fit.model;
    apply_model_args(a, config);
    config.readout = !a.readout.empty() ? a.readout : table ? molecule_model_defaults().readout : graph_model_defaults().readout;
    config.mlp_hidden = a.mlp_hidden;

    GraphTrainOptions& options = fit.train;
    options.epochs = a.epochs.value_or(options.epochs);
    options.patience = a.patience.value_or(options.patience);
    options.batch_size = a.batch_size;
    options.adam = {.lr = a.lr.value_or(options.adam.lr), .weight_decay = a.weight_decay.value_or(options.adam.weight_decay),
                    .decoupled = a.optimizer == "adamw"};
    options.schedule = {.kind = a.lr_schedule, .warmup_epochs = a.warmup_epochs.value_or(options.schedule.warmup_epochs)};
    options.seed = train_seed;
    options.select_metric = select_metric;
    options.augment = pe_augmentation(config);
    const bool progress_lines = !a.quiet && stderr_is_terminal();

    std::vector<Metrics> fold_val, fold_test;
    std::map<std::string, std::vector<double>> per_task;
    GraphTrainResult first;
    std::vector<GraphTrainResult> first_members;  // fold 0's ensemble members (--ensemble-size > 1)
    std::vector<std::vector<std::uint32_t>> bits;
    if (a.model_type == "fingerprint") bits = fingerprints(data.smiles);
    // The first fold's model is written only once every fold has finished, so a run that fails
    // in a later fold (a diverged training, say) leaves no model file behind.
    std::function<void()> write_model;
    for (std::size_t f = 0; f < folds.size(); ++f) {
        const IndexSplit& split = folds[f];
        GraphTrainResult r;
        if (a.model_type == "gat") {
            // Members of an ensemble train one after another on this fold's split, each from its
            // own seeds; a resumed ensemble run takes the members its checkpoint had finished.
            const int n_members = a.ensemble_size;
            const bool checkpointed = folds.size() == 1;  // single-split runs checkpoint and resume; k-fold runs only stop
            const int first_member = checkpointed ? checkpoints.resumed_member() : 0;
            if (checkpointed && checkpoints.resuming()) {
                // Before any finished member is taken from the checkpoint: it must be this run's.
                Model probe = make_graph_model(data, fit, init_seed);
                checkpoints.verify(probe.config(), probe.parameters(),
                                   run_identity(a, options.adam, options.batch_size, options.schedule, options.epochs));
            }
            if (first_member >= n_members)
                throw UserError("--resume: the checkpoint is at ensemble member " + std::to_string(first_member + 1) + " of a run with " +
                                std::to_string(n_members));
            EnsembleProgress progress;
            std::vector<Model> members;
            std::vector<GraphTrainResult> member_results;
            for (int k = 0; k < n_members; ++k) {
                const ModelSeeds seeds = member_seeds(a, {.init = init_seed, .train = train_seed}, k);
                Model model = make_graph_model(data, fit, seeds.init);
                model.info().smiles_column = a.smiles_column;
                GraphTrainResult mr;
                if (k < first_member) {
                    const FinishedMember& done = checkpoints.resumed_finished()[static_cast<std::size_t>(k)];
                    auto params = model.parameters();
                    for (std::size_t i = 0; i < params.size(); ++i) params[i]->value = done.weights.at(i);
                    mr.epochs_run = done.epochs_run;
                    mr.best_epoch = done.best_epoch;
                    mr.train_seconds = done.train_seconds;
                    mr.epoch_seconds_median = done.epoch_seconds_median;
                    fit_training_statistics(model, data, split.train);  // the scalings its training set gave it
                    evaluate_split({&model}, data, split, mr);
                } else {
                    options.seed = seeds.train;
                    progress.member = k;
                    const std::string prefix = (folds.size() > 1 ? "fold " + std::to_string(f + 1) + "  " : std::string()) +
                                               (n_members > 1 ? "member " + std::to_string(k + 1) + "/" + std::to_string(n_members) + "  " : std::string());
                    const auto on_epoch = [&](const GraphEpochStats& s) {
                        if (!progress_lines) return;
                        std::fprintf(stderr, "%sepoch %3d  loss %.4f  val %s %.4f  %.2f s%s\n", prefix.c_str(), s.epoch, s.train_loss,
                                     s.val_metric.c_str(), s.val_score, s.seconds, s.best ? "  *" : "");
                    };
                    if (checkpointed)
                        checkpoints.attach(options.checkpoint, model.config(), model.info(), model.parameters(),
                                           run_identity(a, options.adam, options.batch_size, options.schedule, options.epochs),
                                           n_members > 1 ? &progress : nullptr);
                    else
                        options.checkpoint.stop = stop_flag();
                    mr = with_stop_on_signals([&] { return train_graph_model(model, data, split, options, on_epoch); });
                }
                if (n_members > 1 && !a.quiet) {
                    std::cerr << (folds.size() > 1 ? "fold " + std::to_string(f + 1) + " " : std::string()) << "member " << k + 1 << "/"
                              << n_members << ": best epoch " << mr.best_epoch;
                    if (mr.val.count(select_metric)) std::cerr << ", val_" << select_metric << " " << float_text(mr.val.at(select_metric));
                    std::cerr << "\n";
                }
                if (checkpointed && n_members > 1) {
                    FinishedMember done{.epochs_run = mr.epochs_run, .best_epoch = mr.best_epoch, .train_seconds = mr.train_seconds,
                                        .epoch_seconds_median = mr.epoch_seconds_median};
                    for (const auto* p : model.parameters()) done.weights.push_back(p->value);
                    progress.finished.push_back(std::move(done));
                }
                members.push_back(std::move(model));
                member_results.push_back(std::move(mr));
            }
            r = n_members == 1 ? member_results.front() : ensemble_result(model_pointers(members), member_results, data, split);
            if (f == 0) {
                first_members = member_results;
                for (const auto& [k, v] : r.test) members.front().info().metrics["test_" + k] = v;
                write_model = [&a, kept = std::make_shared<std::vector<Model>>(std::move(members))] {
                    save_model_ensemble(a.out, model_pointers(*kept));
                };
            }
        } else {
            if (target_type == "multiclass") throw UserError("--model-type fingerprint supports binary and regression targets");
            const auto t0 = std::chrono::steady_clock::now();
            auto pick = [&](const std::vector<std::size_t>& idx) {
                std::vector<std::vector<std::uint32_t>> b;
                Matrix t(static_cast<Eigen::Index>(idx.size()), data.targets.cols());
                for (std::size_t k = 0; k < idx.size(); ++k) {
                    b.push_back(bits[idx[k]]);
                    t.row(static_cast<Eigen::Index>(k)) = data.targets.row(static_cast<Eigen::Index>(idx[k]));
                }
                return std::make_pair(b, t);
            };
            const auto [train_bits, train_targets] = pick(split.train);
            const FingerprintModel fp =
                FingerprintModel::fit(train_bits, train_targets, {.regression = target_type == "regression"});
            const auto [val_bits, val_targets] = pick(split.val);
            const auto [test_bits, test_targets] = pick(split.test);
            r.val = evaluate_predictions(target_type, fp.predict(val_bits), val_targets);
            if (!split.test.empty()) r.test = evaluate_predictions(target_type, fp.predict(test_bits), test_targets, &r.test_per_task);
            r.train_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            if (f == 0) {
                ModelInfo info;
                info.target_names = data.target_names;
                info.featurizer = "morgan-r2-2048";
                info.smiles_column = a.smiles_column;
                info.data_name = data.name;
                for (const auto& [k, v] : r.test) info.metrics["test_" + k] = v;
                write_model = [&a, fp, info, target_type] { save_fingerprint_model(a.out, fp, info, target_type); };
            }
        }
        fold_val.push_back(r.val);
        fold_test.push_back(r.test);
        if (f == 0) {
            first = r;
            per_task = r.test_per_task;
        }
        if (folds.size() > 1 && !a.quiet) {
            std::cerr << "fold " << f + 1 << "/" << folds.size() << ":";
            for (const auto& [k, v] : r.test) std::cerr << " test_" << k << " " << v;
            std::cerr << "\n";
        }
    }
    if (!a.split_out.empty()) write_split_rows(a.split_out, data, folds);
    write_model();
    // Mean (and std over folds) of every metric.
    nlohmann::json m = {{"task", "graph"},
                        {"data", a.data},
                        {"model_type", a.model_type},
                        {"target_type", target_type},
                        {"n_graphs", data.size()},
                        {"n_skipped", data.report.n_skipped()},
                        {"seed", a.seed},
                        {"threads", thread_count()},
                        {"split", a.split_column.empty() ? (a.split.empty() ? "random" : a.split) : "column:" + a.split_column},
                        {"n_train", folds.front().train.size()},
                        {"n_val", folds.front().val.size()},
                        {"n_test", folds.front().test.size()}};
    if (a.init_seed) m["init_seed"] = *a.init_seed;
    if (a.model_type == "gat") {
        m["ensemble_size"] = a.ensemble_size;
        if (a.ensemble_size > 1) {
            // Each member of the first fold on its own (the top-level metrics are the ensemble's).
            nlohmann::json list = nlohmann::json::array();
            for (const auto& mr : first_members) {
                nlohmann::json one = {{"epochs_run", mr.epochs_run}, {"best_epoch", mr.best_epoch}, {"train_seconds", mr.train_seconds}};
                for (const auto& [k, v] : mr.val) one["val_" + k] = std::isnan(v) ? nlohmann::json(nullptr) : nlohmann::json(v);
                for (const auto& [k, v] : mr.test) one["test_" + k] = std::isnan(v) ? nlohmann::json(nullptr) : nlohmann::json(v);
                list.push_back(one);
            }
            m["members"] = list;
        }
        m["conv"] = a.conv;
        m["mask"] = a.mask;
        m["block"] = a.block;
        m["pe"] = a.pe;
        m["pe_mode"] = a.pe_mode;
        m["mol_features"] = a.mol_features;
        m["epochs_run"] = first.epochs_run;
        m["best_epoch"] = first.best_epoch;
        m["epoch_seconds_median"] = first.epoch_seconds_median;
    }
    m["train_seconds"] = first.train_seconds;
    auto summarise = [&](const std::vector<Metrics>& runs, const std::string& prefix) {
        for (const auto& [name, unused] : runs.front()) {
            std::vector<double> v;
            for (const auto& r : runs) v.push_back(r.at(name));
            double mean = 0;
            for (const double x : v) mean += x;
            mean /= static_cast<double>(v.size());
            m[prefix + name] = std::isnan(mean) ? nlohmann::json(nullptr) : nlohmann::json(mean);
            if (runs.size() > 1) {
                double var = 0;
                for (const double x : v) var += (x - mean) * (x - mean);
                m[prefix + name + "_std"] = std::sqrt(var / static_cast<double>(v.size()));
            }
        }
    };
    summarise(fold_val, "val_");
    if (!fold_test.front().empty()) summarise(fold_test, "test_");
    if (data.targets.cols() > 1)
        for (const auto& [name, values] : per_task) {
            nlohmann::json obj;
            for (std::size_t t = 0; t < values.size(); ++t)
                obj[data.target_names[t]] = std::isnan(values[t]) ? nlohmann::json(nullptr) : nlohmann::json(values[t]);
            m["test_" + name + "_per_task"] = obj;
        }
    const std::string model_name = a.model_type == "gat" ? a.conv + (a.block == "transformer" ? " transformer blocks" : "") +
                                                              (a.mask != "edges" ? ", mask " + a.mask : "") + (a.pe != "none" ? ", pe " + a.pe : "")
                                                        : a.model_type;
    const std::string ensemble_name = a.model_type == "gat" && a.ensemble_size > 1 ? ", ensemble of " + std::to_string(a.ensemble_size) : "";
    std::cout << data.name << " (" << model_name << ensemble_name << ", " << target_type << (folds.size() > 1 ? ", " + std::to_string(folds.size()) + " folds" : "")
              << "):";
    for (const auto& [k, v] : m.items())
        if (k.rfind("test_", 0) == 0 && v.is_number() && k.find("_std") == std::string::npos) std::cout << " " << k << " " << float_text(v.get<double>());
    std::cout << "\nmodel written to " << a.out << "\n";
    if (!a.metrics_json.empty()) write_json(a.metrics_json, m);
    return 0;
}

namespace {

// A graph model as predict and evaluate read it: a fingerprint baseline, or an attention
// model's members (one unless it is an ensemble), with the info and target type they share;
// `tu` for an attention model trained on TU graphs (tu_task.cpp reads those).
struct MoleculeModel {
    ModelInfo info;
    std::string target_type;
    std::vector<Model> members;
    std::unique_ptr<FingerprintModel> fp;
    bool tu = false;
};

MoleculeModel load_molecule_model(const std::string& path, const std::string& command) {
    MoleculeModel m;
    if (model_kind(path) == "fingerprint") {
        auto loaded = load_fingerprint_model(path);
        m.fp = std::make_unique<FingerprintModel>(std::move(loaded.model));
        m.info = std::move(loaded.info);
        m.target_type = loaded.target_type;
    } else {
        m.members = load_model_ensemble(path);
        m.tu = m.members.front().info().featurizer == "tu";
        if (!m.tu) check_molecule_featurizer(path, m.members.front().info(), command);
        m.info = m.members.front().info();
        m.target_type = m.members.front().config().target_type;
    }
    return m;
}

// `gatkit predict --data FILE` hands each thread this many rows at a time to parse, featurise
// and predict (load_molecules_chunked), so only a few chunks' atom features exist at once and a
// thread's buffers are reused, warm in cache, by its next chunk.
constexpr std::size_t kPredictChunkRows = 64;

}  // namespace

int run_graph_predict(const PredictArgs& a) {
    MoleculeModel loaded = load_molecule_model(a.model, "predict");
    if (loaded.tu) return run_tu_predict(a, loaded.members);
    const ModelInfo& info = loaded.info;
    const std::string& target_type = loaded.target_type;
    std::vector<Model>& members = loaded.members;  // an attention model's members (one unless it is an ensemble)
    Model* model = members.empty() ? nullptr : &members.front();  // the first
    const std::unique_ptr<FingerprintModel>& fp = loaded.fp;
    // Output columns: one per target (probability or value), or one per class.
    const std::vector<std::string> columns = prediction_columns(target_type, info);
    const auto C = static_cast<Eigen::Index>(columns.size());

    // One part's predictions: rows of `pred` for its graphs `kept`, `why` for the others. A
    // molecule that has more atoms than a full mask attends over (the model's max_full_nodes) is
    // its row's error, as an invalid SMILES is, not a failure of the whole file.
    struct PartPredictions {
        std::vector<std::size_t> records;  // the table row of each graph of the part
        std::vector<std::string> why;
        std::vector<std::size_t> kept;
        Matrix pred;
    };
    // The readers compute the molecule-level features from their own parse; a molecule they fail
    // for is a failed row there.
    const auto predict_part = [&](GraphDataset& data, std::vector<Model>& mine) {
        add_positional_encodings(data, model ? model->config().pe : "none");
        PartPredictions out;
        if (model) {
            out.kept = graphs_within_full_mask(data, model->config(), "atoms", out.why);
        } else {
            out.why.resize(data.size());
            for (std::size_t g = 0; g < data.size(); ++g) out.kept.push_back(g);
        }
        out.pred.resize(0, C);
        if (!out.kept.empty()) {
            if (fp) {
                std::vector<std::string> smiles;
                for (const std::size_t g : out.kept) smiles.push_back(data.smiles[g]);
                out.pred = fp->predict(fingerprints(smiles));
            } else {
                out.pred = predict_graphs(model_pointers(mine), data, out.kept);
            }
        }
        return out;
    };

    // A file without --attention is read and predicted in chunks, side by side on the threads,
    // each thread with its own copy of the model (its forward keeps work buffers); --attention runs
    // every molecule again on its own and so keeps them all, as does the one molecule of --smiles.
    MoleculeTable table;
    std::vector<PartPredictions> parts;
    if (a.smiles.empty() && a.attention.empty()) {
        std::vector<std::vector<Model>> copies(static_cast<std::size_t>(std::max(thread_count(), 1) - 1), members);
        std::mutex parts_mutex;
        table = load_molecules_chunked(
            a.data, {.format = a.format, .smiles_column = a.smiles_column.empty() ? info.smiles_column : a.smiles_column, .mol_features = info.graph_features},
            kPredictChunkRows, [&](GraphDataset& part, const std::vector<std::size_t>& records, int thread) {
                PartPredictions p = predict_part(part, thread == 0 ? members : copies.at(static_cast<std::size_t>(thread - 1)));
                p.records = records;
                const std::lock_guard<std::mutex> lock(parts_mutex);
                parts.push_back(std::move(p));
            });
    } else {
        table = read_molecule_inputs(a.smiles, a.data, a.format, a.smiles_column, info, "none", info.graph_features);
        PartPredictions p = predict_part(table.data, members);
        for (std::size_t r = 0; r < table.records.size(); ++r)
            if (table.graph_of_record[r] >= 0) p.records.push_back(r);
        parts.push_back(std::move(p));
    }
    // Per row of the table: its predicted values (a row of `values`, NaN when it has none) and
    // why it has none.
    std::vector<float> values(table.records.size() * static_cast<std::size_t>(C), std::numeric_limits<float>::quiet_NaN());
    std::vector<std::string> row_error = table.error_of_record;
    for (const PartPredictions& p : parts) {
        for (std::size_t g = 0; g < p.why.size(); ++g) row_error[p.records[g]] = p.why[g];
        for (std::size_t k = 0; k < p.kept.size(); ++k)
            for (Eigen::Index c = 0; c < C; ++c)
                values[p.records[p.kept[k]] * static_cast<std::size_t>(C) + static_cast<std::size_t>(c)] = p.pred(static_cast<Eigen::Index>(k), c);
    }

    if (!a.attention.empty()) {
        // One molecule at a time, so every row of α belongs to one molecule: input row, atom
        // indices. An ensemble's rows say which member (1..N) they come from.
        std::vector<std::pair<std::size_t, std::string>> graphs;
        for (std::size_t r = 0; r < table.records.size(); ++r)
            if (table.graph_of_record[r] >= 0 && row_error[r].empty()) graphs.emplace_back(static_cast<std::size_t>(table.graph_of_record[r]), std::to_string(r + 1));
        write_file_atomically(a.attention, per_graph_attention(members, table.data, graphs, "row", "atom"));
        std::cerr << "attention coefficients written to " << a.attention << "\n";
    }
    std::vector<std::string> appended = columns;
    appended.push_back("error");
    std::string out = header_beside_input(table.header, appended);
    std::size_t predicted = 0;
    for (std::size_t r = 0; r < table.records.size(); ++r) {
        for (std::size_t k = 0; k < table.records[r].size(); ++k) out += (k ? "," : "") + csv_field(table.records[r][k]);
        const bool ok = row_error[r].empty();
        predicted += ok ? 1 : 0;
        for (Eigen::Index c = 0; c < C; ++c)
            out += "," + (ok ? float_text(values[r * static_cast<std::size_t>(C) + static_cast<std::size_t>(c)]) : std::string());
        out += "," + csv_field(row_error[r]) + "\n";
    }
    // --smiles (no --out) and --out - print the rows alone; a file gets a summary on stderr.
    const bool to_stdout = a.out.empty() || a.out == "-";
    const std::string where = write_output(to_stdout ? "-" : a.out, out);
    if (!to_stdout)
        std::cerr << table.records.size() << " rows (" << predicted << " predicted, " << table.records.size() - predicted
                  << " with errors) written to " << where << "\n";
    return 0;
}

int run_graph_evaluate(const EvaluateArgs& a) {
    MoleculeModel loaded = load_molecule_model(a.model, "evaluate");
    if (loaded.tu) return run_tu_evaluate(a, loaded.members);
    const ModelInfo& info = loaded.info;
    const std::string& target_type = loaded.target_type;
    std::vector<Model>& members = loaded.members;
    const std::unique_ptr<FingerprintModel>& fp = loaded.fp;
    if (target_type == "multiclass") throw UserError(a.model + ": evaluate reads binary and regression molecule models (this one is multiclass)");
    // The labels are the model's own target columns, read from the file as training read them.
    MoleculeTable table = load_molecules(a.data, {.format = a.format,
                                                  .smiles_column = a.smiles_column.empty() ? info.smiles_column : a.smiles_column,
                                                  .target_columns = info.target_names,
                                                  .mol_features = fp ? std::string("none") : info.graph_features});
    GraphDataset& data = table.data;
    if (target_type == "binary") {
        try {
            check_binary_targets(data);
        } catch (const ConfigError& e) {
            throw UserError(a.data + ": " + e.what());
        }
    }
    std::vector<std::size_t> kept;
    if (!fp) {
        add_positional_encodings(data, members.front().config().pe);
        std::vector<std::string> why;
        kept = graphs_within_full_mask(data, members.front().config(), "atoms", why);
    } else {
        for (std::size_t g = 0; g < data.size(); ++g) kept.push_back(g);
    }
    const std::size_t too_large = data.size() - kept.size();
    const std::size_t rows = table.num_records(), skipped = data.report.n_skipped();
    if (skipped > 0) {
        const auto& first = data.report.skipped.front();
        std::cerr << skipped << " of " << rows << " rows skipped, not evaluated (first: " << first.file << ":" << first.line << ": "
                  << first.reason << ")\n";
    }
    if (too_large > 0)
        std::cerr << too_large << " molecules above the model's max_full_nodes (" << members.front().config().max_full_nodes
                  << " atoms, --mask full) not evaluated\n";
    if (kept.empty()) throw UserError(a.data + ": no molecule to evaluate (" + std::to_string(rows) + " rows, none valid)");
    std::size_t labelled = 0;
    for (const std::size_t g : kept)
        labelled += data.targets.row(static_cast<Eigen::Index>(g)).array().isNaN().all() ? 0 : 1;
    if (labelled == 0) {
        std::string columns;
        for (const auto& t : info.target_names) columns += (columns.empty() ? "'" : ", '") + t + "'";
        throw UserError(a.data + ": no labelled row to evaluate (column " + columns + " empty on every valid row)");
    }
    Matrix pred;
    if (fp) {
        std::vector<std::string> smiles;
        for (const std::size_t g : kept) smiles.push_back(data.smiles[g]);
        pred = fp->predict(fingerprints(smiles));
    } else {
        pred = predict_graphs(model_pointers(members), data, kept);
    }
    Matrix targets(static_cast<Eigen::Index>(kept.size()), data.targets.cols());
    for (std::size_t k = 0; k < kept.size(); ++k) targets.row(static_cast<Eigen::Index>(k)) = data.targets.row(static_cast<Eigen::Index>(kept[k]));
    std::map<std::string, std::vector<double>> per_task;
    const Metrics metrics = evaluate_predictions(target_type, pred, targets, &per_task);

    nlohmann::json m = {{"task", "graph"},
                        {"data", a.data},
                        {"model", a.model},
                        {"model_type", fp ? "fingerprint" : "gat"},
                        {"target_type", target_type},
                        {"n_rows", rows},
                        {"n_graphs", kept.size()},
                        {"n_skipped", skipped + too_large},
                        {"threads", thread_count()}};
    if (targets.cols() > 1)
        for (const auto& [name, values] : per_task) {
            nlohmann::json obj;
            for (std::size_t t = 0; t < values.size(); ++t) obj[info.target_names[t]] = metric_json(values[t]);
            m["test_" + name + "_per_task"] = obj;
        }
    report_test_metrics(data.name + " (" + std::to_string(kept.size()) + " molecules, " + target_type + ")", metrics, m);
    if (!a.metrics_json.empty()) write_json(a.metrics_json, m);
    return 0;
}

}  // namespace gatkit::cli
