// gatkit train — registers the options; node and graph tasks run in their own files.
#include "args.hpp"
#include "checkpointing.hpp"
#include "common.hpp"
#include "node_network.hpp"

#include "gatkit/chem/mol_features.hpp"
#include "gatkit/core/error.hpp"
#include "gatkit/core/parallel.hpp"
#include "gatkit/nn/masks.hpp"
#include "gatkit/nn/positional.hpp"
#include "gatkit/model/model_file.hpp"
#include "gatkit/train/fit.hpp"
#include "gatkit/train/numerics.hpp"
#include "gatkit/train/trainer.hpp"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>

namespace gatkit::cli {

namespace {

// Flags that only some tasks read. Given to another task they would be ignored without a word
// (a --split-file the graph task never opens, a --batch-size full-batch node training never
// uses), so they are refused, naming the tasks they go with.
void check_flags_apply(const CLI::App& c, const std::string& task, const std::string& model_type) {
    struct Rule {
        const char* flag;
        std::vector<std::string> tasks;
    };
    static const Rule rules[] = {
        {"--split-file", {"node"}},
        {"--batch-size", {"graph"}},
        {"--readout", {"graph"}},
        {"--smiles-column", {"graph"}},
        {"--target-columns", {"graph"}},
        {"--target-type", {"graph"}},
        {"--on-invalid", {"graph"}},
        {"--invalid-out", {"graph"}},
        {"--split-column", {"graph"}},
        {"--metric", {"graph"}},
        {"--mlp-hidden", {"graph", "link", "edge"}},
        {"--decoder", {"link", "edge"}},
        {"--out-channels", {"link", "edge"}},
        {"--directed", {"node", "link", "edge"}},
        {"--label-file", {"node", "link", "edge"}},
        {"--feature-file", {"node", "link", "edge"}},
        {"--node-features", {"node", "link", "edge"}},
    };
    if (task != "node" && task != "graph" && task != "link" && task != "edge") return;  // run_train names the valid tasks
    for (const Rule& r : rules) {
        if (c.count(r.flag) == 0 || std::find(r.tasks.begin(), r.tasks.end(), task) != r.tasks.end()) continue;
        std::string with;
        for (const auto& t : r.tasks) with += (with.empty() ? "" : "|") + t;
        throw UserError(std::string(r.flag) + " does not apply to --task " + task + " (it goes with --task " + with + ")");
    }
    // The fingerprint baseline fits a closed-form L2 model on Morgan bits, and a link heuristic
    // scores from the training graph alone: neither has layers, epochs or an optimiser, so the
    // attention model's flags would change nothing in what they write.
    // (A model type the task does not have is refused by name later, in run_train.)
    const bool baseline = (task == "graph" && model_type == "fingerprint") || (task == "link" && model_type.starts_with("heuristic:"));
    if (!baseline) return;
    static const char* const attention_only[] = {
        "--conv",       "--mask",       "--max-full-nodes", "--block",      "--pe",          "--pe-mode",        "--layers",
        "--heads",      "--hidden",     "--out-heads",      "--readout",    "--metric",      "--mlp-hidden",     "--no-edge-features",
        "--activation", "--negative-slope", "--residual",   "--no-residual", "--root-weight", "--beta",          "--dropout",
        "--attn-dropout", "--epochs",   "--lr",             "--lr-schedule", "--warmup-epochs", "--weight-decay", "--optimizer",
        "--patience",   "--batch-size", "--checkpoint", "--node-features", "--decoder",      "--out-channels",
    };
    for (const char* flag : attention_only)
        if (c.count(flag) > 0)
            throw UserError(std::string(flag) + " does not apply to --model-type " + model_type + " (it sets the attention model, --model-type gat)");
}

int run_train(const TrainArgs& a) {
    // Option values are checked before any data is read.
    try {
        parse_mask(a.mask);
        ModelConfig probe;
        probe.pe = a.pe;
        probe.pe_dim();
        LrSchedule schedule{.kind = a.lr_schedule};
        if (a.warmup_epochs) schedule.warmup_epochs = *a.warmup_epochs;
        check_lr_schedule(schedule);
        try {
            if (!a.mol_features.empty()) chem::check_molecule_features(a.mol_features);
        } catch (const ConfigError& e) {
            throw ConfigError(std::string("--mol-features: ") + e.what());
        }
    } catch (const ConfigError& e) {
        throw UserError(e.what());
    }
    if (a.task != "node" && a.task != "graph" && a.task != "link" && a.task != "edge")
        throw UserError("--task " + a.task + " is not available (available: node, graph, link, edge)");
    if (a.task != "graph" && (a.lr_schedule != "constant" || a.warmup_epochs))
        throw UserError("--lr-schedule and --warmup-epochs apply to --task graph (the " + a.task + " task trains at a constant --lr)");
    if (a.residual && a.no_residual) throw UsageError("--residual and --no-residual contradict each other: give one");
    if (a.task == "node" && a.model_type != "gat")
        throw UserError("--model-type " + a.model_type + " is not available for --task node (available: gat)");
    if (a.task != "graph" && !a.split_out.empty())
        throw UserError("--split-out applies to --task graph (the " + a.task + " task writes no split file)");
    if (!a.mol_features.empty() && a.mol_features != "none" && (a.task != "graph" || a.model_type != "gat"))
        throw UserError("--mol-features " + a.mol_features + " goes with --task graph and the attention model (--model-type gat)");
    if (a.ensemble_size != 1 && (a.task != "graph" || a.model_type != "gat"))
        throw UserError("--ensemble-size goes with --task graph and the attention model (--model-type gat)");
    if (a.ensemble_size < 1 || static_cast<std::size_t>(a.ensemble_size) > kMaxEnsembleSize)
        throw UserError("--ensemble-size " + std::to_string(a.ensemble_size) + ": expected 1 to " + std::to_string(kMaxEnsembleSize));
    use_threads(a.threads);
    check_output_path("--out", a.out);
    check_output_path("--metrics-json", a.metrics_json);
    check_distinct_outputs({{"--out", a.out}, {"--metrics-json", a.metrics_json}, {"--split-out", a.split_out}, {"--invalid-out", a.invalid_out},
                            {"--checkpoint", a.checkpoint}});
    check_output_path("--split-out", a.split_out);
    if (a.checkpoint_every < 0) throw UserError("--checkpoint-every " + std::to_string(a.checkpoint_every) + ": expected 0 (off) or a number of epochs");
    if (a.model_type != "gat" && (!a.resume.empty() || a.checkpoint_every > 0))
        throw UserError("--resume and --checkpoint-every go with trained models; --model-type " + a.model_type + " trains no epochs");
    if (a.split.rfind("kfold:", 0) == 0 && (!a.resume.empty() || a.checkpoint_every > 0))
        throw UserError("--resume and --checkpoint-every work on single-split runs, not --split " + a.split,
                        "k-fold runs train one model per fold and keep no checkpoint");
    check_output_path("--checkpoint", checkpoint_path(a));
    try {
        if (a.task == "link" || a.task == "edge") return run_link_train(a);
        return a.task == "node" ? run_node_train(a) : run_graph_train(a);
    } catch (const TrainingDiverged& e) {
        // The weights of a diverged run are not a finished model: nothing goes to --out.
        throw UserError(std::string(e.what()) + "; no model file was written",
                        "a learning rate that is too large is the typical cause: try a smaller --lr (10 times smaller, say); "
                        "input features of a huge magnitude are the other (scale them)");
    } catch (const TrainingInterrupted& e) {
        // SIGINT/SIGTERM: the trainer wrote a checkpoint (not a model file) and stopped.
        return report_interrupted(e, a);
    }
}

}  // namespace

int run_node_train(const TrainArgs& a) {
    RunCheckpoints checkpoints(a);  // reads --resume before the data, so a bad checkpoint fails at once
    NodeTaskData data = load_node_training_data(a);
    const bool progress = !a.quiet && stderr_is_terminal();
    if (!a.quiet) {
        std::cerr << data.name << ": " << data.num_nodes() << " nodes, " << data.num_edges << (data.directed ? " directed" : " undirected")
                  << " edges, " << data.features.cols() << " features, " << data.class_names.size() << " classes";
        if (!data.linqs) std::cerr << ", " << data.num_labelled() << " labelled nodes";
        std::cerr << "\n";
        for (const auto& note : data.notes) std::cerr << data.name << ": " << note << "\n";
    }
    NodeTaskInputs inputs = make_node_task_inputs(a.node_features, data);
    // Positional encodings become the last input columns (computed on the graph the model sees).
    inputs.x = with_positional_encoding(data.graph, std::move(inputs.x), a.pe);

    Rng root(a.seed);
    Rng split_rng = root.split();
    const auto [init_seed, train_seed] = model_seeds(a, root);
    const ChosenSplit chosen = make_node_split(a, data, split_rng);
    const NodeSplit& split = chosen.split;
    if (!a.quiet && !data.linqs)
        std::cerr << "split (" << chosen.name << "): " << split.train.size() << " train, " << split.val.size() << " val, " << split.test.size()
                  << " test nodes\n";

    // The GAT paper's Cora model (train/fit.hpp); the dot-product layer without the root skip
    // (0.783 mean test accuracy over seeds 0-2 with it, 0.809 without; docs/results.md).
    ModelConfig config = node_model_defaults();
    config.in_features = static_cast<int>(inputs.x.cols());
    config.num_classes = static_cast<int>(data.class_names.size());
    config.node_input = inputs.spec;
    apply_model_args(a, config);
    Model model(config, init_seed);
    model.info().class_names = data.class_names;
    model.info().data_name = data.name;
    model.info().feature_normalization = inputs.normalization;
    model.info().directed = data.directed;

    NodeTrainOptions options;
    options.epochs = a.epochs.value_or(1000);
    options.patience = a.patience.value_or(100);
    options.adam = {.lr = a.lr.value_or(0.005), .weight_decay = a.weight_decay.value_or(5e-4), .decoupled = a.optimizer == "adamw"};
    options.seed = train_seed;
    // No sign flips of Laplacian PEs here: one network keeps one basis (the fixed sign
    // convention) from training to prediction, and the signs carry the split of the graph
    // (karate: 1.00 without flips, 0.70 with). Graph tasks, which meet new graphs, flip.
    const auto on_epoch = [&](const EpochStats& s) {
        if (!progress) return;
        std::fprintf(stderr, "epoch %4d  loss %.4f  train acc %.3f  val loss %.4f  val acc %.3f  %.2f ms%s\n", s.epoch, s.train_loss,
                     s.train_accuracy, s.val_loss, s.val_accuracy, s.seconds * 1e3, s.best ? "  *" : "");
    };
    checkpoints.attach(options.checkpoint, model.config(), model.info(), model.parameters(), run_identity(a, options.adam, 0));
    const NodeTrainResult r =
        with_stop_on_signals([&] { return train_node_classifier(model, data.graph, inputs.x, data.labels, split, options, on_epoch); });
    model.info().metrics = {{"val_accuracy", r.val_accuracy}, {"test_accuracy", r.test_accuracy}, {"best_epoch", r.best_epoch}};
    save_model(a.out, model);

    std::cout << "epochs " << r.epochs_run << " (best " << r.best_epoch << "), val accuracy " << r.val_accuracy
              << ", test accuracy " << r.test_accuracy << ", " << r.epoch_seconds_median * 1e3 << " ms/epoch (median)\n"
              << "model written to " << a.out << "\n";
    if (!a.metrics_json.empty()) {
        nlohmann::json m = {{"task", a.task},
                            {"data", a.data},
                            {"n_nodes", data.num_nodes()},
                            {"n_edges", data.num_edges},
                            {"n_skipped", data.num_skipped},
                            {"n_labelled", data.num_labelled()},
                            {"node_features", inputs.spec},
                            {"split", chosen.name},
                            {"seed", a.seed},
                            {"threads", thread_count()},
                            {"epochs_run", r.epochs_run},
                            {"best_epoch", r.best_epoch},
                            {"train_seconds", r.train_seconds},
                            {"epoch_seconds_median", r.epoch_seconds_median},
                            {"train_accuracy", r.train_accuracy},
                            {"val_accuracy", r.val_accuracy},
                            {"val_loss", r.val_loss},
                            {"test_accuracy", r.test_accuracy},
                            {"n_train", split.train.size()},
                            {"n_val", split.val.size()},
                            {"n_test", split.test.size()}};
        if (a.init_seed) m["init_seed"] = *a.init_seed;
        write_json(a.metrics_json, m);
    }
    return 0;
}

void add_train_command(CLI::App& app, Action& action) {
    auto a = std::make_shared<TrainArgs>();
    CLI::App* c = app.add_subcommand("train", "Train a model and write it to --out");
    c->add_option("--task", a->task, "node|graph|link|edge")->capture_default_str();
    c->add_option("--data", a->data,
                  "node: folder with X.content[.gz] + X.cites[.gz], or their prefix, or an edge list with --label-file; graph: CSV/.smi/.sdf[.gz] of molecules, "
                  "or a TU folder; link/edge: an edge list (SNAP text or CSV src,dst[,label][,weight]), a LINQS data set, "
                  "or (edge) a TU folder with edge labels")
        ->required();
    c->add_option("--format", a->format, "auto|linqs|csv|smi|sdf|tu|edgelist|snap")->capture_default_str();
    c->add_flag("--directed", a->directed, "node/link/edge: the edge list is directed (default: undirected)");
    c->add_option("--feature-file", a->feature_file, "node/link/edge on an edge list: node features, CSV id,f1,f2,...");
    c->add_option("--label-file", a->label_file, "node (required with an edge list), link/edge: node labels, CSV id,label or 'id label' lines");
    c->add_option("--node-features", a->node_features,
                  "features | degree | lap:K, and embedding:D for link/edge (default: features when the data has them, else degree (node) or "
                  "embedding:64 (link/edge))");
    c->add_option("--decoder", a->decoder, "link: dot | hadamard-mlp")->check(CLI::IsMember({"dot", "hadamard-mlp"}))->capture_default_str();
    c->add_option("--out-channels", a->out_channels, "link/edge: width of the node vectors the decoder sees (default 64)");
    c->add_option("--smiles-column", a->smiles_column, "CSV column with the SMILES (default: the one named smiles)");
    c->add_option("--target-columns", a->target_columns, "Label columns (CSV) or SD properties")->delimiter(',');
    c->add_option("--target-type", a->target_type, "binary|multiclass|regression (default: inferred, see docs/cli.md)");
    c->add_option("--model-type", a->model_type, "gat | fingerprint (graph: Morgan bits + logistic/ridge) | heuristic:common-neighbours|jaccard|adamic-adar (link)")->capture_default_str();
    c->add_option("--on-invalid", a->on_invalid, "skip|fail: what to do with rows RDKit rejects")
        ->check(CLI::IsMember({"skip", "fail"}))
        ->capture_default_str();
    c->add_option("--invalid-out", a->invalid_out, "Write skipped rows as CSV row,smiles,reason (default: MODEL.invalid.csv)");
    c->add_option("--split", a->split, "node: planetoid|random|stratified (default: planetoid for LINQS and Cora-sized label sets, else stratified); "
                  "graph: random|stratified|scaffold|kfold:K (default random); link/edge: random");
    c->add_option("--split-file", a->split_file, "node: CSV node_id,split (train|val|test) instead of --split");
    c->add_option("--split-sizes", a->split_sizes, "train,val,test fractions (node 0.6,0.2,0.2 of the labelled nodes; graph and edge 0.8,0.1,0.1; link 0.85,0.05,0.10)");
    c->add_option("--split-column", a->split_column, "graph: a CSV column holding train|val|test");
    c->add_option("--split-out", a->split_out,
                  "graph: write the split as CSV row,smiles,split (row: the line in the input file, as in the invalid-rows report; with kfold:K a fold column after row)");
    c->add_option("--conv", a->conv, "Attention layer: gat | gatv2 | transformer (dot-product, PyG TransformerConv)")
        ->check(CLI::IsMember({"gat", "gatv2", "transformer"}))
        ->capture_default_str();
    c->add_option("--mask", a->mask, "Who attends to whom: edges | khop:K | full")->capture_default_str();
    c->add_option("--max-full-nodes", a->max_full_nodes, "--mask full: largest graph allowed")->capture_default_str();
    c->add_option("--block", a->block, "plain | transformer (attention, residual, LayerNorm, feed-forward, residual, LayerNorm)")
        ->check(CLI::IsMember({"plain", "transformer"}))
        ->capture_default_str();
    c->add_option("--pe", a->pe, "Positional encoding: none | lap:K | rw:K")->capture_default_str();
    c->add_option("--pe-mode", a->pe_mode, "concat (extra input columns) | add (a learned projection added to the features)")
        ->check(CLI::IsMember({"concat", "add"}))
        ->capture_default_str();
    c->add_option("--layers", a->layers, "Attention layers (node 2, graph 3, link/edge 2)");
    c->add_option("--heads", a->heads, "Heads per hidden layer (node 8, graph 4, link/edge 4)");
    c->add_option("--hidden", a->hidden, "Channels per head (node 8, graph 64, link/edge 32)");
    c->add_option("--out-heads", a->out_heads, "node: heads of the output layer (averaged)")->capture_default_str();
    c->add_option("--readout", a->readout,
                  "graph: mean|sum|max|attention, or several joined by + (mean+max: both side by side, PyG MultiAggregation); default mean+max for "
                  "molecules (CSV, .smi, SDF), mean for TU graphs");
    c->add_option("--metric", a->metric,
                  "graph: validation metric early stopping selects on (binary roc_auc|pr_auc|accuracy|f1|mcc|loss, multiclass "
                  "accuracy|f1|loss, regression rmse|mae|r2|loss; default roc_auc, accuracy, rmse; ties go to the lower validation loss)");
    c->add_option("--mlp-hidden", a->mlp_hidden, "graph, edge, hadamard-mlp: hidden width of the MLP head")->capture_default_str();
    c->add_flag("--no-edge-features", a->no_edge_features, "graph: leave bond features out of the attention score");
    c->add_option("--mol-features", a->mol_features,
                  "graph, molecules: molecule-level features entering the MLP head beside the readout (Chemprop's --features_generator): "
                  "none | rdkit2d (RDKit descriptors and MQN counts, standardised on the training set) | morgan (2048 Morgan bits, radius 2) | "
                  "both, comma-separated (rdkit2d,morgan); default rdkit2d for molecules with --model-type gat, none otherwise");
    c->add_option("--activation", a->activation, "Between layers: elu|relu|leaky_relu")->capture_default_str();
    c->add_option("--negative-slope", a->negative_slope, "LeakyReLU slope in the attention score")->capture_default_str();
    c->add_flag("--residual", a->residual, "Residual connections in every layer: out += x·W_res, as PyG's GATConv(residual=True) (default for graph)");
    c->add_flag("--no-residual", a->no_residual, "No residual connections (default for node, link and edge)");
    c->add_option("--root-weight", a->root_weight,
                  "--conv transformer: on | off, the skip W_r x_i added to the attention output (PyG root_weight; default off for "
                  "--task node, on otherwise)")
        ->check(CLI::IsMember({"on", "off"}));
    c->add_flag("--beta", a->beta, "--conv transformer: a learned gate between the skip and the attention output (PyG beta=True)");
    c->add_option("--dropout", a->dropout, "Dropout on layer inputs (node 0.6; link/edge 0.5 with the data's own features; else 0)");
    c->add_option("--attn-dropout", a->attn_dropout, "Dropout on attention coefficients (node 0.6, others 0)");
    c->add_option("--epochs", a->epochs, "Maximum epochs (node 1000, graph 100, link/edge 200)");
    c->add_option("--lr", a->lr, "Learning rate (node 0.005, graph 0.001, link/edge 0.005)");
    c->add_option("--lr-schedule", a->lr_schedule,
                  "graph: constant | noam (Chemprop's: warm-up from lr/10 to --lr, then exponential decay to lr/10 at --epochs) | "
                  "cosine (the same warm-up, then a half cosine down to lr/10)")
        ->check(CLI::IsMember({"constant", "noam", "cosine"}))
        ->capture_default_str();
    c->add_option("--warmup-epochs", a->warmup_epochs, "graph, with --lr-schedule noam|cosine: epochs of linear warm-up (default 2)");
    c->add_option("--weight-decay", a->weight_decay, "L2 weight decay; decoupled with --optimizer adamw (node 5e-4; link/edge 5e-4 with the data's own features; else 0)");
    c->add_option("--optimizer", a->optimizer, "adam|adamw")->check(CLI::IsMember({"adam", "adamw"}))->capture_default_str();
    c->add_option("--patience", a->patience, "Early stopping patience in epochs, 0: off (node 100, graph 20, link/edge 50)")->check(integer_at_least(0));
    c->add_option("--batch-size", a->batch_size, "graph: graphs per batch")->capture_default_str();
    c->add_option("--seed", a->seed, "Seed for the split, initialisation, shuffling and dropout")->capture_default_str()->check(seed_value());
    c->add_option("--init-seed", a->init_seed,
                  "Seed for initialisation, shuffling and dropout only (default: from --seed); the split stays that of --seed")->check(seed_value());
    c->add_option("--ensemble-size", a->ensemble_size,
                  "graph: train N models on the same split, each from its own seed (member k ≥ 1 as --init-seed S+k would, S = --init-seed "
                  "or --seed), and average their predictions (Chemprop's --ensemble_size); all N go into one model file")
        ->capture_default_str();
    c->add_option("--threads", a->threads, "Threads (default: all cores)")->check(thread_count_check());
    c->add_option("--out", a->out, "Model file to write")->required();
    c->add_option("--metrics-json", a->metrics_json, "Write metrics as one JSON object");
    c->add_option("--checkpoint", a->checkpoint,
                  "Checkpoint file (default: MODEL.ckpt), written every --checkpoint-every epochs and when SIGINT/SIGTERM stops training");
    c->add_option("--checkpoint-every", a->checkpoint_every, "Write a checkpoint at the end of every N-th epoch (0: only when interrupted)")
        ->capture_default_str();
    c->add_option("--resume", a->resume, "Continue the run that wrote this checkpoint (repeat its options; --epochs and --patience may change)");
    c->add_flag("--quiet", a->quiet, "No progress or summary on stderr");
    c->callback([&action, a, c] {
        action = [a, c] {
            check_flags_apply(*c, a->task, a->model_type);
            return run_train(*a);
        };
    });
}

}  // namespace gatkit::cli
