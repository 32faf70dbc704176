// Molecule-level features (Chemprop's --features_generator): the RDKit descriptor and Morgan
// columns, the model's head on [readout ‖ standardised features] against a dense reference and
// finite differences, the training set's scaling, model files, the Predictor and the command line.
#include "support/cli.hpp"
#include "support/fixtures.hpp"
#include "support/gradcheck.hpp"

#include "gatkit/gatkit.hpp"

#include "gatkit/chem/featurize.hpp"
#include "gatkit/chem/fingerprint.hpp"
#include "gatkit/chem/mol_features.hpp"
#include "gatkit/chem/rdkit2d.hpp"
#include "gatkit/chem/smiles.hpp"
#include "gatkit/io/csv.hpp"
#include "gatkit/train/loss.hpp"

#include <GraphMol/Descriptors/MolDescriptors.h>
#include <GraphMol/Descriptors/Property.h>
#include <GraphMol/ROMol.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

using namespace gatkit;
using Catch::Matchers::Contains;
using gatkit::test::random_matrix;
using gatkit::test::read_text;
using gatkit::test::run_gatkit;
using gatkit::test::TempDir;

namespace {

std::size_t column_of(const std::string& kind, const std::string& name) {
    const auto& names = chem::molecule_feature_names(kind);
    const auto it = std::find(names.begin(), names.end(), name);
    REQUIRE(it != names.end());
    return static_cast<std::size_t>(it - names.begin());
}

const std::vector<std::string>& kSmiles = gatkit::test::kNitrogenSmiles;

GraphDataset featurized(const std::vector<std::string>& smiles, const std::string& kind) {
    GraphDataset data;
    for (const auto& s : smiles) {
        data.graphs.push_back(chem::featurize_molecule(*chem::parse_smiles(s)));
        data.smiles.push_back(s);
    }
    add_molecule_features(data, kind);
    return data;
}

ModelConfig small_graph_config(int graph_dim) {
    ModelConfig c = graph_model_defaults();
    c.in_features = chem::atom_feature_width();
    c.edge_dim = chem::bond_feature_width();
    c.layers = 2;
    c.heads = 2;
    c.hidden = 3;
    c.mlp_hidden = 6;
    c.num_classes = 2;
    c.target_type = "binary";
    c.graph_dim = graph_dim;
    return c;
}

}  // namespace

TEST_CASE("rdkit2d columns are RDKit's descriptors then the 42 MQN counts, morgan columns are the fingerprint's bits", "[chem][mol_features]") {
    const auto aspirin = chem::parse_smiles("CC(=O)Oc1ccccc1C(=O)O");
    const std::vector<float> d = chem::molecule_features(*aspirin, "rdkit2d");
    const auto& names = chem::molecule_feature_names("rdkit2d");
    REQUIRE(d.size() == names.size());
    CHECK(names.size() > 42 + 30);  // RDKit 2022.09 registers 43 descriptors
    CHECK(names.back() == "MQN42");
    CHECK(d[column_of("rdkit2d", "exactmw")] == Approx(180.042).epsilon(1e-5));
    CHECK(d[column_of("rdkit2d", "NumHBD")] == 1);
    CHECK(d[column_of("rdkit2d", "NumAromaticRings")] == 1);
    CHECK(d[column_of("rdkit2d", "NumHeavyAtoms")] == 13);
    CHECK(d[column_of("rdkit2d", "MQN1")] == 9);  // carbons
    CHECK(d[column_of("rdkit2d", "MQN10")] == 4);  // acyclic oxygens
    CHECK(d[column_of("rdkit2d", "MQN11")] == 0);  // cyclic oxygens
    for (const float v : d) CHECK(std::isfinite(v));

    const std::vector<float> m = chem::molecule_features(*aspirin, "morgan");
    REQUIRE(m.size() == 2048);
    std::vector<std::uint32_t> on;
    for (std::size_t k = 0; k < m.size(); ++k) {
        CHECK((m[k] == 0.0f || m[k] == 1.0f));
        if (m[k] == 1.0f) on.push_back(static_cast<std::uint32_t>(k));
    }
    CHECK(on == chem::morgan_bits(*aspirin));
    CHECK(chem::molecule_features(*aspirin, "none").empty());
    CHECK(chem::molecule_feature_standardised("rdkit2d") == std::vector<bool>(names.size(), true));
    CHECK(chem::molecule_feature_standardised("morgan") == std::vector<bool>(2048, false));

    // Kinds combine with a comma, in the order given.
    const std::vector<float> both = chem::molecule_features(*aspirin, "rdkit2d,morgan");
    REQUIRE(both.size() == d.size() + m.size());
    CHECK(std::equal(d.begin(), d.end(), both.begin()));
    CHECK(std::equal(m.begin(), m.end(), both.begin() + static_cast<std::ptrdiff_t>(d.size())));
    const auto& both_names = chem::molecule_feature_names("rdkit2d,morgan");
    REQUIRE(both_names.size() == both.size());
    CHECK(both_names[d.size()] == "morgan0");
    const std::vector<bool> scaled = chem::molecule_feature_standardised("morgan,rdkit2d");
    CHECK_FALSE(scaled.front());
    CHECK(scaled.back());

    CHECK_THROWS_AS(chem::molecule_features(*aspirin, "rdkit3d"), ConfigError);
    CHECK_THROWS_WITH(chem::check_molecule_features("ecfp"), Contains("not one of rdkit2d, morgan"));
    CHECK_THROWS_WITH(chem::check_molecule_features("morgan,morgan"), Contains("twice"));
    for (const char* bad : {"", ",", "rdkit2d,", "none,morgan", "RDKIT2D"}) {
        CAPTURE(bad);
        CHECK_THROWS_AS(chem::check_molecule_features(bad), ConfigError);
    }
}

namespace {

// RDKit's own rdkit2d values: every registered descriptor (computeProperties), then the MQNs.
std::vector<float> rdkit_reference(const RDKit::ROMol& mol) {
    static const RDKit::Descriptors::Properties properties;
    std::vector<float> out;
    for (const double v : properties.computeProperties(mol)) out.push_back(std::isfinite(v) ? static_cast<float>(v) : 0.0f);
    for (const unsigned v : RDKit::Descriptors::calcMQNs(mol)) out.push_back(static_cast<float>(v));
    return out;
}

// Checks gatkit's rdkit2d columns against RDKit's, value for value, on every SMILES that parses;
// returns how many were compared.
std::size_t check_rdkit2d_against_rdkit(const std::vector<std::string>& smiles, const std::string& where) {
    const auto& names = chem::molecule_feature_names("rdkit2d");
    std::size_t compared = 0, differing = 0;
    for (const std::string& s : smiles) {
        std::unique_ptr<RDKit::ROMol> mol;
        try {
            mol = chem::parse_smiles(s);
        } catch (const Error&) {
            continue;  // invalid rows are the readers' business
        }
        // Fresh parses: RDKit caches some descriptors on the molecule.
        const std::vector<float> ours = chem::molecule_features(*mol, "rdkit2d");
        const std::vector<float> theirs = rdkit_reference(*chem::parse_smiles(s));
        REQUIRE(ours.size() == theirs.size());
        ++compared;
        for (std::size_t k = 0; k < ours.size(); ++k)
            if (ours[k] != theirs[k] && ++differing <= 5)
                FAIL_CHECK(where << ": " << s << " column " << names[k] << ": gatkit " << ours[k] << ", RDKit " << theirs[k]);
    }
    CHECK(differing == 0);
    return compared;
}

}  // namespace

TEST_CASE("rdkit2d: the columns gatkit computes itself (chi, kappa, Phi, rotatable bonds, Crippen, MQN) are RDKit's values on first_5K and on ring-rich molecules",
          "[chem][mol_features]") {
    // On this RDKit: the nine columns RDKit computes from bond paths come from the walk, the
    // rotatable bonds from the pattern compiled once, Crippen's two from the pruned typing, the
    // MQNs from gatkit's counts (if a future RDKit changed one, its probe check would hand it
    // back to RDKit, and this fails).
    std::vector<std::string> expected = {"NumRotatableBonds", "CrippenClogP", "CrippenMR", "chi2v", "chi3v", "chi4v",
                                         "chi2n",             "chi3n",        "chi4n",     "kappa2", "kappa3", "Phi"};
    for (int k = 1; k <= 42; ++k) expected.push_back("MQN" + std::to_string(k));
    CHECK(chem::rdkit2d_own_columns() == expected);

    // Small rings, lollipops (a ring of 3 with a tail), bridges, spiro atoms, cages, explicit and
    // isotopic hydrogens, metals, salts, lone atoms.
    const std::vector<std::string> tricky = {
        "C1CC1",           "CC1CC1",          "CCC1CC1",        "CC1CC1C",         "C1CC12CC2",        "C1CCC1",          "CC1CCC1C",
        "C12C3C1C23",      "C12C3C4C1C4C23",  "C1CC2CC1C2",     "C1CC2(C1)CCC2",   "c1ccc2c(c1)C1CC21", "[H]C([H])([H])[H]", "[2H]OC1CC1[2H]",
        "[H][H]",          "[Na+].[Cl-]",     "C",              "O",               "CC",               "[Fe+2].[O-]C1CC1", "C1=CC=CC=C1S(=O)(=O)N1CC1",
        "OP(=O)(O)OC1CC1", "ClC1(Cl)CC1(Br)I", "N#CC1CC1C#N",   "C[Si]1(C)CC1",    "C1CC1C1CC1",       "C1CC1CC1CC1",     "C1OC1C1OC1",
        "CC(=O)N(C)C",     "CC(C)(C)C(C)(C)C", "FC(F)(F)C(F)(F)F", "ClC(Cl)(Cl)CC(=O)OC", "C[N+](C)=C(N)CC", "CCSC(=S)NCC", "CC#CC#CCO",
    };
    CHECK(check_rdkit2d_against_rdkit(tricky, "ring-rich molecules") == tricky.size());

    const std::string nci = "/usr/share/RDKit/Data/NCI/first_5K.smi";  // Debian's rdkit-data
    if (!std::filesystem::exists(nci)) {
        std::cout << "SKIPPED: " << nci << " not found (rdkit-data)\n";
        WARN("SKIPPED: " << nci << " not found (rdkit-data)");
        return;
    }
    std::vector<std::string> smiles;
    std::ifstream in(nci);
    std::string line;
    while (std::getline(in, line)) smiles.push_back(line.substr(0, line.find_first_of(" \t")));
    CHECK(check_rdkit2d_against_rdkit(smiles, nci) > 4900);
}

TEST_CASE("rdkit2d: gatkit's values are RDKit's on the MoleculeNet files", "[chem][mol_features][shared-data]") {
    const std::string dir = std::string(GATKIT_SHARED_DATA) + "/moleculenet/";
    // HIV's 41,127 molecules agree too (checked by hand, ~40 s); left out to keep the suite short.
    for (const char* file : {"BBBP.csv", "clintox.csv", "delaney-processed.csv", "Lipophilicity.csv", "tox21.csv"}) {
        const std::string path = dir + file;
        if (!std::filesystem::exists(path)) {
            std::cout << "SKIPPED: " << path << " not found\n";
            WARN("SKIPPED: " << path << " not found");
            continue;
        }
        CsvReader csv(path);
        const std::size_t col = csv.column("smiles");
        std::vector<std::string> fields, smiles;
        while (csv.next(fields)) smiles.push_back(fields[col]);
        CHECK(check_rdkit2d_against_rdkit(smiles, path) > smiles.size() * 9 / 10);
    }
}

TEST_CASE("add_molecule_features fills u from the SMILES with 1 and 2 threads, and refuses graphs without SMILES", "[chem][mol_features][threads]") {
    const int saved = thread_count();
    set_thread_count(1);
    const GraphDataset one = featurized(kSmiles, "rdkit2d");
    set_thread_count(2);
    const GraphDataset two = featurized(kSmiles, "rdkit2d");
    set_thread_count(saved);
    for (std::size_t g = 0; g < kSmiles.size(); ++g) {
        const std::vector<float> expected = chem::molecule_features(*chem::parse_smiles(kSmiles[g]), "rdkit2d");
        REQUIRE(one.graphs[g].u.rows() == 1);
        REQUIRE(one.graphs[g].u.cols() == static_cast<Eigen::Index>(expected.size()));
        for (std::size_t k = 0; k < expected.size(); ++k) CHECK(one.graphs[g].u(0, static_cast<Eigen::Index>(k)) == expected[k]);
        CHECK(one.graphs[g].u == two.graphs[g].u);
    }
    // A molecule whose features cannot be computed: a zero row and its reason (try_), or the error.
    GraphDataset bad = one;
    bad.smiles[3] = "C1CC";
    bad.source_rows.assign(bad.size(), 0);
    bad.source_rows[3] = 5;
    const std::vector<std::string> reasons = try_add_molecule_features(bad, "rdkit2d");
    CHECK(reasons[2].empty());
    CHECK_THAT(reasons[3], Contains("molecule features (rdkit2d)"));
    CHECK(bad.graphs[3].u.isZero());
    CHECK(bad.graphs[3].u.cols() == one.graphs[3].u.cols());
    CHECK(bad.graphs[2].u == one.graphs[2].u);
    CHECK_THROWS_WITH(add_molecule_features(bad, "rdkit2d"), Contains("'C1CC' (row 5)"));

    GraphDataset tu;
    tu.name = "MUTAG";
    tu.graphs.resize(2);
    CHECK_THROWS_WITH(add_molecule_features(tu, "rdkit2d"), Contains("need molecules") && Contains("MUTAG"));
    CHECK_NOTHROW(add_molecule_features(tu, "none"));
}

TEST_CASE("The head sees [readout ‖ clipped standardised u]: dense reference and finite differences", "[model][mol_features][gradcheck]") {
    const std::vector<std::string> smiles = {"CCO", "c1ccncc1", "CC(=O)N", "OCCO"};
    GraphDataset data = featurized(smiles, "rdkit2d");
    const auto U = static_cast<int>(data.graphs.front().u.cols());
    Model model(small_graph_config(U), 5);
    auto& info = model.info();
    info.graph_features = "rdkit2d";
    Rng rng(3);
    for (int k = 0; k < U; ++k) {
        info.graph_feature_mean.push_back(rng.uniform() * 10);
        info.graph_feature_std.push_back(0.5 + rng.uniform() * 20);
    }
    // One column far outside the training range, to see the clip.
    info.graph_feature_mean[0] = 0;
    info.graph_feature_std[0] = 1;
    data.graphs[1].u(0, 0) = 1e4f;
    const GraphBatchData b = make_batch_data(data, {0, 1, 2, 3});
    REQUIRE(b.u.rows() == 4);
    const Matrix out = model.forward(b.batch, b.x, &b.edge_attr, false, nullptr, &b.u);

    // Dense reference: the MLP head (Linear, ReLU, Linear) on the concatenated row, by hand.
    const Matrix pooled = model.graph_embeddings();
    Matrix in(4, pooled.cols() + U);
    in.leftCols(pooled.cols()) = pooled;
    for (Eigen::Index g = 0; g < 4; ++g)
        for (int k = 0; k < U; ++k) {
            const double z = (b.u(g, k) - info.graph_feature_mean[static_cast<std::size_t>(k)]) / info.graph_feature_std[static_cast<std::size_t>(k)];
            in(g, pooled.cols() + k) = static_cast<float>(std::clamp(z, -6.0, 6.0));
        }
    CHECK(in(1, pooled.cols()) == 6.0f);
    const Matrix* w0 = nullptr;
    const Matrix *b0 = nullptr, *w1 = nullptr, *b1 = nullptr;
    for (auto* p : model.parameters()) {
        if (p->name == "head.0.weight") w0 = &p->value;
        if (p->name == "head.0.bias") b0 = &p->value;
        if (p->name == "head.3.weight") w1 = &p->value;
        if (p->name == "head.3.bias") b1 = &p->value;
    }
    REQUIRE((w0 && b0 && w1 && b1));
    REQUIRE(w0->rows() == pooled.cols() + U);
    const Eigen::MatrixXd hidden = ((in.cast<double>() * w0->cast<double>()).rowwise() + b0->cast<double>().row(0)).cwiseMax(0.0);
    const Eigen::MatrixXd expected = (hidden * w1->cast<double>()).rowwise() + b1->cast<double>().row(0);
    for (Eigen::Index i = 0; i < out.rows(); ++i)
        for (Eigen::Index j = 0; j < out.cols(); ++j) CHECK(out(i, j) == Approx(expected(i, j)).margin(1e-4));

    // Changing u changes the output; a missing or mis-sized u is refused.
    Matrix u2 = b.u;
    u2(2, 3) += 5 * static_cast<float>(info.graph_feature_std[3]);
    CHECK((model.forward(b.batch, b.x, &b.edge_attr, false, nullptr, &u2) - out).norm() > 1e-6);
    CHECK_THROWS_AS(model.forward(b.batch, b.x, &b.edge_attr, false), ShapeError);
    const Matrix short_u = b.u.leftCols(U - 1);
    CHECK_THROWS_WITH(model.forward(b.batch, b.x, &b.edge_attr, false, nullptr, &short_u), Contains("molecule-level features"));

    // Finite differences (float, a few entries of every parameter; kinks skipped) of Σ out ⊙ w.
    const Matrix w = random_matrix<float>(out.rows(), out.cols(), rng);
    auto loss = [&] { return static_cast<double>((model.forward(b.batch, b.x, &b.edge_attr, false, nullptr, &b.u).array() * w.array()).cast<double>().sum()); };
    auto params = model.parameters();
    zero_grads(params);
    model.forward(b.batch, b.x, &b.edge_attr, false, nullptr, &b.u);
    model.backward(w);
    const auto n = gatkit::test::check_float_gradients(params, loss, 9);
    CHECK(n.checked > 30);
    CHECK(n.kinks * 10 <= n.checked);
    // head.0.weight rows past the pooled width belong to u: they learn too.
    bool u_rows_have_gradient = false;
    for (auto* p : params)
        if (p->name == "head.0.weight") u_rows_have_gradient = p->grad.bottomRows(U).norm() > 0;
    CHECK(u_rows_have_gradient);
}

TEST_CASE("Training standardises u with the training graphs only, model files keep the scaling, predictions match", "[train][mol_features]") {
    TempDir dir;
    MoleculeTrainOptions o = gatkit::test::small_molecule_options();
    o.fit.mol_features = "rdkit2d";
    MoleculeTrainResult r = train_molecules(dir.write("mols.csv", gatkit::test::nitrogen_molecules_csv()), o);
    const ModelInfo& info = r.model.info();
    const auto& names = chem::molecule_feature_names("rdkit2d");
    REQUIRE(r.model.config().graph_dim == static_cast<int>(names.size()));
    CHECK(info.graph_features == "rdkit2d");
    CHECK(info.graph_feature_names == names);
    // The mean of each column over the training molecules (the split's indices into kSmiles).
    const std::size_t col = column_of("rdkit2d", "exactmw");
    double sum = 0;
    for (const std::size_t i : r.split.train) sum += chem::molecule_features(*chem::parse_smiles(kSmiles[i]), "rdkit2d")[col];
    CHECK(info.graph_feature_mean[col] == Approx(sum / static_cast<double>(r.split.train.size())).epsilon(1e-6));
    CHECK(info.graph_feature_std[col] > 1);

    const std::string path = dir.file("m.gatkit");
    save_model(path, r.model);
    const Model loaded = load_model(path);
    CHECK(loaded.info().graph_feature_mean == info.graph_feature_mean);
    CHECK(loaded.info().graph_feature_std == info.graph_feature_std);

    Predictor p = Predictor::load(path);
    const std::vector<std::string> query = {"CCN", "not a smiles", "c1ccncc1"};
    const Predictions from_smiles = p.predict_smiles(query);
    CHECK_FALSE(from_smiles.ok(1));
    const GraphDataset data = featurized({"CCN", "c1ccncc1"}, "rdkit2d");
    const Predictions from_data = p.predict(data);
    CHECK(from_data.values(0, 0) == Approx(from_smiles.values(0, 0)).margin(1e-6));
    CHECK(from_data.values(1, 0) == Approx(from_smiles.values(2, 0)).margin(1e-6));
    // The same graphs without u are given it from their SMILES; without SMILES they are refused.
    GraphDataset bare = data;
    for (auto& g : bare.graphs) g.u.resize(0, 0);
    CHECK(p.predict(bare).values(1, 0) == Approx(from_smiles.values(2, 0)).margin(1e-6));
    bare.smiles.clear();
    CHECK_THROWS_WITH(p.predict(bare), Contains("rdkit2d"));
    CHECK_THROWS_WITH(p.predict_graph(data.graphs[0].graph, data.graphs[0].x, &data.graphs[0].edge_attr), Contains("predict_smiles"));
    CHECK_NOTHROW(p.molecule_attention("CCN"));

    // A model file whose columns are not this gatkit's is refused with the reason.
    Model renamed = load_model(path);
    renamed.info().graph_feature_names.back() = "MQN43";
    save_model(dir.file("renamed.gatkit"), renamed);
    CHECK_THROWS_WITH(load_model(dir.file("renamed.gatkit")), Contains("differ from this gatkit's") && Contains("train the model again"));
}

TEST_CASE("gatkit train --mol-features: CLI training, prediction beside the library's, and refusals", "[cli][mol_features]") {
    TempDir dir;
    const std::string csv = dir.write("mols.csv", gatkit::test::nitrogen_molecules_csv());
    const std::string model = dir.file("m.gatkit");
    for (const std::string kind : {"rdkit2d", "morgan", "rdkit2d,morgan"}) {
        CAPTURE(kind);
        const auto r = run_gatkit("train --task graph --data " + csv + " --target-columns has_n --epochs 2 --layers 1 --heads 2 --hidden 4 --mlp-hidden 8 " +
                                  "--threads 1 --quiet --mol-features " + kind + " --out " + model + " --metrics-json " + dir.file("m.json"));
        REQUIRE(r.exit_code == 0);
        CHECK(nlohmann::json::parse(read_text(dir.file("m.json"))).at("mol_features") == kind);
        const auto info = run_gatkit("info --model " + model);
        CHECK_THAT(info.out, Contains("molecule features " + kind));
        const std::string queries = dir.write("q.smi", "CCN one\nC1CC bad\nc1ccncc1 two\n");
        const auto pr = run_gatkit("predict --model " + model + " --data " + queries + " --out " + dir.file("p.csv"));
        REQUIRE(pr.exit_code == 0);
        const std::string preds = read_text(dir.file("p.csv"));
        Predictor p = Predictor::load(model);
        const Predictions lib = p.predict_smiles({"CCN", "c1ccncc1"});
        CHECK_THAT(preds, Contains("CCN,one," + std::to_string(lib.values(0, 0)).substr(0, 6)));
        CHECK_THAT(preds, Contains("c1ccncc1,two," + std::to_string(lib.values(1, 0)).substr(0, 6)));
        CHECK_THAT(preds, Contains("C1CC,bad,,"));
        const auto ex = run_gatkit("explain --model " + model + " --smiles CCN --out " + dir.file("a.svg"));
        CHECK(ex.exit_code == 0);
        const std::string pictures = dir.file("pictures-" + std::to_string(kind.size()));
        const auto exd = run_gatkit("explain --model " + model + " --data " + queries + " --out-dir " + pictures);
        CHECK(exd.exit_code == 0);
        CHECK(std::filesystem::exists(pictures + "/row-1.svg"));
        CHECK(std::filesystem::exists(pictures + "/row-3.svg"));
        CHECK_THAT(read_text(pictures + "/index.csv"), Contains("2,C1CC,"));
    }
    const auto node = run_gatkit("train --task node --data " + csv + " --mol-features rdkit2d --out " + model);
    CHECK(node.exit_code != 0);
    CHECK_THAT(node.err, Contains("--mol-features rdkit2d goes with --task graph"));
    const auto fp = run_gatkit("train --task graph --model-type fingerprint --data " + csv + " --target-columns has_n --mol-features morgan --out " + model);
    CHECK(fp.exit_code != 0);
    CHECK_THAT(fp.err, Contains("--model-type gat"));
    const auto bad = run_gatkit("train --task graph --data " + csv + " --target-columns has_n --mol-features rdkit3d --out " + model);
    CHECK(bad.exit_code != 0);
    CHECK_THAT(bad.err, Contains("--mol-features: molecule features 'rdkit3d'"));
    // TU graphs have no SMILES.
    const std::string tu = (dir.path() / "TINY").string();
    std::filesystem::create_directory(tu);
    dir.write("TINY/TINY_A.txt", "1, 2\n2, 1\n3, 4\n4, 3\n");
    dir.write("TINY/TINY_graph_indicator.txt", "1\n1\n2\n2\n");
    dir.write("TINY/TINY_graph_labels.txt", "1\n-1\n");
    const auto t = run_gatkit("train --task graph --data " + tu + " --mol-features rdkit2d --out " + model);
    CHECK(t.exit_code != 0);
    CHECK_THAT(t.err, Contains("needs molecules"));
}
