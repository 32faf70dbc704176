// examples/embed: gatkit used as a library by a program of its own (CMakeLists.txt beside this
// file: find_package(gatkit) and gatkit::gatkit). It trains a small molecule classifier from a
// CSV, saves it, loads it back as a Predictor, predicts new SMILES (one of them invalid) and
// prints attention weights. docs/library.md walks through it.
//
//   embed molecules.csv [target-column]     (molecules.csv: smiles,active; active = aromatic)
#include <gatkit/gatkit.hpp>

#include <cstdio>
#include <string>
#include <vector>

int main(int argc, char** argv) try {
    if (argc < 2) {
        std::fprintf(stderr, "usage: embed molecules.csv [target-column]\n");
        return 2;
    }

    // 1. Train a binary classifier on a CSV of SMILES. gatkit never prints: progress arrives
    //    through the callback, once per epoch.
    gatkit::MoleculeTrainOptions opt;
    opt.target_columns = {argc > 2 ? argv[2] : "active"};
    opt.split = "stratified";            // both classes in validation and test
    opt.split_sizes = {0.6, 0.2, 0.2};
    opt.threads = 2;
    opt.fit.model.layers = 2;            // a small model for a tiny data set
    opt.fit.model.hidden = 16;
    opt.fit.train.epochs = 20;
    opt.fit.train.batch_size = 8;
    opt.fit.train.adam.lr = 0.003;
    gatkit::MoleculeTrainResult r = gatkit::train_molecules(argv[1], opt, [](const gatkit::GraphEpochStats& s) {
        std::printf("epoch %d  loss %.4f  val %s %.3f%s\n", s.epoch, s.train_loss, s.val_metric.c_str(),
                    s.val_score, s.best ? "  (best)" : "");
    });
    for (const gatkit::LoadIssue& issue : r.report.skipped)  // rows RDKit rejects are skipped and reported
        std::printf("skipped %s:%zu: %s\n", issue.file.c_str(), issue.line, issue.reason.c_str());
    for (const auto& [metric, value] : r.result.test) std::printf("test %s %.3f\n", metric.c_str(), value);

    // 2. Save the model, then load it as a Predictor: a program that only predicts starts here.
    gatkit::save_model("embed.gatkit", r.model);
    gatkit::Predictor predictor = gatkit::Predictor::load("embed.gatkit", {.threads = 2});

    // 3. Predict new molecules. An invalid SMILES is no exception: its row is NaN and errors[i]
    //    says why, so the rows always line up with the inputs.
    const std::vector<std::string> smiles = {"c1ccccc1O", "CCCCO", "not-a-smiles"};
    gatkit::Predictions pred = predictor.predict_smiles(smiles);
    std::printf("predictions of %s\n", pred.columns.at(0).c_str());
    for (std::size_t i = 0; i < smiles.size(); ++i) {
        if (pred.ok(i)) std::printf("  %s: %.3f\n", smiles[i].c_str(), pred.values(i, 0));
        else std::printf("  %s: error: %s\n", smiles[i].c_str(), pred.errors[i].c_str());
    }

    // 4. Attention in phenol (c1ccccc1O): what ring carbon 5 attends to — itself, its ring
    //    neighbours 0 and 4 and the oxygen 6. Per layer and head the weights sum to 1.
    std::printf("attention of atom 5 in c1ccccc1O, last layer, head 0\n");
    for (const gatkit::AttentionWeight& a : predictor.molecule_attention("c1ccccc1O"))
        if (a.layer == opt.fit.model.layers - 1 && a.head == 0 && a.dst == 5)
            std::printf("  from atom %d%s: %.3f\n", a.src, a.self_loop ? " (self)" : "", a.alpha);
    return 0;
} catch (const gatkit::Error& e) {  // every gatkit failure is a gatkit::Error that names its cause
    std::fprintf(stderr, "embed: %s\n", e.what());
    return 1;
}
