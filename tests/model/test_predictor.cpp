// The public API: train_molecules (options + progress callback), Predictor on SMILES, RDKit
// molecules, data sets, a user's own graph (gatkit's and Boost.Graph's), embeddings and
// attention, thread scoping and the errors it promises.
#include "support/cli.hpp"
#include "support/fixtures.hpp"

#include "gatkit/gatkit.hpp"

#include "gatkit/chem/featurize.hpp"
#include "gatkit/chem/mol_features.hpp"
#include "gatkit/chem/smiles.hpp"
#include "gatkit/graph/generators.hpp"
#include "gatkit/train/loss.hpp"

#include <GraphMol/ROMol.h>
#include <GraphMol/RWMol.h>
#include <GraphMol/SmilesParse/SmilesParse.h>
#include <boost/graph/adjacency_list.hpp>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

using namespace gatkit;
using gatkit::test::read_text;
using gatkit::test::run_gatkit;
using gatkit::test::TempDir;

namespace {

const std::vector<std::string>& kSmiles = gatkit::test::kNitrogenSmiles;
std::string molecule_csv() { return gatkit::test::nitrogen_molecules_csv(); }
MoleculeTrainOptions small_options() { return gatkit::test::small_molecule_options(); }
// Without the molecules' default rdkit2d descriptors in the head, so the model also predicts
// graphs built by hand (predict_graph, predict on graphs without SMILES).
MoleculeTrainOptions graph_only_options() {
    MoleculeTrainOptions o = small_options();
    o.fit.mol_features = "none";
    return o;
}

// A small trained molecule model in `dir` (training takes a fraction of a second), graph only.
std::string trained_model(TempDir& dir) {
    const std::string path = dir.file("m.gatkit");
    MoleculeTrainResult r = train_molecules(dir.write("mols.csv", molecule_csv()), graph_only_options());
    save_model(path, r.model);
    return path;
}

}  // namespace

TEST_CASE("train_molecules matches gatkit train with the same options and seed, and reports each epoch", "[api]") {
    TempDir dir;
    const std::string data = dir.write("mols.csv", molecule_csv());
    std::vector<int> epochs;
    MoleculeTrainResult r = train_molecules(data, small_options(), [&](const GraphEpochStats& s) { epochs.push_back(s.epoch); });
    CHECK(epochs == std::vector<int>{1, 2, 3});
    CHECK(r.result.epochs_run == 3);
    CHECK(r.target_type == "binary");
    CHECK(r.report.n_skipped() == 0);
    CHECK(r.split.train.size() + r.split.val.size() + r.split.test.size() == kSmiles.size());
    REQUIRE(r.result.test.count("roc_auc") == 1);

    const auto cli = run_gatkit("train --task graph --data " + data + " --target-columns has_n --threads 1 --quiet --epochs 3 --layers 2 --heads 2 " +
                                "--hidden 8 --mlp-hidden 8 --out " + dir.file("cli.gatkit") + " --metrics-json " + dir.file("m.json"));
    REQUIRE(cli.exit_code == 0);
    const auto m = nlohmann::json::parse(read_text(dir.file("m.json")));
    CHECK(m["test_roc_auc"].get<double>() == Approx(r.result.test.at("roc_auc")).margin(1e-12));
    CHECK(m["val_accuracy"].get<double>() == Approx(r.result.val.at("accuracy")).margin(1e-12));
    // Same weights: the saved files predict the same numbers.
    Predictor a = Predictor::load(dir.file("cli.gatkit"));
    save_model(dir.file("lib.gatkit"), r.model);
    Predictor b = Predictor::load(dir.file("lib.gatkit"));
    const Matrix pa = a.predict_smiles(kSmiles).values, pb = b.predict_smiles(kSmiles).values;
    CHECK(pa == pb);
}

TEST_CASE("train_molecules refuses impossible options with gatkit errors", "[api]") {
    TempDir dir;
    const std::string data = dir.write("mols.csv", molecule_csv());
    MoleculeTrainOptions o = small_options();
    o.split = "sideways";
    CHECK_THROWS_AS(train_molecules(data, o), ConfigError);
    o = small_options();
    o.target_columns = {"no_such_column"};
    CHECK_THROWS_AS(train_molecules(data, o), Error);
    o = small_options();
    o.target_columns.clear();
    CHECK_THROWS_AS(train_molecules(data, o), ConfigError);
    CHECK_THROWS_AS(train_molecules(dir.file("missing.csv"), small_options()), IoError);
    o = small_options();
    o.fail_on_invalid = true;
    const std::string bad = dir.write("bad.csv", molecule_csv() + "C1CC,1\n");
    CHECK_THROWS_WITH(train_molecules(bad, o), Catch::Contains("bad.csv:26"));
}

TEST_CASE("Predictor predicts SMILES with one row per input and the reason for invalid ones", "[api]") {
    TempDir dir;
    Predictor p = Predictor::load(trained_model(dir), {.threads = 1});
    CHECK(p.kind() == "graph");
    CHECK(p.columns() == std::vector<std::string>{"p_has_n"});
    const Predictions r = p.predict_smiles({"CCN", "C1CC", "", "c1ccccc1O"});
    REQUIRE(r.values.rows() == 4);
    REQUIRE(r.values.cols() == 1);
    CHECK(r.ok(0));
    CHECK_FALSE(r.ok(1));
    CHECK_FALSE(r.errors[1].empty());
    CHECK(std::isnan(r.values(1, 0)));
    CHECK_FALSE(r.ok(2));
    CHECK(r.ok(3));
    CHECK(r.values(0, 0) > 0.0f);
    CHECK(r.values(0, 0) < 1.0f);

    // The same molecules as RDKit objects, and as a featurised data set: the same numbers.
    const auto m0 = chem::parse_smiles("CCN"), m3 = chem::parse_smiles("c1ccccc1O");
    const Predictions viamol = p.predict_molecules({m0.get(), nullptr, m3.get()});
    CHECK(viamol.values(0, 0) == r.values(0, 0));
    CHECK(viamol.values(2, 0) == r.values(3, 0));
    CHECK_FALSE(viamol.ok(1));
    GraphDataset data;
    data.graphs = {chem::featurize_molecule(*m0), chem::featurize_molecule(*m3)};
    const Predictions viadata = p.predict(data);
    CHECK(viadata.values(0, 0) == r.values(0, 0));
    CHECK(viadata.values(1, 0) == r.values(3, 0));

    // A user's graph: the molecule's own graph and features, then as a Boost.Graph graph.
    const GraphSample s = chem::featurize_molecule(*m3);
    CHECK(p.predict_graph(s.graph, s.x, &s.edge_attr).values(0, 0) == Approx(r.values(3, 0)).epsilon(1e-5));
    boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS> bgl(static_cast<std::size_t>(s.x.rows()));
    std::vector<std::pair<NodeId, NodeId>> bonds;
    for (const auto& [u, v] : s.graph.edge_list())
        if (u < v) bonds.emplace_back(u, v);
    Matrix bond_attr(static_cast<Eigen::Index>(bonds.size()), s.edge_attr.cols());
    const auto edges = s.graph.edge_list();
    for (std::size_t k = 0; k < bonds.size(); ++k) {
        boost::add_edge(static_cast<std::size_t>(bonds[k].first), static_cast<std::size_t>(bonds[k].second), bgl);
        for (std::size_t e = 0; e < edges.size(); ++e)
            if (edges[e] == bonds[k]) bond_attr.row(static_cast<Eigen::Index>(k)) = s.edge_attr.row(static_cast<Eigen::Index>(e));
    }
    CHECK(p.predict_graph_bgl(bgl, s.x, &bond_attr).values(0, 0) == Approx(r.values(3, 0)).epsilon(1e-5));
    // Shapes that do not fit are ShapeErrors, not crashes.
    CHECK_THROWS_AS(p.predict_graph(s.graph, s.x, nullptr), ShapeError);
    CHECK_THROWS_AS(p.predict_graph(s.graph, s.x.leftCols(3), &s.edge_attr), ShapeError);
    CHECK_THROWS_AS(p.predict_graph_bgl(bgl, s.x, &s.edge_attr), ShapeError);
}

TEST_CASE("Predictor turns what RDKit throws on a caller's molecule into that row's error", "[api]") {
    TempDir dir;
    Predictor p = Predictor::load(trained_model(dir), {.threads = 2});
    // A molecule parsed without sanitising has no implicit valences computed (ring information
    // featurize_molecule perceives itself): featurising it throws RDKit's own precondition
    // exception, not a gatkit error (the premise).
    RDKit::SmilesParserParams raw_params;
    raw_params.sanitize = false;
    raw_params.removeHs = false;  // removing Hs would compute the valences
    std::vector<std::unique_ptr<RDKit::RWMol>> raw;
    for (int k = 0; k < 4; ++k) raw.emplace_back(RDKit::SmilesToMol("c1ccccc1O", raw_params));
    REQUIRE(raw.front());
    bool rdkit_threw = false;
    try {
        (void)chem::featurize_molecule(*raw.front());
    } catch (const Error&) {
    } catch (const std::exception&) {
        rdkit_threw = true;
    }
    REQUIRE(rdkit_threw);
    // Among 40 good molecules on two threads (items in several chunks): before, the exception
    // left the OpenMP region and ended the program; now those rows carry the reason.
    const auto good = chem::parse_smiles("CCN");
    std::vector<const RDKit::ROMol*> mols;
    for (int i = 0; i < 40; ++i) mols.push_back(i % 10 == 3 ? raw[static_cast<std::size_t>(i / 10)].get() : good.get());
    const Predictions r = p.predict_molecules(mols);
    REQUIRE(r.values.rows() == 40);
    for (std::size_t i = 0; i < 40; ++i) {
        INFO("row " << i);
        if (i % 10 == 3) {
            CHECK_FALSE(r.ok(i));
            CHECK_THAT(r.errors[i], Catch::StartsWith("RDKit failed on this molecule: "));
            CHECK(std::isnan(r.values(static_cast<Eigen::Index>(i), 0)));
        } else {
            CHECK(r.ok(i));
            CHECK(r.values(static_cast<Eigen::Index>(i), 0) == r.values(0, 0));
        }
    }
}

TEST_CASE("A joined readout (mean+max) feeds the head both pools side by side and survives the model file", "[api][readout]") {
    TempDir dir;
    MoleculeTrainOptions o = small_options();
    o.fit.model.readout = "mean+max";
    MoleculeTrainResult r = train_molecules(dir.write("mols.csv", molecule_csv()), o);
    const std::string path = dir.file("mm.gatkit");
    save_model(path, r.model);
    Predictor p = Predictor::load(path, {.threads = 1, .batch_size = 5});
    CHECK(p.config().readout == "mean+max");
    // The head's first weight takes 2 × (2 heads × 8 channels) rows, then one per rdkit2d
    // descriptor (the molecules' default).
    REQUIRE(p.config().graph_dim == static_cast<int>(chem::molecule_feature_names("rdkit2d").size()));
    bool head_is_wide = false;
    for (auto* w : p.model().parameters())
        if (w->name == "head.0.weight") head_is_wide = w->value.rows() == 32 + p.config().graph_dim;
    CHECK(head_is_wide);

    const Matrix emb = p.graph_embeddings({"c1ccncc1"});
    REQUIRE(emb.cols() == 32);
    const auto mol = chem::parse_smiles("c1ccncc1");
    const GraphSample s = chem::featurize_molecule(*mol);
    const Matrix nodes = p.node_embeddings(s.graph, s.x, &s.edge_attr);
    REQUIRE(nodes.cols() == 16);
    CHECK(emb.leftCols(16).isApprox(nodes.colwise().mean(), 1e-5f));
    CHECK(emb.rightCols(16) == nodes.colwise().maxCoeff());

    // gatkit train takes the same option and writes the same model.
    const Matrix trained = p.predict_smiles(kSmiles).values;
    CHECK(trained.allFinite());
    const auto cli = run_gatkit("train --task graph --data " + dir.file("mols.csv") + " --target-columns has_n --threads 1 --quiet --epochs 3 " +
                                "--layers 2 --heads 2 --hidden 8 --mlp-hidden 8 --readout mean+max --out " + dir.file("cli.gatkit"));
    REQUIRE(cli.exit_code == 0);
    CHECK(Predictor::load(dir.file("cli.gatkit"), {.threads = 1, .batch_size = 5}).predict_smiles(kSmiles).values == trained);
    const auto twice = run_gatkit("train --task graph --data " + dir.file("mols.csv") + " --target-columns has_n --quiet --epochs 1 " +
                                  "--readout mean+mean --out " + dir.file("bad.gatkit"));
    CHECK(twice.exit_code != 0);
    CHECK_THAT(twice.err, Catch::Contains("'mean' twice"));
    CHECK_FALSE(std::filesystem::exists(dir.file("bad.gatkit")));
}

TEST_CASE("Predictor on the molecules' default model (rdkit2d in the head): molecules predict, a user's graph gives node vectors and "
          "attention but no prediction",
          "[api][mol_features]") {
    TempDir dir;
    MoleculeTrainResult r = train_molecules(dir.write("mols.csv", molecule_csv()), small_options());
    REQUIRE(r.model.info().graph_features == "rdkit2d");
    save_model(dir.file("m.gatkit"), r.model);
    Predictor p = Predictor::load(dir.file("m.gatkit"), {.threads = 1});
    const auto mol = chem::parse_smiles("c1ccncc1");
    const Predictions by_smiles = p.predict_smiles({"c1ccncc1"}), by_mol = p.predict_molecules({mol.get()});
    REQUIRE(by_smiles.ok(0));
    CHECK(by_mol.values(0, 0) == by_smiles.values(0, 0));
    // Graphs with their SMILES get the descriptors computed; graphs without are refused.
    GraphDataset data;
    data.graphs = {chem::featurize_molecule(*mol)};
    data.smiles = {"c1ccncc1"};
    CHECK(p.predict(data).values(0, 0) == by_smiles.values(0, 0));
    data.smiles.clear();
    CHECK_THROWS_WITH(p.predict(data), Catch::Contains("rdkit2d molecule-level features"));
    const GraphSample s = chem::featurize_molecule(*mol);
    CHECK_THROWS_WITH(p.predict_graph(s.graph, s.x, &s.edge_attr), Catch::Contains("use predict_smiles or predict_molecules"));
    // Node vectors and attention come before the head, so they need no descriptors: the same as
    // from the molecule itself.
    const Matrix nodes = p.node_embeddings(s.graph, s.x, &s.edge_attr);
    CHECK(nodes.rows() == s.x.rows());
    CHECK(nodes.allFinite());
    const Matrix pooled = p.graph_embeddings({"c1ccncc1"});
    CHECK(pooled.leftCols(nodes.cols()).isApprox(nodes.colwise().mean(), 1e-5f));
    const std::vector<AttentionWeight> from_graph = p.attention(s.graph, s.x, &s.edge_attr), from_smiles = p.molecule_attention("c1ccncc1");
    REQUIRE(from_graph.size() == from_smiles.size());
    for (std::size_t k = 0; k < from_graph.size(); ++k) CHECK(from_graph[k].alpha == Approx(from_smiles[k].alpha).margin(1e-6));
}

TEST_CASE("Predictor gives graph embeddings, node embeddings and attention that sums to one", "[api]") {
    TempDir dir;
    Predictor p = Predictor::load(trained_model(dir), {.threads = 1, .batch_size = 5});
    std::vector<std::string> errors;
    const Matrix emb = p.graph_embeddings({"CCO", "not smiles", "c1ccncc1"}, &errors);
    REQUIRE(emb.rows() == 3);
    CHECK(emb.cols() == 32);  // the mean and the max (the molecules' default readout) of 2 heads × 8 channels
    CHECK(errors[0].empty());
    CHECK_FALSE(errors[1].empty());
    CHECK(std::isnan(emb(1, 0)));
    CHECK(std::isfinite(emb(2, 5)));
    // The pooled vector of a molecule does not depend on what else is in the batch.
    const Matrix alone = p.graph_embeddings({"c1ccncc1"});
    CHECK(alone.row(0).isApprox(emb.row(2), 1e-6f));
    // No valid input: as many NaN rows, and still the readout's width.
    const Matrix none = p.graph_embeddings({"not smiles", "C1CC"}, &errors);
    CHECK(none.rows() == 2);
    CHECK(none.cols() == 32);
    CHECK(none.array().isNaN().all());
    CHECK_FALSE(errors[1].empty());

    const auto mol = chem::parse_smiles("c1ccncc1");
    const GraphSample s = chem::featurize_molecule(*mol);
    const Matrix nodes = p.node_embeddings(s.graph, s.x, &s.edge_attr);
    CHECK(nodes.rows() == 6);
    CHECK(nodes.cols() == 16);
    // The default readout for molecules, mean+max: the graph vector is the mean of the node
    // vectors, then their maximum.
    CHECK(p.config().readout == "mean+max");
    CHECK(nodes.colwise().mean().isApprox(alone.row(0).leftCols(16), 1e-5f));
    CHECK(nodes.colwise().maxCoeff() == alone.row(0).rightCols(16));

    const std::vector<AttentionWeight> att = p.molecule_attention("c1ccncc1");
    std::map<std::tuple<int, int, NodeId>, double> sums;
    int self_loops = 0;
    for (const auto& w : att) {
        sums[{w.layer, w.head, w.dst}] += w.alpha;
        self_loops += w.self_loop;
        CHECK(w.src >= 0);
        CHECK(w.src < 6);
    }
    CHECK(sums.size() == 2 * 2 * 6);  // layers × heads × atoms
    for (const auto& [key, sum] : sums) CHECK(sum == Approx(1.0).margin(1e-5));
    CHECK(self_loops == 2 * 2 * 6);
    CHECK_THROWS_AS(p.molecule_attention("C1CC"), ParseError);
}

TEST_CASE("Predictor bounds threads only while it runs", "[api]") {
    TempDir dir;
    const std::string model = trained_model(dir);
    set_thread_count(2);
    Predictor p = Predictor::load(model, {.threads = 1});
    int inside = 0;
    {
        ThreadScope scope(1);
        inside = thread_count();
    }
    CHECK(inside == 1);
    p.predict_smiles({"CCO"});
    CHECK(thread_count() == 2);
    CHECK_THROWS_AS(Predictor::load(model, {.threads = -1}), ConfigError);
    CHECK_THROWS_AS(ThreadScope(-2), ConfigError);
}

TEST_CASE("Predictor on a node model predicts a user's graph and refuses molecule calls", "[api]") {
    Rng rng(3);
    const Graph g = make_undirected(test::random_graph(40, 0.1, rng));
    Matrix x = test::random_matrix<float>(40, 5, rng).cwiseAbs();
    ModelConfig c;
    c.task = "node";
    c.in_features = 5;
    c.num_classes = 3;
    c.heads = 2;
    c.hidden = 4;
    Model model(c, 7);
    model.info().class_names = {"a", "b", "c"};
    TempDir dir;
    save_model(dir.file("node.gatkit"), model);
    Predictor p = Predictor::load(dir.file("node.gatkit"));
    CHECK(p.kind() == "node");
    CHECK(p.columns() == std::vector<std::string>{"p_a", "p_b", "p_c"});
    const Predictions r = p.predict_graph(g, x);
    REQUIRE(r.values.rows() == 40);
    Matrix normalized = x;
    row_normalize(normalized);
    const Matrix expected = softmax_rows(model.forward(g, normalized, false));
    CHECK(r.values == expected);
    CHECK(p.node_embeddings(g, x).rows() == 40);
    CHECK(p.attention(g, x).size() > 0);
    CHECK_THROWS_AS(p.predict_smiles({"CCO"}), ConfigError);
    CHECK_THROWS_AS(p.predict_graph(g, x.topRows(10)), ShapeError);
}

TEST_CASE("Predictor::load names what is wrong with a file it cannot use", "[api]") {
    TempDir dir;
    CHECK_THROWS_AS(Predictor::load(dir.file("absent.gatkit")), IoError);
    CHECK_THROWS_WITH(Predictor::load(dir.write("junk.gatkit", "not a model at all")), Catch::Contains("junk.gatkit"));
    // A model made with another featurizer.
    MoleculeTrainResult r = train_molecules(dir.write("mols.csv", molecule_csv()), small_options());
    r.model.info().featurizer = "atoms-v0";
    save_model(dir.file("old.gatkit"), r.model);
    CHECK_THROWS_WITH(Predictor::load(dir.file("old.gatkit")), Catch::Contains("featurizer 'atoms-v0'"));
}

TEST_CASE("Predictor on an ensemble: the mean of its members' predictions, their embeddings side by side, every member's attention",
          "[api][ensemble]") {
    TempDir dir;
    const std::string data = dir.write("mols.csv", molecule_csv());
    MoleculeTrainOptions o = graph_only_options();  // predict_graph below
    std::vector<Model> models;
    for (std::uint64_t seed : {1, 2}) {
        o.seed = seed;
        models.push_back(train_molecules(data, o).model);
    }
    save_model(dir.file("a.gatkit"), models[0]);
    save_model(dir.file("b.gatkit"), models[1]);
    save_model_ensemble(dir.file("ens.gatkit"), {&models[0], &models[1]});
    Predictor a = Predictor::load(dir.file("a.gatkit"), {.threads = 1});
    Predictor b = Predictor::load(dir.file("b.gatkit"), {.threads = 1});
    Predictor e = Predictor::load(dir.file("ens.gatkit"), {.threads = 1});
    CHECK(a.ensemble_size() == 1);
    REQUIRE(e.ensemble_size() == 2);
    CHECK(e.columns() == a.columns());

    const std::vector<std::string> smiles = {"CCN", "C1CC", "c1ccccc1O", "c1ccncc1"};
    const Predictions pa = a.predict_smiles(smiles), pb = b.predict_smiles(smiles), pe = e.predict_smiles(smiles);
    CHECK(pa.values(0, 0) != pb.values(0, 0));  // two different members
    for (Eigen::Index i : {0, 2, 3}) CHECK(pe.values(i, 0) == Approx((pa.values(i, 0) + pb.values(i, 0)) / 2).margin(1e-6));
    CHECK_FALSE(pe.ok(1));
    const auto mol = chem::parse_smiles("c1ccncc1");
    const GraphSample s = chem::featurize_molecule(*mol);
    CHECK(e.predict_graph(s.graph, s.x, &s.edge_attr).values(0, 0) == Approx(pe.values(3, 0)).epsilon(1e-5));

    const Matrix ga = a.graph_embeddings({"c1ccncc1"}), gb = b.graph_embeddings({"c1ccncc1"}), ge = e.graph_embeddings({"c1ccncc1"});
    REQUIRE(ge.cols() == 2 * ga.cols());
    CHECK(ge.leftCols(ga.cols()).isApprox(ga, 1e-6f));
    CHECK(ge.rightCols(gb.cols()).isApprox(gb, 1e-6f));
    const Matrix ne = e.node_embeddings(s.graph, s.x, &s.edge_attr), na = a.node_embeddings(s.graph, s.x, &s.edge_attr);
    CHECK(ne.cols() == 2 * na.cols());
    CHECK(ne.leftCols(na.cols()).isApprox(na, 1e-6f));

    const std::vector<AttentionWeight> aa = a.molecule_attention("c1ccncc1"), ab = b.molecule_attention("c1ccncc1"),
                                       ae = e.molecule_attention("c1ccncc1");
    REQUIRE(ae.size() == aa.size() + ab.size());
    for (std::size_t k = 0; k < aa.size(); ++k) {
        CHECK(ae[k].member == 0);
        CHECK(ae[k].alpha == Approx(aa[k].alpha).margin(1e-6));
        CHECK(ae[aa.size() + k].member == 1);
        CHECK(ae[aa.size() + k].alpha == Approx(ab[k].alpha).margin(1e-6));
    }
    CHECK(&e.model(1) != &e.model(0));
    CHECK_THROWS_AS(e.model(2), ConfigError);
}

TEST_CASE("train_molecules with ensemble_size matches gatkit train --ensemble-size, members told apart in the progress", "[api][ensemble]") {
    TempDir dir;
    const std::string data = dir.write("mols.csv", molecule_csv());
    MoleculeTrainOptions o = small_options();
    o.ensemble_size = 3;
    o.init_seed = 5;
    std::vector<int> members;
    MoleculeTrainResult r = train_molecules(data, o, [&](const GraphEpochStats& s) { members.push_back(s.member); });
    CHECK(members == std::vector<int>{0, 0, 0, 1, 1, 1, 2, 2, 2});
    REQUIRE(r.more_members.size() == 2);
    REQUIRE(r.member_results.size() == 3);
    REQUIRE(r.members().size() == 3);
    save_model_ensemble(dir.file("lib.gatkit"), r.members());

    const auto cli = run_gatkit("train --task graph --data " + data + " --target-columns has_n --threads 1 --quiet --epochs 3 --layers 2 --heads 2 " +
                                "--hidden 8 --mlp-hidden 8 --init-seed 5 --ensemble-size 3 --out " + dir.file("cli.gatkit") + " --metrics-json " +
                                dir.file("m.json"));
    REQUIRE(cli.exit_code == 0);
    const auto m = nlohmann::json::parse(read_text(dir.file("m.json")));
    CHECK(m["test_roc_auc"].get<double>() == Approx(r.result.test.at("roc_auc")).margin(1e-12));
    CHECK(m["members"][2]["val_accuracy"].get<double>() == Approx(r.member_results[2].val.at("accuracy")).margin(1e-12));
    Predictor a = Predictor::load(dir.file("cli.gatkit")), b = Predictor::load(dir.file("lib.gatkit"));
    CHECK(b.ensemble_size() == 3);
    CHECK(a.predict_smiles(kSmiles).values == b.predict_smiles(kSmiles).values);
    // Member 3 is the single run of init seed 5 + 2.
    o.ensemble_size = 1;
    o.init_seed = 7;
    MoleculeTrainResult single = train_molecules(data, o);
    CHECK(single.more_members.empty());
    const auto pa = single.model.parameters(), pb = r.more_members[1].parameters();
    for (std::size_t k = 0; k < pa.size(); ++k) CHECK(pa[k]->value == pb[k]->value);
    o.ensemble_size = 0;
    CHECK_THROWS_AS(train_molecules(data, o), ConfigError);
}
