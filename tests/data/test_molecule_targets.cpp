// The molecule targets of issue 3 on the real data (../shared/data), through the real command
//   gatkit train --task graph --data FILE --target-columns COLS --seed S --threads 2 ...
// with default settings, seeds 0–2. Hidden from the default run ([.]): a few minutes of training
// whose last bits depend on the machine's vector width (AVX-512 and AVX2 kernels sum in other
// orders), and BBBP clears its bar by 0.003 on the Zen 4 machine (docs/results.md). Run them with
//   build/tests/gatkit_tests "[molecule-targets]"
// HIV (10+ minutes a seed) and PROTEINS (3–4 minutes a seed) are measured by the commands in
// docs/results.md instead. Skips visibly without the data.
#include "support/fixtures.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

namespace {

const std::string kData = GATKIT_SHARED_DATA;

bool have(const std::string& path) {
    if (std::filesystem::exists(path)) return true;
    std::cout << "SKIPPED: " << path << " not found; this molecule target was not measured\n";
    WARN("SKIPPED: " << path << " not found");
    return false;
}

// The mean of test_<metric> over seeds 0-2 of `gatkit train --task graph <args>`, defaults otherwise.
double mean_over_seeds(const gatkit::test::TempDir& dir, const std::string& name, const std::string& args, const std::string& metric) {
    double sum = 0;
    for (int seed = 0; seed < 3; ++seed) {
        const std::string tag = name + std::to_string(seed), metrics = dir.file(tag + ".json");
        const std::string cmd = std::string(GATKIT_CLI) + " train --task graph " + args + " --seed " + std::to_string(seed) +
                                " --threads 2 --quiet --out " + dir.file(tag + ".gat") + " --metrics-json " + metrics + " > " +
                                dir.file(tag + ".log") + " 2>&1";
        REQUIRE(std::system(cmd.c_str()) == 0);
        std::ifstream in(metrics);
        const double v = nlohmann::json::parse(in).at("test_" + metric).get<double>();
        std::cout << name << " seed " << seed << ": test " << metric << " " << v << "\n";
        sum += v;
    }
    std::cout << name << ": mean test " << metric << " over seeds 0-2 = " << sum / 3 << "\n";
    return sum / 3;
}

}  // namespace

TEST_CASE("MoleculeNet with default settings, seeds 0-2: BBBP ROC-AUC >= 0.90, ESOL RMSE <= 0.70, Tox21 ROC-AUC >= 0.80",
          "[.][molecule-targets]") {
    const std::string mn = kData + "/moleculenet";
    gatkit::test::TempDir dir;
    if (have(mn + "/BBBP.csv")) CHECK(mean_over_seeds(dir, "bbbp", "--data " + mn + "/BBBP.csv --target-columns p_np", "roc_auc") >= 0.90);
    if (have(mn + "/delaney-processed.csv"))
        CHECK(mean_over_seeds(dir, "esol", "--data " + mn + "/delaney-processed.csv --target-columns 'measured log solubility in mols per litre'",
                              "rmse") <= 0.70);
    if (have(mn + "/tox21.csv"))
        CHECK(mean_over_seeds(dir, "tox21",
                              "--data " + mn + "/tox21.csv --target-columns NR-AR NR-AR-LBD NR-AhR NR-Aromatase NR-ER NR-ER-LBD "
                              "NR-PPAR-gamma SR-ARE SR-ATAD5 SR-HSE SR-MMP SR-p53",
                              "roc_auc") >= 0.80);
}

TEST_CASE("MUTAG with default settings, 10-fold cross-validation, seeds 0-2: mean accuracy >= 0.85", "[.][molecule-targets]") {
    const std::string mutag = kData + "/tu/MUTAG";
    if (!have(mutag)) return;
    gatkit::test::TempDir dir;
    CHECK(mean_over_seeds(dir, "mutag", "--data " + mutag + " --split kfold:10", "accuracy") >= 0.85);
}
