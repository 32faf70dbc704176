// End-to-end tests of `gatkit train --task graph` and `gatkit predict` on molecules and TU graphs:
// the real binary runs on a small molecule CSV written here (salts, charges, aromatic rings, a
// one-atom molecule, quoted names with commas, CRLF rows, missing labels, two invalid SMILES) and
// on a tiny TU-format folder. Every run is tiny (one thread, a few epochs, a narrow model).
#include "gatkit/chem/mol_features.hpp"
#include "gatkit/model/model_file.hpp"

#include "support/cli.hpp"
#include "support/fixtures.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace fs = std::filesystem;
using gatkit::test::CliResult;
using gatkit::test::has;
using gatkit::test::TempDir;
using gatkit::test::shell_quote;
using gatkit::test::run_gatkit;
using gatkit::test::read_text;
using gatkit::test::lines_of;

namespace {

bool begins(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// RFC 4180 records (quoted fields with commas, doubled quotes, CRLF or LF), header included.
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> row;
    std::string field;
    bool quoted = false, any = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
                field += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                field += c;
            }
            continue;
        }
        if (c == '"') {
            quoted = true;
            any = true;
        } else if (c == ',') {
            row.push_back(field);
            field.clear();
            any = true;
        } else if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
            // CRLF: the '\n' ends the record
        } else if (c == '\n') {
            row.push_back(field);
            rows.push_back(row);
            row.clear();
            field.clear();
            any = false;
        } else {
            field += c;
            any = true;
        }
    }
    if (any || !field.empty()) {
        row.push_back(field);
        rows.push_back(row);
    }
    return rows;
}

nlohmann::json load_json(const std::string& path) { return nlohmann::json::parse(read_text(path)); }

// The user-error contract: exit 1 (2: a usage error, flags missing or given together that cannot
// be), stderr is one "gatkit: error: ..." line, optionally followed by one "hint: ..." line.
void require_one_line_error(const CliResult& r, int exit_code = 1) {
    INFO("stdout: " << r.out << "\nstderr: " << r.err);
    REQUIRE(r.exit_code == exit_code);
    const auto lines = lines_of(r.err);
    REQUIRE(!lines.empty());
    REQUIRE(lines.size() <= 2);
    CHECK(begins(lines[0], "gatkit: error: "));
    if (lines.size() == 2) CHECK(begins(lines[1], "hint: "));
}

// No model file and no "<name>.tmp.*" leftover next to it.
void require_no_model(const std::string& path) {
    CHECK_FALSE(fs::exists(path));
    const std::string name = fs::path(path).filename().string();
    for (const auto& entry : fs::directory_iterator(fs::path(path).parent_path()))
        CHECK_FALSE(begins(entry.path().filename().string(), name + ".tmp"));
}

// RDKit log lines start with a "[HH:MM:SS]" timestamp; none may reach stderr.
bool has_rdkit_log_line(const std::string& err) {
    static const std::regex stamp(R"(\[\d\d:\d\d:\d\d\])");
    return std::regex_search(err, stamp);
}

// ---- the molecule fixture ----------------------------------------------------------------------

const char* const kSmiles[] = {
    "CC(=O)Oc1ccccc1C(=O)O",                         // aspirin
    "CC(=O)Nc1ccc(O)cc1",                            // paracetamol
    "CN1C=NC2=C1C(=O)N(C(=O)N2C)C",                  // caffeine
    "CC(C)Cc1ccc(cc1)C(C)C(=O)O",                    // ibuprofen
    "C",                                             // methane: one atom, no bonds
    "CCO",                                           // ethanol
    "c1ccccc1",                                      // benzene
    "c1ccncc1",                                      // pyridine
    "CN(C)CCCN1c2ccccc2CCc2ccccc21",                 // imipramine
    "CC(C)NCC(O)c1ccc(O)c(O)c1",                     // isoproterenol
    "O=C(O)c1ccccc1O",                               // salicylic acid
    "CC12CCC3C(CCC4=CC(=O)CCC34C)C1CCC2O",           // testosterone
    "[Na+].[O-]C(=O)c1ccccc1",                       // sodium benzoate (salt)
    "Cl.CN1CCC[C@H]1c1cccnc1",                       // nicotine hydrochloride (salt)
    "CC(=O)[O-].[NH4+]",                             // ammonium acetate (salt, charges)
    "C[N+](C)(C)CCO",                                // choline (charge)
    "OC[C@H]1OC(O)[C@H](O)[C@@H](O)[C@@H]1O",        // glucose
    "CC(C)(C)NCC(O)c1ccc(O)c(CO)c1",                 // salbutamol
    "COc1ccc2[nH]cc(CCN(C)C)c2c1",                   // 5-MeO-DMT
    "O=C1CCCCC1",                                    // cyclohexanone
    "CCCCCCCCCCCCCCCC(=O)O",                         // palmitic acid
    "Clc1ccc(cc1)C(c1ccccc1)N1CCN(CC1)CCOCC(=O)O",   // cetirizine
    "CCOC(C)=O",                                     // ethyl acetate
    "c1ccc2ccccc2c1",                                // naphthalene
    "Oc1ccccc1",                                     // phenol
    "NCCc1ccc(O)c(O)c1",                             // dopamine
    "CC(N)Cc1ccccc1",                                // amphetamine
    "O=C(O)CCC(=O)O",                                // succinic acid
    "CC(C)=CCCC(C)=CCO",                             // geraniol
    "COc1ccc(CC=C)cc1",                              // estragole
    "O=c1cc(-c2ccccc2)oc2ccccc12",                   // flavone
    "CC1=CC(=O)C=CC1=O",                             // methyl-p-benzoquinone
    "ClCCl",                                         // dichloromethane
    "FC(F)(F)c1ccccc1",                              // benzotrifluoride
    "OCC(O)CO",                                      // glycerol
    "NC(=O)N",                                       // urea
    "C1CCNCC1",                                      // piperidine
    "c1ccc2[nH]ccc2c1",                              // indole
    "Nc1ccccc1",                                     // aniline
    "CC#N",                                          // acetonitrile
    "O=[N+]([O-])c1ccccc1",                          // nitrobenzene (charges)
    "CC(=O)N1CCCC1",                                 // N-acetylpyrrolidine
    "c1cnc[nH]1",                                    // imidazole
    "NC(Cc1ccccc1)C(=O)O",                           // phenylalanine
    "NCC(=O)O",                                      // glycine
    "C[NH3+].[Cl-]",                                 // methylammonium chloride (salt)
    "CN1C(=O)CN=C(c2ccccc2)c2cc(Cl)ccc21",           // diazepam
    "CCN(CC)CC",                                     // triethylamine
    "OC(=O)c1cccnc1",                                // nicotinic acid
    "CC(C)C[C@H](N)C(=O)O",                          // leucine
    "O=C(c1ccccc1)c1ccccc1",                         // benzophenone
    "CC(=O)C",                                       // acetone
    "OC(=O)C(=O)O",                                  // oxalic acid
    "CCCCO",                                         // butanol
    "c1ccsc1",                                       // thiophene
    "CC(=O)c1ccc(O)cc1",                             // 4-hydroxyacetophenone
    "O=C(O)/C=C/C(=O)O",                             // fumaric acid
    "[K+].[O-]C(=O)CC",                              // potassium propanoate (salt)
    "CSC",                                           // dimethyl sulfide
    "COc1cc(C=O)ccc1O",                              // vanillin
};
constexpr int kValid = static_cast<int>(sizeof kSmiles / sizeof kSmiles[0]);  // 60

// 1 when the molecule has a nitrogen ("N" other than sodium's "Na", or aromatic "n").
int has_nitrogen(const std::string& s) {
    for (std::size_t i = 0; i < s.size(); ++i)
        if ((s[i] == 'N' && (i + 1 == s.size() || s[i + 1] != 'a')) || s[i] == 'n') return 1;
    return 0;
}

int has_oxygen(const std::string& s) { return s.find_first_of("Oo") != std::string::npos ? 1 : 0; }

struct MolRow {
    std::vector<std::string> fields;  // name, smiles, active, logp_like, second (as written)
    bool valid = true;
    bool crlf = false;
};

// The fixture's rows: the 60 molecules with the 2 invalid SMILES inserted at rows 11 and 42.
std::vector<MolRow> molecule_rows() {
    std::vector<MolRow> rows;
    int k = 0;
    for (int i = 0; i < kValid + 2; ++i) {
        MolRow r;
        std::string smiles, active = "0", logp = "0.5", second = "1";
        if (i == 10) {
            smiles = "C1CC(N";  // unclosed ring and branch: a syntax error
            r.valid = false;
        } else if (i == 41) {
            smiles = "[NH5]";  // five bonds to nitrogen: a valence error
            r.valid = false;
        } else {
            smiles = kSmiles[k];
            active = std::to_string(has_nitrogen(smiles));
            // any numbers: 0.3 per carbon, minus 0.7 per oxygen and per nitrogen
            double v = -0.2;
            for (const char c : smiles) v += (c == 'C' || c == 'c') ? 0.3 : (c == 'O' || c == 'o' || c == 'N' || c == 'n') ? -0.7 : 0.0;
            std::ostringstream s;
            s << v;
            logp = s.str();
            second = k % 5 == 3 ? "" : std::to_string(has_oxygen(smiles));  // every fifth label missing
            ++k;
        }
        const std::string name = i == 7 ? "Drug \"seven\", the \"quoted\" one" : "Drug " + std::to_string(i + 1) + ", lot A, batch " +
                                                                                 std::to_string(i % 3);
        r.fields = {name, smiles, active, logp, second};
        r.crlf = i >= 20 && i < 35;
        rows.push_back(r);
    }
    return rows;
}

std::string csv_quote(const std::string& s) {
    std::string q = "\"";
    for (const char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

// Writes DIR/mols.csv: header name,smiles,active,logp_like,second; names quoted (they hold
// commas); rows 21..35 end in CRLF.
std::string write_molecules(const TempDir& dir, const std::string& file = "mols.csv") {
    std::string text = "name,smiles,active,logp_like,second\n";
    for (const auto& r : molecule_rows()) {
        text += csv_quote(r.fields[0]);
        for (std::size_t k = 1; k < r.fields.size(); ++k) text += "," + r.fields[k];
        text += r.crlf ? "\r\n" : "\n";
    }
    return dir.write(file, text);
}

// Flags every train run shares: tiny and single-threaded.
const std::string kTiny = " --threads 1 --epochs 5 --layers 1 --heads 2 --hidden 8 --mlp-hidden 16 --batch-size 8 --lr 0.01 --seed 1";
// kTiny for the attention model; the fingerprint baseline refuses its layer and training flags.
std::string tiny_for(const std::string& extra) {
    return extra.find("--model-type fingerprint") == std::string::npos ? kTiny : std::string(" --threads 1 --seed 1");
}

// ---- the TU fixture ---------------------------------------------------------------------------

// DIR/DS/DS_*.txt: 18 small graphs (3-5 nodes); label 1 graphs are rings whose nodes mostly
// carry node label 1, label -1 graphs are chains with node label 0. With `graphs` (0-based),
// only those graphs of the 18, in that order, in DIR/<name>/<name>_*.txt.
std::string write_tu(const TempDir& dir, const std::vector<int>& graphs = {}, const std::string& name = "DS") {
    fs::create_directories(dir.file(name));
    std::string a, indicator, graph_labels, node_labels;
    int next = 1;  // 1-based global node id
    std::vector<int> all(18);
    for (int g = 0; g < 18; ++g) all[static_cast<std::size_t>(g)] = g;
    int id = 0;  // the graph's id in this folder, 0-based
    for (const int g : graphs.empty() ? all : graphs) {
        const bool positive = g % 2 == 1;
        const int n = 3 + g % 3;
        for (int i = 0; i < n; ++i) {
            indicator += std::to_string(id + 1) + "\n";
            node_labels += std::to_string(positive ? (i == 0 ? 2 : 1) : 0) + "\n";
        }
        auto edge = [&](int u, int v) {
            a += std::to_string(next + u) + ", " + std::to_string(next + v) + "\n";
            a += std::to_string(next + v) + ", " + std::to_string(next + u) + "\n";
        };
        for (int i = 0; i + 1 < n; ++i) edge(i, i + 1);
        if (positive) edge(n - 1, 0);
        graph_labels += positive ? "1\n" : "-1\n";
        next += n;
        ++id;
    }
    const std::string prefix = name + "/" + name + "_";
    dir.write(prefix + "A.txt", a);
    dir.write(prefix + "graph_indicator.txt", indicator);
    dir.write(prefix + "graph_labels.txt", graph_labels);
    dir.write(prefix + "node_labels.txt", node_labels);
    return dir.file(name);
}

double in_unit(const nlohmann::json& v) {
    INFO("value " << v);
    REQUIRE(v.is_number());
    const double x = v.get<double>();
    CHECK(x >= 0.0);
    CHECK(x <= 1.0);
    return x;
}

// Checks a predictions CSV written for the molecule fixture: one row per input row, in order,
// the input columns copied, `columns` extra value columns (empty exactly for the invalid rows),
// an error column non-empty exactly for the invalid rows. Returns the values of the first extra
// column for the valid rows.
std::vector<double> check_predictions(const std::string& path, const std::vector<std::string>& columns, bool probabilities) {
    const auto csv = parse_csv(read_text(path));
    const auto rows = molecule_rows();
    REQUIRE(csv.size() == rows.size() + 1);
    std::vector<std::string> header = {"name", "smiles", "active", "logp_like", "second"};
    header.insert(header.end(), columns.begin(), columns.end());
    header.push_back("error");
    CHECK(csv[0] == header);
    std::vector<double> values;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const auto& f = csv[i + 1];
        INFO("predictions row " << i + 1 << ": " << rows[i].fields[1]);
        REQUIRE(f.size() == header.size());
        for (std::size_t k = 0; k < 5; ++k) CHECK(f[k] == rows[i].fields[k]);
        const std::string& error = f.back();
        if (rows[i].valid) {
            CHECK(error.empty());
            for (std::size_t c = 0; c < columns.size(); ++c) {
                const std::string& cell = f[5 + c];
                REQUIRE(!cell.empty());
                const double v = std::stod(cell);
                CHECK(std::isfinite(v));
                if (probabilities) {
                    CHECK(v >= 0.0);
                    CHECK(v <= 1.0);
                }
                if (c == 0) values.push_back(v);
            }
        } else {
            CHECK(has(error, rows[i].fields[1]));
            for (std::size_t c = 0; c < columns.size(); ++c) CHECK(f[5 + c].empty());
        }
    }
    CHECK(values.size() == static_cast<std::size_t>(kValid));
    return values;
}

}  // namespace

TEST_CASE("graph train on molecules skips invalid rows, reports them once and writes graph metrics", "[cli][graph]") {
    TempDir dir;
    const std::string data = write_molecules(dir);
    const std::string model = dir.file("m.gatkit");
    const CliResult r = run_gatkit("train --task graph --data " + shell_quote(data) + " --target-columns active --split random" + kTiny +
                                " --out " + shell_quote(model) + " --metrics-json " + shell_quote(dir.file("m.json")));
    INFO("stdout: " << r.out << "\nstderr: " << r.err);
    REQUIRE(r.exit_code == 0);
    REQUIRE(fs::exists(model));
    CHECK(fs::file_size(model) > 0);
    CHECK(has(r.out, "model written to " + model));

    const nlohmann::json m = load_json(dir.file("m.json"));
    CHECK(m["task"] == "graph");
    CHECK(m["model_type"] == "gat");
    CHECK(m["target_type"] == "binary");
    CHECK(m["split"] == "random");
    CHECK(m["n_graphs"] == kValid);
    CHECK(m["n_skipped"] == 2);
    CHECK(m["threads"] == 1);
    CHECK(m["seed"] == 1);
    // chemprop's sizes: train = floor(0.8 n), val = floor(0.9 n) - train, test = the rest
    CHECK(m["n_train"] == 48);
    CHECK(m["n_val"] == 6);
    CHECK(m["n_test"] == 6);
    in_unit(m["test_roc_auc"]);
    in_unit(m["test_accuracy"]);
    REQUIRE(m.contains("epochs_run"));
    REQUIRE(m.contains("best_epoch"));
    CHECK(m["epochs_run"].get<int>() >= 1);
    CHECK(m["epochs_run"].get<int>() <= 5);
    CHECK(m["best_epoch"].get<int>() >= 0);
    CHECK(m["best_epoch"].get<int>() <= m["epochs_run"].get<int>());
    CHECK(m["train_seconds"].get<double>() > 0.0);

    // stderr: one summary line for the skipped rows, no RDKit log lines.
    const std::string invalid = model + ".invalid.csv";
    const auto err_lines = lines_of(r.err);
    CHECK(std::count_if(err_lines.begin(), err_lines.end(), [](const std::string& l) { return has(l, "skipped"); }) == 1);
    CHECK(has(r.err, "2 of " + std::to_string(kValid + 2) + " rows skipped, reasons in " + invalid + "\n"));
    CHECK_FALSE(has_rdkit_log_line(r.err));
    CHECK_FALSE(has(r.err, "SMILES Parse Error"));
    CHECK_FALSE(has(r.err, "Explicit valence"));

    // The skipped rows: row (file line), smiles, RDKit's reason.
    REQUIRE(fs::exists(invalid));
    const auto rows = parse_csv(read_text(invalid));
    REQUIRE(rows.size() == 3);
    CHECK(rows[0] == std::vector<std::string>{"row", "smiles", "reason"});
    REQUIRE(rows[1].size() == 3);
    REQUIRE(rows[2].size() == 3);
    CHECK(rows[1][0] == "12");  // data row 11, after the header line
    CHECK(rows[1][1] == "C1CC(N");
    CHECK(rows[2][0] == "43");
    CHECK(rows[2][1] == "[NH5]");
    for (int k = 1; k <= 2; ++k) {
        INFO("reason: " << rows[k][2]);
        CHECK(has(rows[k][2], "RDKit"));
        CHECK_FALSE(has_rdkit_log_line(rows[k][2]));
    }
    CHECK(has(rows[2][2], "valence"));
}

TEST_CASE("train --on-invalid fail stops at the first invalid row with file:line and the SMILES", "[cli][graph]") {
    TempDir dir;
    const std::string data = write_molecules(dir);
    const std::string model = dir.file("m.gatkit");
    const CliResult r = run_gatkit("train --task graph --data " + shell_quote(data) + " --target-columns active --on-invalid fail" + kTiny +
                                " --out " + shell_quote(model));
    require_one_line_error(r);
    CHECK(has(r.err, "mols.csv:12:"));
    CHECK(has(r.err, "C1CC(N"));
    CHECK_FALSE(has_rdkit_log_line(r.err));
    require_no_model(model);
}

TEST_CASE("graph predict keeps one row per input row, with the input columns and an error column", "[cli][graph]") {
    TempDir dir;
    const std::string data = write_molecules(dir);
    const std::string model = dir.file("m.gatkit");
    REQUIRE(run_gatkit("train --task graph --data " + shell_quote(data) + " --target-columns active --quiet" + kTiny + " --out " + shell_quote(model)).exit_code ==
            0);

    SECTION("--data F --out P") {
        const std::string pred = dir.file("p.csv");
        const CliResult p = run_gatkit("predict --model " + shell_quote(model) + " --data " + shell_quote(data) + " --threads 1 --out " + shell_quote(pred));
        INFO("stderr: " << p.err);
        REQUIRE(p.exit_code == 0);
        CHECK_FALSE(has_rdkit_log_line(p.err));
        check_predictions(pred, {"p_active"}, true);
    }
    SECTION("--smiles CCO prints a header and one row") {
        const CliResult p = run_gatkit("predict --model " + shell_quote(model) + " --smiles CCO --threads 1");
        INFO("stdout: " << p.out << "\nstderr: " << p.err);
        REQUIRE(p.exit_code == 0);
        const auto csv = parse_csv(p.out);
        REQUIRE(csv.size() == 2);
        CHECK(csv[0] == std::vector<std::string>{"smiles", "p_active", "error"});
        REQUIRE(csv[1].size() == 3);
        CHECK(csv[1][0] == "CCO");
        const double v = std::stod(csv[1][1]);
        CHECK(v >= 0.0);
        CHECK(v <= 1.0);
        CHECK(csv[1][2].empty());
    }
    SECTION("--smiles with an invalid SMILES prints the row with its error and succeeds") {
        const CliResult p = run_gatkit("predict --model " + shell_quote(model) + " --smiles " + shell_quote("C1CC(N") + " --threads 1");
        INFO("stdout: " << p.out << "\nstderr: " << p.err);
        REQUIRE(p.exit_code == 0);
        CHECK_FALSE(has_rdkit_log_line(p.err));
        const auto csv = parse_csv(p.out);
        REQUIRE(csv.size() == 2);
        REQUIRE(csv[1].size() == 3);
        CHECK(csv[1][0] == "C1CC(N");
        CHECK(csv[1][1].empty());
        CHECK(has(csv[1][2], "C1CC(N"));
        CHECK(has(csv[1][2], "RDKit"));
    }
    SECTION("a predictions file read back in: its p_ and error columns are renamed, not written twice") {
        const std::string again = dir.write("again.csv", "smiles,p_active,error,input_error\nCCO,0.5,,x\nC1CC(N,,bad,y\n");
        const std::string pred = dir.file("p.csv");
        const CliResult p = run_gatkit("predict --model " + shell_quote(model) + " --data " + shell_quote(again) + " --threads 1 --out " + shell_quote(pred));
        INFO("stderr: " << p.err);
        REQUIRE(p.exit_code == 0);
        CHECK(has(p.err, "the input's column 'p_active' is written as 'input_p_active'"));
        const auto csv = parse_csv(read_text(pred));
        REQUIRE(csv.size() == 3);
        CHECK(csv[0] == std::vector<std::string>{"smiles", "input_p_active", "input_input_error", "input_error", "p_active", "error"});
        REQUIRE(csv[1].size() == 6);
        CHECK(csv[1][1] == "0.5");
        CHECK(csv[1][3] == "x");
        CHECK_FALSE(csv[1][4].empty());
        CHECK(csv[1][5].empty());
        REQUIRE(csv[2].size() == 6);
        CHECK(csv[2][2] == "bad");
        CHECK(csv[2][4].empty());
        CHECK(has(csv[2][5], "C1CC(N"));
    }
    SECTION("--format names the format of a file whose name does not tell it") {
        const std::string txt = dir.write("mols.txt", read_text(data));
        const std::string q = " --threads 1 --model " + shell_quote(model) + " --data " + shell_quote(txt);
        // Without it: the one-line error names the file and the flag.
        const CliResult none = run_gatkit("predict" + q + " --out " + shell_quote(dir.file("n.csv")));
        require_one_line_error(none);
        CHECK(has(none.err, "mols.txt"));
        CHECK(has(none.err, "--format"));
        CHECK_FALSE(fs::exists(dir.file("n.csv")));
        // With it: the same predictions, embeddings and metrics as from the .csv name.
        const auto same = [&](const std::string& command, const std::string& outputs) {
            const CliResult from_csv = run_gatkit(command + " --threads 1 --model " + shell_quote(model) + " --data " + shell_quote(data) + outputs + "1");
            const CliResult from_txt = run_gatkit(command + q + " --format csv" + outputs + "2");
            INFO(command << ": " << from_csv.err << "\n" << from_txt.err);
            REQUIRE(from_csv.exit_code == 0);
            REQUIRE(from_txt.exit_code == 0);
        };
        same("predict", " --out " + dir.file("p"));
        CHECK(read_text(dir.file("p1")) == read_text(dir.file("p2")));
        same("embed", " --out " + dir.file("e"));
        CHECK(read_text(dir.file("e1")) == read_text(dir.file("e2")));
        same("evaluate", " --metrics-json " + dir.file("j"));
        nlohmann::json j1 = load_json(dir.file("j1")), j2 = load_json(dir.file("j2"));
        CHECK(j2.at("data") == txt);
        j1.erase("data");
        j2.erase("data");
        CHECK(j1 == j2);
        // A format the file is not: the reader's error, not a silent misreading.
        const CliResult as_sdf = run_gatkit("predict" + q + " --format sdf --out " + shell_quote(dir.file("s.csv")));
        CHECK(as_sdf.exit_code == 1);
        CHECK_FALSE(fs::exists(dir.file("s.csv")));
        // Beside --smiles, which reads no file: a usage error.
        CHECK(run_gatkit("predict --model " + shell_quote(model) + " --smiles CCO --format csv").exit_code == 2);
        // Not one of the formats: a usage error from the option itself.
        CHECK(run_gatkit("predict" + q + " --format tu --out " + shell_quote(dir.file("s.csv"))).exit_code == 2);
    }
}

TEST_CASE("graph train: multi-task with missing labels, and regression in the original units", "[cli][graph]") {
    TempDir dir;
    const std::string data = write_molecules(dir);

    SECTION("two binary tasks, the second with missing labels") {
        const CliResult r = run_gatkit("train --task graph --data " + shell_quote(data) + " --target-columns active,second --quiet" + kTiny + " --out " +
                                    shell_quote(dir.file("mt.gatkit")) + " --metrics-json " + shell_quote(dir.file("mt.json")));
        INFO("stderr: " << r.err);
        REQUIRE(r.exit_code == 0);
        const nlohmann::json m = load_json(dir.file("mt.json"));
        CHECK(m["target_type"] == "binary");
        CHECK(m["n_graphs"] == kValid);
        in_unit(m["test_roc_auc"]);
        REQUIRE(m.contains("test_roc_auc_per_task"));
        const auto& per = m["test_roc_auc_per_task"];
        REQUIRE(per.is_object());
        CHECK(per.size() == 2);
        REQUIRE(per.contains("active"));
        REQUIRE(per.contains("second"));
        for (const auto& v : per) CHECK((v.is_null() || (v.get<double>() >= 0.0 && v.get<double>() <= 1.0)));

        const std::string pred = dir.file("mt.csv");
        REQUIRE(run_gatkit("predict --model " + shell_quote(dir.file("mt.gatkit")) + " --data " + shell_quote(data) + " --threads 1 --out " + shell_quote(pred)).exit_code ==
                0);
        check_predictions(pred, {"p_active", "p_second"}, true);
    }
    SECTION("regression") {
        const std::string model = dir.file("reg.gatkit");
        const CliResult r = run_gatkit("train --task graph --data " + shell_quote(data) + " --target-columns logp_like --quiet" + kTiny + " --out " +
                                    shell_quote(model) + " --metrics-json " + shell_quote(dir.file("reg.json")));
        INFO("stderr: " << r.err);
        REQUIRE(r.exit_code == 0);
        const nlohmann::json m = load_json(dir.file("reg.json"));
        CHECK(m["target_type"] == "regression");
        for (const char* key : {"test_rmse", "test_mae", "test_r2"}) {
            INFO("key " << key);
            REQUIRE(m.contains(key));
            REQUIRE(m[key].is_number());
        }
        CHECK(m["test_rmse"].get<double>() >= m["test_mae"].get<double>());
        CHECK(m["test_mae"].get<double>() >= 0.0);
        CHECK_FALSE(m.contains("test_roc_auc"));

        // Predictions are in the original units: their mean lies within the labels' range.
        const std::string pred = dir.file("reg.csv");
        REQUIRE(run_gatkit("predict --model " + shell_quote(model) + " --data " + shell_quote(data) + " --threads 1 --out " + shell_quote(pred)).exit_code == 0);
        const std::vector<double> values = check_predictions(pred, {"pred_logp_like"}, false);
        double lo = 1e300, hi = -1e300, label_mean = 0.0;
        for (const auto& row : molecule_rows())
            if (row.valid) {
                const double y = std::stod(row.fields[3]);
                lo = std::min(lo, y);
                hi = std::max(hi, y);
                label_mean += y / kValid;
            }
        double mean = 0.0;
        for (const double v : values) mean += v / static_cast<double>(values.size());
        INFO("prediction mean " << mean << ", labels in [" << lo << ", " << hi << "], label mean " << label_mean);
        CHECK(mean > lo);
        CHECK(mean < hi);
        CHECK(std::abs(mean - label_mean) < 0.5 * (hi - lo));
    }
}

TEST_CASE("graph train: scaffold, stratified and k-fold splits, and the fingerprint baseline trains and predicts", "[cli][graph]") {
    TempDir dir;
    const std::string data = write_molecules(dir);
    const auto train = [&](const std::string& extra, const std::string& name) {
        const CliResult r = run_gatkit("train --task graph --data " + shell_quote(data) + " --target-columns active --quiet" + tiny_for(extra) + " " + extra +
                                    " --out " + shell_quote(dir.file(name + ".gatkit")) + " --metrics-json " + shell_quote(dir.file(name + ".json")));
        INFO("args: " << extra << "\nstdout: " << r.out << "\nstderr: " << r.err);
        REQUIRE(r.exit_code == 0);
        REQUIRE(fs::exists(dir.file(name + ".gatkit")));
        const nlohmann::json m = load_json(dir.file(name + ".json"));
        CHECK(m["n_graphs"] == kValid);
        CHECK(m["n_train"].get<int>() > 0);
        CHECK(m["n_test"].get<int>() > 0);
        return m;
    };

    SECTION("scaffold") {
        const nlohmann::json m = train("--split scaffold", "scaffold");
        CHECK(m["split"] == "scaffold");
        CHECK(m["n_train"].get<int>() + m["n_val"].get<int>() + m["n_test"].get<int>() == kValid);
        CHECK((m["test_roc_auc"].is_null() || (m["test_roc_auc"].get<double>() >= 0.0 && m["test_roc_auc"].get<double>() <= 1.0)));
    }
    SECTION("stratified") {
        const nlohmann::json m = train("--split stratified --split-sizes 0.6,0.2,0.2", "stratified");
        CHECK(m["split"] == "stratified");
        CHECK(m["n_train"].get<int>() + m["n_val"].get<int>() + m["n_test"].get<int>() == kValid);
        in_unit(m["test_roc_auc"]);  // both classes are in the test part
    }
    SECTION("kfold:3") {
        const nlohmann::json m = train("--split kfold:3", "kfold");
        CHECK(m["split"] == "kfold:3");
        CHECK(m["n_test"].get<int>() == kValid / 3);
        in_unit(m["test_roc_auc"]);
        REQUIRE(m.contains("test_roc_auc_std"));
        REQUIRE(m["test_roc_auc_std"].is_number());
        CHECK(m["test_roc_auc_std"].get<double>() >= 0.0);
        CHECK(m["test_roc_auc_std"].get<double>() <= 0.5);
    }
    SECTION("fingerprint model") {
        const nlohmann::json m = train("--model-type fingerprint --split stratified --split-sizes 0.6,0.2,0.2", "fp");
        CHECK(m["model_type"] == "fingerprint");
        CHECK(m["target_type"] == "binary");
        const double auc = in_unit(m["test_roc_auc"]);
        CHECK(auc > 0.5);  // "has a nitrogen" is in the Morgan bits
        const std::string pred = dir.file("fp.csv");
        const CliResult p = run_gatkit("predict --model " + shell_quote(dir.file("fp.gatkit")) + " --data " + shell_quote(data) + " --threads 1 --out " + shell_quote(pred));
        INFO("stderr: " << p.err);
        REQUIRE(p.exit_code == 0);
        check_predictions(pred, {"p_active"}, true);
        const CliResult one = run_gatkit("predict --model " + shell_quote(dir.file("fp.gatkit")) + " --smiles c1ccncc1");
        INFO("stdout: " << one.out << "\nstderr: " << one.err);
        REQUIRE(one.exit_code == 0);
        const auto csv = parse_csv(one.out);
        REQUIRE(csv.size() == 2);
        CHECK(csv[0] == std::vector<std::string>{"smiles", "p_active", "error"});
    }
}

TEST_CASE("graph train: the same seed gives the same model and predictions with 1 and 2 threads", "[cli][graph][determinism]") {
    TempDir dir;
    const std::string data = write_molecules(dir);
    std::string args = kTiny;
    args.replace(args.find("--threads 1"), 11, "");
    for (const int t : {1, 2}) {
        const std::string n = std::to_string(t);
        const CliResult r = run_gatkit("train --task graph --data " + shell_quote(data) + " --target-columns active --quiet" +
                                    args + " --threads " + n + " --out " + shell_quote(dir.file("m" + n)) + " --metrics-json " +
                                    shell_quote(dir.file("m" + n + ".json")));
        INFO("stderr: " << r.err);
        REQUIRE(r.exit_code == 0);
        const CliResult p = run_gatkit("predict --model " + shell_quote(dir.file("m" + n)) + " --data " + shell_quote(data) + " --threads " + n + " --out " +
                                    shell_quote(dir.file("p" + n + ".csv")));
        INFO("stderr: " << p.err);
        REQUIRE(p.exit_code == 0);
    }
    const nlohmann::json m1 = load_json(dir.file("m1.json")), m2 = load_json(dir.file("m2.json"));
    CHECK(m1["threads"] == 1);
    CHECK(m2["threads"] == 2);
    CHECK(m1["test_roc_auc"] == m2["test_roc_auc"]);
    CHECK(m1["best_epoch"] == m2["best_epoch"]);
    const std::string model1 = read_text(dir.file("m1")), model2 = read_text(dir.file("m2"));
    CHECK(!model1.empty());
    CHECK(model1 == model2);
    const std::string p1 = read_text(dir.file("p1.csv")), p2 = read_text(dir.file("p2.csv"));
    CHECK(lines_of(p1).size() == static_cast<std::size_t>(kValid + 3));
    CHECK(p1 == p2);
    // the invalid-rows reports agree too
    CHECK(read_text(dir.file("m1.invalid.csv")) == read_text(dir.file("m2.invalid.csv")));
}

TEST_CASE("graph train --init-seed: the split stays that of --seed, the weights and training stream come from the init seed",
          "[cli][graph][determinism]") {
    TempDir dir;
    const std::string data = write_molecules(dir);
    // The same rows with a split column (every tenth row validation, the next test).
    std::string text = "name,smiles,active,logp_like,second,split\n";
    std::size_t row = 0;
    for (const auto& r : molecule_rows()) {
        text += csv_quote(r.fields[0]);
        for (std::size_t k = 1; k < r.fields.size(); ++k) text += "," + r.fields[k];
        text += row % 10 == 8 ? ",val\n" : row % 10 == 9 ? ",test\n" : ",train\n";
        ++row;
    }
    const std::string with_split = dir.write("split.csv", text);
    // Trains, predicts every row, and returns (model file bytes, predictions).
    int runs = 0;
    const auto run = [&](const std::string& file, const std::string& extra) {
        std::string tiny = tiny_for(extra);
        tiny.replace(tiny.find(" --seed 1"), 9, "");
        const std::string m = dir.file("m" + std::to_string(++runs)), p = m + ".csv";
        const CliResult r = run_gatkit("train --task graph --data " + shell_quote(file) + " --target-columns active --quiet" + tiny + " " + extra +
                                       " --out " + shell_quote(m) + " --metrics-json " + shell_quote(m + ".json"));
        INFO("train " << extra << ": " << r.err);
        REQUIRE(r.exit_code == 0);
        const CliResult q = run_gatkit("predict --model " + shell_quote(m) + " --data " + shell_quote(data) + " --threads 1 --out " + shell_quote(p));
        INFO("predict: " << q.err);
        REQUIRE(q.exit_code == 0);
        return std::pair(read_text(m), read_text(p));
    };

    // Reproducible, and a different model from --seed alone.
    const auto a = run(data, "--seed 3 --init-seed 9 --split-out " + shell_quote(dir.file("split_a.csv")));
    CHECK(a == run(data, "--seed 3 --init-seed 9"));
    CHECK(a.second != run(data, "--seed 3 --split-out " + shell_quote(dir.file("split_b.csv"))).second);
    CHECK(a.second != run(data, "--seed 3 --init-seed 10").second);
    const nlohmann::json m = load_json(dir.file("m1.json"));
    CHECK(m["seed"] == 3);
    CHECK(m["init_seed"] == 9);
    CHECK_FALSE(load_json(dir.file("m3.json")).contains("init_seed"));

    // With the split fixed by a column, --seed no longer matters once --init-seed is given:
    // the initial weights, shuffling and dropout come from the init seed alone.
    CHECK(run(with_split, "--split-column split --seed 3 --init-seed 9").second == run(with_split, "--split-column split --seed 5 --init-seed 9").second);
    CHECK(run(with_split, "--split-column split --seed 3").second != run(with_split, "--split-column split --seed 5").second);

    // The split is still drawn from --seed: --init-seed leaves the rows --seed put in each part
    // where they were, and another --seed with the same --init-seed moves them.
    const std::string split_a = read_text(dir.file("split_a.csv"));
    CHECK(has(split_a, ",test\n"));
    CHECK(split_a == read_text(dir.file("split_b.csv")));
    run(data, "--seed 4 --init-seed 9 --split-out " + shell_quote(dir.file("split_c.csv")));
    CHECK(split_a != read_text(dir.file("split_c.csv")));
}

TEST_CASE("graph train --ensemble-size N: members are the runs --init-seed S+k gives, predictions their mean, one model file",
          "[cli][graph][ensemble]") {
    TempDir dir;
    const std::string data = write_molecules(dir);
    // Trains (kTiny: --seed 1) and returns the p_active column of predicting every row ("" for error rows).
    int runs = 0;
    const auto run = [&](const std::string& extra) {
        const std::string m = dir.file("m" + std::to_string(++runs));
        const CliResult r = run_gatkit("train --task graph --data " + shell_quote(data) + " --target-columns active" + kTiny + " " + extra +
                                       " --out " + shell_quote(m) + " --metrics-json " + shell_quote(m + ".json"));
        INFO("train " << extra << ": " << r.err);
        REQUIRE(r.exit_code == 0);
        const CliResult q = run_gatkit("predict --model " + shell_quote(m) + " --data " + shell_quote(data) + " --threads 1 --out " + shell_quote(m + ".csv"));
        INFO("predict: " << q.err);
        REQUIRE(q.exit_code == 0);
        const auto csv = parse_csv(read_text(m + ".csv"));
        const auto col = static_cast<std::size_t>(std::find(csv[0].begin(), csv[0].end(), "p_active") - csv[0].begin());
        REQUIRE(col < csv[0].size());
        std::vector<std::string> p;
        for (std::size_t i = 1; i < csv.size(); ++i) p.push_back(csv[i][col]);
        return std::tuple(m, p, r.err);
    };
    const auto [ens, p_ens, err] = run("--ensemble-size 3");
    CHECK(has(err, "member 1/3: best epoch "));
    CHECK(has(err, "member 3/3: best epoch "));
    // Member 0 is the plain run of --seed 1; member k the run of --init-seed 1+k.
    const auto [m0, p0, e0] = run("");
    const auto [m1, p1, e1] = run("--init-seed 2");
    const auto [m2, p2, e2] = run("--init-seed 3");
    REQUIRE(p_ens.size() == p0.size());
    int predicted = 0;
    for (std::size_t i = 0; i < p_ens.size(); ++i) {
        INFO("row " << i + 1);
        REQUIRE(p_ens[i].empty() == p0[i].empty());
        if (p_ens[i].empty()) continue;
        ++predicted;
        const double mean = (std::stod(p0[i]) + std::stod(p1[i]) + std::stod(p2[i])) / 3;
        CHECK(std::stod(p_ens[i]) == Approx(mean).margin(1e-6));
    }
    CHECK(predicted == kValid);
    // The three members are not the same model.
    CHECK(p0 != p1);
    CHECK(p1 != p2);

    const nlohmann::json m = load_json(ens + ".json");
    CHECK(m["ensemble_size"] == 3);
    REQUIRE(m["members"].size() == 3);
    const std::string singles[] = {m0, m1, m2};
    for (int k = 0; k < 3; ++k) {
        const nlohmann::json one = load_json(singles[k] + ".json");
        CHECK(one["ensemble_size"] == 1);
        CHECK_FALSE(one.contains("members"));
        for (const char* key : {"val_roc_auc", "test_roc_auc", "test_accuracy", "best_epoch", "epochs_run"}) {
            INFO("member " << k << " " << key);
            CHECK(m["members"][k][key] == one[key]);
        }
    }
    CHECK(m["test_roc_auc"].is_number());
    CHECK(m["best_epoch"] == m["members"][0]["best_epoch"]);

    // One file with three members; the single-model reader refuses it instead of reading one.
    CHECK(gatkit::load_model_ensemble(ens).size() == 3);
    CHECK(gatkit::load_model_ensemble(m0).size() == 1);
    CHECK_THROWS_WITH(gatkit::load_model(ens), Catch::Contains("holds an ensemble of 3 models"));
    const CliResult info = run_gatkit("info --model " + shell_quote(ens));
    REQUIRE(info.exit_code == 0);
    CHECK(has(info.out, "ensemble:   3 members, predictions averaged"));

    // predict --attention: every member's α, with a member column.
    const CliResult a = run_gatkit("predict --model " + shell_quote(ens) + " --smiles CCO --threads 1 --attention " + shell_quote(dir.file("att.csv")));
    REQUIRE(a.exit_code == 0);
    const auto att = parse_csv(read_text(dir.file("att.csv")));
    CHECK(att[0] == std::vector<std::string>{"row", "member", "layer", "head", "src_atom", "dst_atom", "self_loop", "alpha"});
    std::set<std::string> members;
    for (std::size_t i = 1; i < att.size(); ++i) members.insert(att[i][1]);
    CHECK(members == std::set<std::string>{"1", "2", "3"});

    // embed: each member's vector side by side; explain: the members' mean, heads not chosen.
    REQUIRE(run_gatkit("embed --model " + shell_quote(ens) + " --smiles CCO --out " + shell_quote(dir.file("e.csv"))).exit_code == 0);
    const auto header = parse_csv(read_text(dir.file("e.csv")))[0];
    CHECK(std::find(header.begin(), header.end(), "m3_g0") != header.end());
    CHECK(std::find(header.begin(), header.end(), "g0") == header.end());
    const CliResult x = run_gatkit("explain --model " + shell_quote(ens) + " --smiles c1ccccc1N --out " + shell_quote(dir.file("x.svg")));
    INFO(x.err);
    REQUIRE(x.exit_code == 0);
    CHECK(has(read_text(dir.file("x.svg")), "mean of 3 ensemble members"));
    const CliResult h = run_gatkit("explain --model " + shell_quote(ens) + " --smiles c1ccccc1N --head 0 --out " + shell_quote(dir.file("h.svg")));
    require_one_line_error(h);
    CHECK(has(h.err, "heads do not correspond"));
}

TEST_CASE("train --ensemble-size: refused outside graph attention models and outside 1..100", "[cli][graph][ensemble]") {
    TempDir dir;
    const std::string data = write_molecules(dir);
    const std::string base = "train --task graph --data " + shell_quote(data) + " --target-columns active" + kTiny + " --out " + shell_quote(dir.file("m"));
    const std::string fingerprint = "train --task graph --data " + shell_quote(data) + " --target-columns active --threads 1 --out " + shell_quote(dir.file("m"));
    for (const std::string& bad : std::vector<std::string>{base + " --ensemble-size 0", base + " --ensemble-size 101", fingerprint + " --ensemble-size 3 --model-type fingerprint"}) {
        const CliResult r = run_gatkit(bad);
        INFO(bad);
        require_one_line_error(r);
        CHECK(has(r.err, "--ensemble-size"));
    }
    const CliResult node = run_gatkit("train --task node --data " + shell_quote(data) + " --ensemble-size 2 --out " + shell_quote(dir.file("n")));
    require_one_line_error(node);
    CHECK(has(node.err, "--ensemble-size goes with --task graph"));
    CHECK_FALSE(fs::exists(dir.file("m")));
}

TEST_CASE("graph train --split-out writes every valid row once per fold with its part, rows as in the input file", "[cli][graph]") {
    TempDir dir;
    const std::string data = write_molecules(dir);
    const std::vector<std::string> file_lines = lines_of(read_text(data));
    const auto train = [&](const std::string& extra) {
        const std::string out = dir.file("split.csv");
        const CliResult r = run_gatkit("train --task graph --data " + shell_quote(data) + " --target-columns active --quiet" + kTiny + " " + extra +
                                       " --split-out " + shell_quote(out) + " --out " + shell_quote(dir.file("m")) + " --metrics-json " +
                                       shell_quote(dir.file("m.json")));
        INFO("train " << extra << ": " << r.err);
        REQUIRE(r.exit_code == 0);
        return parse_csv(read_text(out));
    };
    // The SMILES of the file's line `row` (1-based, the header is line 1).
    const auto smiles_on_line = [&](const std::string& row) {
        const std::size_t line = std::stoul(row);
        REQUIRE(line >= 2);
        REQUIRE(line <= file_lines.size());
        return parse_csv(file_lines[line - 1])[0][1];
    };

    SECTION("one split") {
        const auto csv = train("--split random");
        REQUIRE(csv.size() == static_cast<std::size_t>(kValid) + 1);
        CHECK(csv[0] == std::vector<std::string>{"row", "smiles", "split"});
        const nlohmann::json m = load_json(dir.file("m.json"));
        std::map<std::string, int> parts;
        std::set<std::string> rows;
        for (std::size_t k = 1; k < csv.size(); ++k) {
            REQUIRE(csv[k].size() == 3);
            ++parts[csv[k][2]];
            rows.insert(csv[k][0]);
            CHECK(smiles_on_line(csv[k][0]) == csv[k][1]);
        }
        CHECK(rows.size() == static_cast<std::size_t>(kValid));  // each valid row once; the invalid ones are not listed
        CHECK(parts["train"] == m["n_train"].get<int>());
        CHECK(parts["val"] == m["n_val"].get<int>());
        CHECK(parts["test"] == m["n_test"].get<int>());
        CHECK(parts.size() == 3);
    }
    SECTION("k-fold: a fold column, each row in one test fold") {
        const auto csv = train("--split kfold:3");
        REQUIRE(csv.size() == 3 * static_cast<std::size_t>(kValid) + 1);
        CHECK(csv[0] == std::vector<std::string>{"row", "fold", "smiles", "split"});
        std::map<std::string, int> test_folds;
        std::map<std::string, int> rows_per_fold;
        for (std::size_t k = 1; k < csv.size(); ++k) {
            REQUIRE(csv[k].size() == 4);
            ++rows_per_fold[csv[k][1]];
            if (csv[k][3] == "test") ++test_folds[csv[k][0]];
            CHECK(smiles_on_line(csv[k][0]) == csv[k][2]);
        }
        CHECK(rows_per_fold == std::map<std::string, int>{{"1", kValid}, {"2", kValid}, {"3", kValid}});
        CHECK(test_folds.size() == static_cast<std::size_t>(kValid));
        for (const auto& [row, n] : test_folds) CHECK(n == 1);
    }
    SECTION("refused for other tasks and for a folder that does not exist, before training") {
        const CliResult node = run_gatkit("train --task node --data " + shell_quote(data) + " --split-out " + shell_quote(dir.file("s.csv")) +
                                          " --out " + shell_quote(dir.file("n")));
        CHECK(node.exit_code == 1);
        CHECK(has(node.err, "--split-out applies to --task graph"));
        const CliResult nowhere = run_gatkit("train --task graph --data " + shell_quote(data) + " --target-columns active --quiet" + kTiny +
                                             " --split-out " + shell_quote(dir.file("no/such/s.csv")) + " --out " + shell_quote(dir.file("g")));
        CHECK(nowhere.exit_code == 1);
        CHECK(has(nowhere.err, "--split-out"));
        CHECK(has(nowhere.err, "does not exist"));
        CHECK_FALSE(fs::exists(dir.file("n")));
        CHECK_FALSE(fs::exists(dir.file("g")));
    }
}

TEST_CASE("graph train: residual layers by default, --no-residual turns them off, transformer blocks keep their own skips",
          "[cli][graph]") {
    TempDir dir;
    const std::string data = write_molecules(dir);
    const auto train = [&](const std::string& name, const std::string& extra) {
        const CliResult r = run_gatkit("train --task graph --data " + shell_quote(data) + " --target-columns active" + kTiny + " " + extra +
                                       " --out " + shell_quote(dir.file(name)));
        INFO("stderr: " << r.err);
        REQUIRE(r.exit_code == 0);
        return gatkit::load_model(dir.file(name));
    };
    const auto has_res_weight = [](gatkit::Model& m) {
        for (const auto* p : m.parameters())
            if (p->name.find("res") != std::string::npos && p->value.size() > 0) return true;
        return false;
    };
    gatkit::Model plain = train("default", "");
    CHECK(plain.config().residual);
    CHECK(has_res_weight(plain));
    gatkit::Model off = train("off", "--no-residual");
    CHECK_FALSE(off.config().residual);
    CHECK_FALSE(has_res_weight(off));
    CHECK(off.parameter_count() < plain.parameter_count());
    gatkit::Model block = train("block", "--block transformer");
    CHECK_FALSE(block.config().residual);
    CHECK(train("v2", "--conv gatv2").config().residual);

    const CliResult both = run_gatkit("train --task graph --data " + shell_quote(data) + " --target-columns active" + kTiny +
                                      " --residual --no-residual --out " + shell_quote(dir.file("both")));
    require_one_line_error(both, 2);
    CHECK(has(both.err, "--no-residual"));
    CHECK_FALSE(fs::exists(dir.file("both")));
}

TEST_CASE("graph train: molecules default to mean+max with the rdkit2d descriptors, TU graphs to the mean alone, options override both",
          "[cli][graph][readout][mol_features]") {
    TempDir dir;
    const std::string molecules = write_molecules(dir), tu = write_tu(dir);
    const auto train = [&](const std::string& data, const std::string& extra, const std::string& name) {
        const std::string out = dir.file(name);
        const CliResult r = run_gatkit("train --task graph --data " + shell_quote(data) + " " + extra + tiny_for(extra) + " --out " + shell_quote(out) +
                                       " --metrics-json " + shell_quote(out + ".json"));
        INFO("stderr: " << r.err);
        REQUIRE(r.exit_code == 0);
        return std::make_pair(nlohmann::json::parse(read_text(out + ".json")), out);
    };
    const auto head_rows = [](gatkit::Model& m) {
        for (const auto* p : m.parameters())
            if (p->name == "head.0.weight") return p->value.rows();
        return Eigen::Index(-1);
    };
    const auto descriptors = static_cast<Eigen::Index>(gatkit::chem::molecule_feature_names("rdkit2d").size());

    const auto [mol_json, mol_file] = train(molecules, "--target-columns active", "mol");
    gatkit::Model mol = gatkit::load_model(mol_file);
    CHECK(mol.config().readout == "mean+max");
    CHECK(mol.info().graph_features == "rdkit2d");
    CHECK(mol_json.at("mol_features") == "rdkit2d");
    CHECK(mol.config().graph_dim == descriptors);
    const Eigen::Index width = static_cast<Eigen::Index>(mol.config().heads) * mol.config().hidden;
    CHECK(head_rows(mol) == 2 * width + descriptors);

    const auto [plain_json, plain_file] = train(molecules, "--target-columns active --readout mean --mol-features none", "mol_plain");
    gatkit::Model plain = gatkit::load_model(plain_file);
    CHECK(plain.config().readout == "mean");
    CHECK(plain.info().graph_features == "none");
    CHECK(plain_json.at("mol_features") == "none");
    CHECK(head_rows(plain) == width);

    // The fingerprint baseline takes no molecule-level features, and needs no flag to say so.
    CHECK(train(molecules, "--target-columns active --model-type fingerprint", "fp").first.at("model_type") == "fingerprint");

    const auto [tu_json, tu_file] = train(tu, "--split-sizes 0.5,0.25,0.25", "tu");
    gatkit::Model graphs = gatkit::load_model(tu_file);
    CHECK(graphs.config().readout == "mean");
    CHECK(graphs.config().graph_dim == 0);
    CHECK(tu_json.at("mol_features") == "none");
    CHECK(head_rows(graphs) == width);
    CHECK(gatkit::load_model(train(tu, "--split-sizes 0.5,0.25,0.25 --readout max+attention", "tu_joined").second).config().readout == "max+attention");
    // Asked for by name, descriptors on TU graphs are refused as before.
    const CliResult refused = run_gatkit("train --task graph --data " + shell_quote(tu) + " --split-sizes 0.5,0.25,0.25 --mol-features rdkit2d" + kTiny +
                                         " --out " + shell_quote(dir.file("tu_rdkit2d")));
    CHECK(refused.exit_code == 1);
    CHECK(has(refused.err, "--mol-features rdkit2d needs molecules"));
    CHECK_FALSE(fs::exists(dir.file("tu_rdkit2d")));
}

TEST_CASE("graph train --lr-schedule noam|cosine changes the run, other tasks refuse it", "[cli][graph]") {
    TempDir dir;
    const std::string data = write_molecules(dir);
    std::map<std::string, std::string> models;
    for (const std::string schedule : {"constant", "noam", "cosine"}) {
        const CliResult r = run_gatkit("train --task graph --data " + shell_quote(data) + " --target-columns active" + kTiny +
                                       " --lr-schedule " + schedule + " --warmup-epochs 0.5 --out " + shell_quote(dir.file(schedule)));
        INFO("stderr: " << r.err);
        REQUIRE(r.exit_code == 0);
        models[schedule] = read_text(dir.file(schedule));
    }
    // Same seed and data: only the step sizes differ, so the weights do. Noam and cosine share
    // their warm-up, so it ends half way through the first epoch: the kept epoch is after it.
    CHECK(models["noam"] != models["constant"]);
    CHECK(models["cosine"] != models["constant"]);
    CHECK(models["cosine"] != models["noam"]);
    SECTION("an unknown schedule is refused") {
        const CliResult r = run_gatkit("train --task graph --data " + shell_quote(data) + " --target-columns active" + kTiny +
                                       " --lr-schedule step --out " + shell_quote(dir.file("x")));
        CHECK(r.exit_code != 0);
        CHECK(has(r.err, "--lr-schedule"));
        CHECK_FALSE(fs::exists(dir.file("x")));
    }
    SECTION("node training runs at a constant rate and says so") {
        const std::string cites = dir.write("g.edges", "a b\nb c\nc a\n");
        const std::string labels = dir.write("g.labels", "a,x\nb,y\nc,x\n");
        const CliResult r = run_gatkit("train --task node --data " + shell_quote(cites) + " --label-file " + shell_quote(labels) +
                                       " --lr-schedule noam --quiet --out " + shell_quote(dir.file("n")));
        require_one_line_error(r);
        CHECK(has(r.err, "--task graph"));
        CHECK_FALSE(fs::exists(dir.file("n")));
    }
}

TEST_CASE("graph train: bad input is a one-line user error and writes no model", "[cli][graph]") {
    TempDir dir;
    const std::string data = write_molecules(dir);
    fs::create_directories(dir.file("out"));
    const std::string model = dir.file("out/m.gatkit");
    const auto train = [&](const std::string& data_path, const std::string& extra) {
        return run_gatkit("train --task graph --data " + shell_quote(data_path) + " " + extra + kTiny + " --out " + shell_quote(model) + " --metrics-json " +
                       shell_quote(dir.file("out/m.json")));
    };

    SECTION("a --target-columns name that is not a column") {
        const CliResult r = train(data, "--target-columns activity");
        require_one_line_error(r);
        CHECK(has(r.err, "'activity'"));
        for (const char* col : {"name", "smiles", "active", "logp_like", "second"}) CHECK(has(r.err, col));
    }
    SECTION("no --target-columns") {
        const CliResult r = train(data, "");
        require_one_line_error(r, 2);
        CHECK(has(r.err, "--target-columns"));
    }
    SECTION("a label that is not a number") {
        std::string text = read_text(data);
        const std::string from = ",c1ccncc1,1,";  // pyridine, data row 8 (line 9)
        REQUIRE(has(text, from));
        text.replace(text.find(from), from.size(), ",c1ccncc1,yes,");
        const CliResult r = train(dir.write("badlabel.csv", text), "--target-columns active");
        require_one_line_error(r);
        CHECK(has(r.err, "badlabel.csv:9"));
        CHECK(has(r.err, "'yes'"));
    }
    SECTION("no valid molecule") {
        const CliResult r = train(dir.write("none.csv", "smiles,active\nC1CC(N,1\n[NH5],0\nnot_a_smiles,1\n"), "--target-columns active");
        require_one_line_error(r);
        CHECK(has(r.err, "none.csv"));
        CHECK(has(r.err, "no valid molecule"));
        CHECK_FALSE(has_rdkit_log_line(r.err));
    }
    SECTION("a binary file named .csv") {
        // pseudo-random bytes with NULs, like a zip or an image saved as .csv
        std::string bytes = std::string("PK\x03\x04", 4);
        for (int i = 0; i < 600; ++i) {
            const int b = (i * 37 + 11) % 256;
            bytes += static_cast<char>(i % 7 == 0 ? 0 : b);
        }
        const CliResult r = train(dir.write("x.csv", bytes), "--target-columns active");
        require_one_line_error(r);
        CHECK(has(r.err, "x.csv"));
        CHECK(r.err.find('\0') == std::string::npos);
    }
    SECTION("--split nonsense") {
        // checked before the data are read: no summary lines, no invalid-rows report
        const CliResult r = train(data, "--target-columns active --split nonsense");
        require_one_line_error(r);
        CHECK(has(r.err, "--split nonsense"));
        CHECK(has(r.err, "scaffold"));
        CHECK_FALSE(fs::exists(model + ".invalid.csv"));
    }
    SECTION("--split kfold:3x") {
        const CliResult r = train(data, "--target-columns active --split kfold:3x");
        require_one_line_error(r);
        CHECK(has(r.err, "kfold:3x"));
        CHECK_FALSE(fs::exists(model + ".invalid.csv"));
    }
    require_no_model(model);
    CHECK_FALSE(fs::exists(dir.file("out/m.json")));
}

TEST_CASE("graph train on a TU-format folder: binary graph labels, random and k-fold splits", "[cli][graph]") {
    TempDir dir;
    const std::string tu = write_tu(dir);
    const auto train_tu = [&](const std::string& extra) {
        return run_gatkit("train --task graph --data " + shell_quote(tu) + " " + extra + kTiny + " --out " + shell_quote(dir.file("tu.gatkit")) +
                          " --metrics-json " + shell_quote(dir.file("tu.json")));
    };

    SECTION("random split") {
        const CliResult r = train_tu("--split-sizes 0.5,0.25,0.25");
        INFO("stdout: " << r.out << "\nstderr: " << r.err);
        REQUIRE(r.exit_code == 0);
        REQUIRE(fs::exists(dir.file("tu.gatkit")));
        const nlohmann::json m = load_json(dir.file("tu.json"));
        CHECK(m["task"] == "graph");
        CHECK(m["n_graphs"] == 18);
        CHECK(m["n_skipped"] == 0);
        // labels -1/1 are classes 0/1: a binary target, with the binary metrics
        CHECK(m["target_type"] == "binary");
        CHECK(m["n_train"].get<int>() + m["n_val"].get<int>() + m["n_test"].get<int>() == 18);
        in_unit(m["test_accuracy"]);
        for (const char* key : {"test_roc_auc", "test_pr_auc", "test_f1", "test_mcc"}) {
            INFO("key " << key);
            CHECK(m.contains(key));
        }
        CHECK_FALSE(m.contains("test_rmse"));
        CHECK(has(r.out, "test_accuracy"));
    }
    SECTION("--metric that does not apply to the target type") {
        const CliResult r = train_tu("--metric rmse");
        require_one_line_error(r);
        CHECK(has(r.err, "selection metric rmse"));
        CHECK(has(r.err, "roc_auc"));
        CHECK_FALSE(fs::exists(dir.file("tu.gatkit")));
    }
    SECTION("--metric loss selects on the validation loss") {
        const CliResult r = train_tu("--split-sizes 0.5,0.25,0.25 --metric loss");
        INFO("stdout: " << r.out << "\nstderr: " << r.err);
        REQUIRE(r.exit_code == 0);
        const nlohmann::json m = load_json(dir.file("tu.json"));
        CHECK(m["best_epoch"].get<int>() >= 1);
        CHECK(m["best_epoch"].get<int>() <= m["epochs_run"].get<int>());
    }
    SECTION("kfold:3") {
        const CliResult r = train_tu("--split kfold:3");
        INFO("stdout: " << r.out << "\nstderr: " << r.err);
        REQUIRE(r.exit_code == 0);
        const nlohmann::json m = load_json(dir.file("tu.json"));
        CHECK(m["target_type"] == "binary");
        CHECK(m["n_test"] == 6);
        CHECK(m["n_val"] == 6);
        CHECK(m["n_train"] == 6);
        in_unit(m["test_accuracy"]);
        in_unit(m["test_roc_auc"]);  // stratified folds: 3 graphs of each class in every test fold
        REQUIRE(m.contains("test_accuracy_std"));
        CHECK(m["test_accuracy_std"].get<double>() >= 0.0);
        CHECK(m["test_accuracy_std"].get<double>() <= 0.5);
    }
}

TEST_CASE("TU models: predict and evaluate read other TU folders with the model's columns and classes", "[cli][graph][evaluate][tu]") {
    TempDir dir;
    const std::string tu = write_tu(dir), model = dir.file("tu.gatkit"), split = dir.file("split.csv");
    const CliResult t = run_gatkit("train --task graph --data " + shell_quote(tu) + " --split-sizes 0.5,0.25,0.25" + kTiny + " --out " +
                                   shell_quote(model) + " --split-out " + shell_quote(split) + " --metrics-json " + shell_quote(dir.file("tu.json")));
    INFO("train: " << t.err);
    REQUIRE(t.exit_code == 0);
    const nlohmann::json trained = load_json(dir.file("tu.json"));
    const CliResult info = run_gatkit("info --model " + shell_quote(model));
    CHECK(has(info.out, "TU columns: 3 node label, 0 node attribute, 0 edge label, 0 edge attribute"));
    CHECK(has(info.out, "targets:    1 (label); classes -1 (0), 1 (1)"));

    // Every graph of the folder: graph_id, the class, a probability per class (summing to 1).
    const auto predict = [&](const std::string& data, const std::string& out) {
        const CliResult p = run_gatkit("predict --threads 1 --model " + shell_quote(model) + " --data " + shell_quote(data) + " --out " + shell_quote(out));
        INFO("predict: " << p.err);
        REQUIRE(p.exit_code == 0);
        const auto csv = parse_csv(read_text(out));
        REQUIRE(!csv.empty());
        CHECK(csv[0] == std::vector<std::string>{"graph_id", "predicted_class", "p_-1", "p_1", "error"});
        for (std::size_t r = 1; r < csv.size(); ++r) {
            REQUIRE(csv[r].size() == 5);
            CHECK(csv[r][0] == std::to_string(r));
            const double p0 = std::stod(csv[r][2]), p1 = std::stod(csv[r][3]);
            CHECK(p0 + p1 == Approx(1.0).epsilon(1e-6));
            CHECK(csv[r][1] == (p1 > p0 ? "1" : "-1"));
            CHECK(csv[r][4].empty());
        }
        return csv;
    };
    const auto all = predict(tu, dir.file("all.csv"));
    REQUIRE(all.size() == 19);

    // The test graphs as a folder of their own: evaluate gives the run's test metrics.
    std::vector<int> test;
    for (const auto& row : parse_csv(read_text(split)))
        if (row.size() == 3 && row[2] == "test") test.push_back(std::stoi(row[0]) - 1);
    REQUIRE(test.size() >= 3);
    const std::string held_out = write_tu(dir, test, "TEST");
    const CliResult e = run_gatkit("evaluate --threads 1 --model " + shell_quote(model) + " --data " + shell_quote(held_out) + " --metrics-json " +
                                   shell_quote(dir.file("e.json")));
    INFO("evaluate: " << e.out << e.err);
    REQUIRE(e.exit_code == 0);
    const nlohmann::json m = load_json(dir.file("e.json"));
    CHECK(m["n_graphs"] == test.size());
    CHECK(m["target_type"] == "binary");
    for (const char* key : {"test_accuracy", "test_roc_auc", "test_pr_auc", "test_f1", "test_mcc"}) {
        INFO(key);
        REQUIRE(trained.contains(key));
        REQUIRE(m.contains(key));
        if (trained[key].is_null()) CHECK(m[key].is_null());
        else CHECK(m[key].get<double>() == Approx(trained[key].get<double>()).margin(1e-6));
    }

    // Chains only (node label 0 alone, no graph labels file): the model's three label columns
    // all the same, so each graph gets the prediction it gets inside the whole folder.
    const std::vector<int> chains = {0, 2, 4};
    const std::string only_chains = write_tu(dir, chains, "CHAINS");
    fs::remove(dir.file("CHAINS/CHAINS_graph_labels.txt"));
    const auto part = predict(only_chains, dir.file("chains.csv"));
    REQUIRE(part.size() == 4);
    for (std::size_t k = 0; k < chains.size(); ++k) {
        const auto& whole = all[static_cast<std::size_t>(chains[k]) + 1];
        CHECK(part[k + 1][1] == whole[1]);
        CHECK(std::stod(part[k + 1][3]) == Approx(std::stod(whole[3])).margin(1e-6));
    }
    // evaluate needs the labels.
    const CliResult unlabelled = run_gatkit("evaluate --model " + shell_quote(model) + " --data " + shell_quote(only_chains));
    require_one_line_error(unlabelled);
    CHECK(has(unlabelled.err, "CHAINS_graph_labels.txt"));

    // Folders that do not fit the model: one-line errors naming the file and line.
    const auto refused = [&](const std::string& name, const std::string& file, const std::string& text, const std::string& words) {
        const std::string folder = write_tu(dir, chains, name);
        if (text.empty()) fs::remove(folder + "/" + name + "_" + file);
        else dir.write(name + "/" + name + "_" + file, text);
        const CliResult r = run_gatkit("predict --model " + shell_quote(model) + " --data " + shell_quote(folder) + " --out " + shell_quote(dir.file("x.csv")));
        INFO(name << ": " << r.err);
        require_one_line_error(r);
        CHECK(has(r.err, words));
        CHECK_FALSE(fs::exists(dir.file("x.csv")));
        const CliResult ev = run_gatkit("evaluate --model " + shell_quote(model) + " --data " + shell_quote(folder));
        require_one_line_error(ev);
    };
    refused("BIGLABEL", "node_labels.txt", "0\n0\n0\n0\n7\n0\n0\n0\n0\n0\n0\n0\n", "BIGLABEL_node_labels.txt:5: label '7' is not one the model knows");
    refused("NOLABELS", "node_labels.txt", "", "the model was trained with node labels");
    refused("ATTRS", "node_attributes.txt", "0.5\n0.5\n0.5\n0.5\n0.5\n0.5\n0.5\n0.5\n0.5\n0.5\n0.5\n0.5\n", "without node attributes");
    {
        const std::string folder = write_tu(dir, chains, "CLASS");
        dir.write("CLASS/CLASS_graph_labels.txt", "-1\n2\n-1\n");
        const CliResult r = run_gatkit("evaluate --model " + shell_quote(model) + " --data " + shell_quote(folder));
        require_one_line_error(r);
        CHECK(has(r.err, "CLASS_graph_labels.txt:2: graph label '2' is not one of the model's classes (-1, 1)"));
    }
    // The pooled vectors: embed and predict --embeddings write the same file, a row per graph;
    // each graph's vector is its own (the same inside the whole folder and alone).
    const CliResult emb = run_gatkit("embed --threads 1 --model " + shell_quote(model) + " --data " + shell_quote(only_chains) + " --out " +
                                     shell_quote(dir.file("emb.csv")));
    INFO("embed: " << emb.err);
    REQUIRE(emb.exit_code == 0);
    REQUIRE(run_gatkit("predict --threads 1 --model " + shell_quote(model) + " --data " + shell_quote(only_chains) + " --out " +
                       shell_quote(dir.file("p2.csv")) + " --embeddings " + shell_quote(dir.file("emb2.csv")))
                .exit_code == 0);
    CHECK(read_text(dir.file("emb.csv")) == read_text(dir.file("emb2.csv")));
    REQUIRE(run_gatkit("embed --threads 1 --model " + shell_quote(model) + " --data " + shell_quote(tu) + " --out " + shell_quote(dir.file("emb_all.csv")))
                .exit_code == 0);
    const auto vectors = parse_csv(read_text(dir.file("emb.csv"))), all_vectors = parse_csv(read_text(dir.file("emb_all.csv")));
    REQUIRE(vectors.size() == 4);
    REQUIRE(all_vectors.size() == 19);
    CHECK(vectors[0].front() == "graph_id");
    CHECK(vectors[0].back() == "error");
    CHECK(vectors[0].size() == 2 + 16);  // 2 heads x 8, mean-pooled
    for (std::size_t k = 0; k < chains.size(); ++k) {
        const auto& whole = all_vectors[static_cast<std::size_t>(chains[k]) + 1];
        REQUIRE(vectors[k + 1].size() == whole.size());
        for (std::size_t c = 1; c + 1 < whole.size(); ++c) CHECK(std::stod(vectors[k + 1][c]) == Approx(std::stod(whole[c])).margin(1e-6));
    }

    // --attention: α per graph, layer, head and edge (node indices within the graph); a node's
    // incoming α sum to 1 per head.
    REQUIRE(run_gatkit("predict --threads 1 --model " + shell_quote(model) + " --data " + shell_quote(only_chains) + " --out " +
                       shell_quote(dir.file("p3.csv")) + " --attention " + shell_quote(dir.file("att.csv")))
                .exit_code == 0);
    const auto att = parse_csv(read_text(dir.file("att.csv")));
    REQUIRE(att.size() > 1);
    CHECK(att[0] == std::vector<std::string>{"graph_id", "layer", "head", "src_node", "dst_node", "self_loop", "alpha"});
    std::map<std::tuple<std::string, std::string, std::string, std::string>, double> sums;
    std::set<std::string> graphs;
    for (std::size_t r = 1; r < att.size(); ++r) {
        REQUIRE(att[r].size() == 7);
        graphs.insert(att[r][0]);
        sums[{att[r][0], att[r][1], att[r][2], att[r][4]}] += std::stod(att[r][6]);
    }
    CHECK(graphs == std::set<std::string>{"1", "2", "3"});
    for (const auto& [key, sum] : sums) CHECK(sum == Approx(1.0).margin(1e-5));

    // explain: the attention each node receives in the last layer, mean over heads, is what the
    // α above add up to per source node; ranks order it; the node label is the TU value (0 here).
    std::string last_layer = "0";
    for (std::size_t r = 1; r < att.size(); ++r) last_layer = std::max(last_layer, att[r][1]);
    std::map<std::pair<std::string, std::string>, double> received;  // (graph, src node) -> Σ α over heads
    std::set<std::string> heads;
    for (std::size_t r = 1; r < att.size(); ++r)
        if (att[r][1] == last_layer) {
            received[{att[r][0], att[r][3]}] += std::stod(att[r][6]);
            heads.insert(att[r][2]);
        }
    const CliResult x = run_gatkit("explain --threads 1 --model " + shell_quote(model) + " --data " + shell_quote(only_chains) + " --out " +
                                   shell_quote(dir.file("explain.csv")));
    INFO("explain: " << x.err);
    REQUIRE(x.exit_code == 0);
    const auto ex = parse_csv(read_text(dir.file("explain.csv")));
    REQUIRE(ex.size() == received.size() + 1);
    CHECK(ex[0] == std::vector<std::string>{"graph_id", "node", "node_label", "received", "rank", "error"});
    std::map<std::string, std::set<int>> ranks;
    for (std::size_t r = 1; r < ex.size(); ++r) {
        REQUIRE(ex[r].size() == 6);
        INFO(ex[r][0] << " node " << ex[r][1]);
        CHECK(std::stod(ex[r][3]) == Approx(received.at({ex[r][0], ex[r][1]}) / static_cast<double>(heads.size())).margin(1e-5));
        CHECK(ex[r][2] == "0");
        CHECK(ex[r][5].empty());
        ranks[ex[r][0]].insert(std::stoi(ex[r][4]));
    }
    for (const auto& [g, r] : ranks) CHECK((*r.begin() == 1 && *r.rbegin() == static_cast<int>(r.size())));
    // one graph by its id, to stdout, with the prediction on stderr; an unknown id is refused
    const CliResult one = run_gatkit("explain --threads 1 --model " + shell_quote(model) + " --data " + shell_quote(tu) + " --graph 2");
    INFO("explain --graph: " << one.err);
    REQUIRE(one.exit_code == 0);
    const auto one_csv = parse_csv(one.out);
    REQUIRE(one_csv.size() > 1);
    for (std::size_t r = 1; r < one_csv.size(); ++r) CHECK(one_csv[r][0] == "2");
    CHECK(has(one.err, "graph 2: predicted class " + all[2][1]));
    const CliResult unknown = run_gatkit("explain --model " + shell_quote(model) + " --data " + shell_quote(tu) + " --graph 99");
    require_one_line_error(unknown);
    CHECK(has(unknown.err, "--graph 99: no graph with that id"));
    const CliResult node_flag = run_gatkit("explain --model " + shell_quote(model) + " --data " + shell_quote(tu) + " --node 1");
    require_one_line_error(node_flag);
    CHECK(has(node_flag.err, "--node does not go with TU models"));

    // Molecule options a TU model has no use for are refused.
    for (const std::string& extra : std::vector<std::string>{" --smiles CCO", " --smiles-column s", " --format csv"}) {
        const CliResult r = run_gatkit("predict --model " + shell_quote(model) + (has(extra, "--smiles ") ? "" : " --data " + shell_quote(tu)) + extra +
                                       " --out " + shell_quote(dir.file("y.csv")));
        INFO(extra << ": " << r.err);
        CHECK(r.exit_code != 0);
        CHECK_FALSE(fs::exists(dir.file("y.csv")));
    }
}

TEST_CASE("gatkit evaluate on the test rows of a training run gives that run's test metrics", "[cli][graph][evaluate]") {
    TempDir dir;
    const std::string data = write_molecules(dir);
    const std::vector<std::string> file_lines = lines_of(read_text(data));
    const std::string model = dir.file("m.gatkit"), split = dir.file("split.csv");
    // Trains MODEL on a random split of the file, written to SPLIT.
    const auto train = [&](const std::string& model_type) {
        const CliResult t = run_gatkit("train --task graph --data " + shell_quote(data) + " --target-columns active --quiet" +
                                       tiny_for(" --model-type " + model_type) + " --model-type " + model_type + " --split random --split-out " + shell_quote(split) + " --out " +
                                       shell_quote(model) + " --metrics-json " + shell_quote(dir.file("m.json")));
        INFO("train: " << t.err);
        REQUIRE(t.exit_code == 0);
    };
    // Catch2 runs the test case once per section: the fingerprint fit (a Newton solve over 2048
    // bits, most of this test's time under the sanitizers) happens in the first section alone.
    SECTION("the test rows of an attention model and of a fingerprint model") {
        for (const std::string model_type : {"gat", "fingerprint"}) {
            INFO("--model-type " << model_type);
            train(model_type);
            // The test rows as a file of their own, header first, then one bad row: it is skipped and counted.
            std::string test = file_lines[0] + "\n";
            int n_test = 0;
            for (const auto& row : parse_csv(read_text(split)))
                if (row.size() == 3 && row[2] == "test") {
                    test += file_lines[std::stoul(row[0]) - 1] + "\n";
                    ++n_test;
                }
            test += "bad,not a smiles,1,0.5,x\n";
            const std::string test_csv = dir.write("test.csv", test);
            const CliResult e = run_gatkit("evaluate --model " + shell_quote(model) + " --data " + shell_quote(test_csv) + " --threads 1 --metrics-json " +
                                           shell_quote(dir.file("e.json")));
            INFO("evaluate: " << e.err);
            REQUIRE(e.exit_code == 0);
            CHECK(has(e.out, "test_roc_auc"));
            CHECK(has(e.err, "1 of " + std::to_string(n_test + 1) + " rows skipped"));
            const nlohmann::json trained = load_json(dir.file("m.json")), evaluated = load_json(dir.file("e.json"));
            CHECK(evaluated["task"] == "graph");
            CHECK(evaluated["n_graphs"].get<int>() == n_test);
            CHECK(evaluated["n_skipped"].get<int>() == 1);
            for (const char* key : {"test_roc_auc", "test_pr_auc", "test_accuracy"}) {
                INFO(key);
                REQUIRE(evaluated.contains(key));
                CHECK(evaluated[key].get<double>() == Approx(trained[key].get<double>()).margin(1e-6));
            }
        }
    }
    SECTION("a file without the model's target column is a one-line error") {
        train("gat");
        const std::string unlabelled = dir.write("nolabel.csv", "name,smiles\na,CCO\n");
        const CliResult e = run_gatkit("evaluate --model " + shell_quote(model) + " --data " + shell_quote(unlabelled));
        require_one_line_error(e);
        CHECK(has(e.err, "active"));
    }
    SECTION("labels that are not 0 or 1 for a binary model, or none at all, are one-line errors") {
        train("gat");
        const std::string odd = dir.write("odd.csv", "name,smiles,active\na,CCO,1\nb,CCN,2.5\n");
        const CliResult e = run_gatkit("evaluate --model " + shell_quote(model) + " --data " + shell_quote(odd));
        require_one_line_error(e);
        CHECK(has(e.err, "label 2.5 in column 'active' on row 3 is not 0 or 1"));
        const std::string none = dir.write("none.csv", "name,smiles,active\na,CCO,\nb,CCN,\n");
        const CliResult n = run_gatkit("evaluate --model " + shell_quote(model) + " --data " + shell_quote(none));
        require_one_line_error(n);
        CHECK(has(n.err, "no labelled row to evaluate"));
    }
    SECTION("node-model flags on a molecule model are a usage error") {
        train("gat");
        const CliResult e = run_gatkit("evaluate --model " + shell_quote(model) + " --data " + shell_quote(data) + " --label-file x.txt");
        require_one_line_error(e, 2);
    }
}

TEST_CASE("graph train --split-column: a bad value names the file, the line and the value, a missing column lists the columns",
          "[cli][graph]") {
    TempDir dir;
    std::string text = "name,smiles,active,part\n";
    for (int k = 0; k < 30; ++k) text += "m" + std::to_string(k) + ",C" + std::string(static_cast<std::size_t>(k % 5 + 1), 'C') + "O," + std::to_string(k % 2) + "," +
                                         (k % 10 == 8 ? "val" : k % 10 == 9 ? "test" : "train") + "\n";
    text += "bad,CCCN,1,tset\n";  // line 32
    const std::string data = dir.write("parts.csv", text);
    const CliResult r = run_gatkit("train --task graph --data " + shell_quote(data) + " --target-columns active --quiet" + kTiny +
                                   " --split-column part --out " + shell_quote(dir.file("m")));
    require_one_line_error(r);
    CHECK(has(r.err, "parts.csv:32: column 'part' holds 'tset' (expected train, val or test)"));
    const CliResult missing = run_gatkit("train --task graph --data " + shell_quote(data) + " --target-columns active --quiet" + kTiny +
                                         " --split-column fold --out " + shell_quote(dir.file("m")));
    require_one_line_error(missing);
    CHECK(has(missing.err, "no column named 'fold' (--split-column; columns: name, smiles, active, part)"));
    CHECK_FALSE(fs::exists(dir.file("m")));
}

TEST_CASE("two columns of the same name, or two outputs to the same file, are refused", "[cli][graph]") {
    TempDir dir;
    const std::string twice = dir.write("twice.csv", "smiles,active,active\nCCO,1,0\nCCN,0,1\n");
    const CliResult t = run_gatkit("train --task graph --data " + shell_quote(twice) + " --target-columns active --quiet" + kTiny + " --out " +
                                   shell_quote(dir.file("m")));
    require_one_line_error(t);
    CHECK(has(t.err, "columns 2 and 3 are both named 'active'"));
    const std::string data = write_molecules(dir);
    const CliResult same = run_gatkit("train --task graph --data " + shell_quote(data) + " --target-columns active --quiet" + kTiny + " --out " +
                                      shell_quote(dir.file("m")) + " --metrics-json " + shell_quote(dir.file("m")));
    require_one_line_error(same, 2);
    CHECK(has(same.err, "--out and --metrics-json name the same file"));
    CHECK_FALSE(fs::exists(dir.file("m")));
}
