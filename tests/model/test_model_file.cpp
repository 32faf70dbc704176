// Model files (safetensors layout): exact round trip, and damaged files give a gatkit::Error.
#include "gatkit/chem/featurize.hpp"
#include "gatkit/core/error.hpp"
#include "gatkit/model/fingerprint_model.hpp"
#include "gatkit/model/model_file.hpp"
#include "gatkit/model/predictor.hpp"
#include "support/fixtures.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace gatkit;
using gatkit::test::TempDir;
namespace fs = std::filesystem;

namespace {

ModelConfig small_config() {
    ModelConfig c;
    c.in_features = 5;
    c.num_classes = 3;
    c.layers = 2;
    c.heads = 2;
    c.hidden = 4;
    c.out_heads = 2;
    c.dropout = 0.25;
    c.attn_dropout = 0.1;
    c.negative_slope = 0.15;
    c.residual = true;
    c.activation = Activation::relu;
    return c;
}

Model small_model() {
    Model m(small_config(), 17);
    m.info().class_names = {"alpha", "beta", "gamma"};
    m.info().feature_normalization = "none";
    m.info().data_name = "toy";
    m.info().metrics = {{"val_accuracy", 0.8125}, {"test_accuracy", 0.7}};
    // biases start at 0: give every parameter distinct values so a mix-up would show
    Rng rng(99);
    for (auto* p : m.parameters())
        for (Eigen::Index k = 0; k < p->value.size(); ++k) p->value.data()[k] += static_cast<float>(rng.uniform(-0.1, 0.1));
    return m;
}

std::string read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void write_bytes(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

std::string u64_le(std::uint64_t n) {
    std::string b(8, '\0');
    for (int k = 0; k < 8; ++k) b[k] = static_cast<char>((n >> (8 * k)) & 0xff);
    return b;
}

// A model file as (JSON header without padding, data section).
struct Parts {
    std::string header, data;
};

Parts split_file(const std::string& bytes) {
    std::uint64_t n = 0;
    for (int k = 0; k < 8; ++k) n |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[k])) << (8 * k);
    std::string header = bytes.substr(8, n);
    while (!header.empty() && header.back() == ' ') header.pop_back();
    return {header, bytes.substr(8 + n)};
}

std::string join_file(std::string header, const std::string& data) {
    header.append((8 - header.size() % 8) % 8, ' ');
    return u64_le(header.size()) + header + data;
}

// Replaces the first `from` at or after `after` (a substring that must exist) in the header.
std::string edit_header(const std::string& bytes, const std::string& from, const std::string& to, const std::string& after = "") {
    Parts p = split_file(bytes);
    const auto start = p.header.find(after);
    REQUIRE(start != std::string::npos);
    const auto at = p.header.find(from, start);
    REQUIRE(at != std::string::npos);
    p.header.replace(at, from.size(), to);
    return join_file(p.header, p.data);
}

}  // namespace

TEST_CASE("save_model / load_model round trip is exact", "[model][file]") {
    TempDir dir;
    Model m = small_model();
    const std::string path = dir.file("toy.gatkit");
    save_model(path, m);
    save_model(path, m);  // overwriting an existing file works too

    Model loaded = load_model(path);
    const ModelConfig &a = m.config(), &b = loaded.config();
    CHECK(b.task == a.task);
    CHECK(b.conv == a.conv);
    CHECK(b.in_features == 5);
    CHECK(b.num_classes == 3);
    CHECK(b.layers == a.layers);
    CHECK(b.heads == a.heads);
    CHECK(b.hidden == a.hidden);
    CHECK(b.out_heads == a.out_heads);
    CHECK(b.dropout == a.dropout);
    CHECK(b.attn_dropout == a.attn_dropout);
    CHECK(b.negative_slope == a.negative_slope);
    CHECK(b.residual == a.residual);
    CHECK(b.add_self_loops == a.add_self_loops);
    CHECK(b.activation == a.activation);

    CHECK(loaded.info().class_names == m.info().class_names);
    CHECK(loaded.info().feature_normalization == "none");
    CHECK(loaded.info().data_name == "toy");
    CHECK(loaded.info().metrics == m.info().metrics);

    const auto pa = m.parameters(), pb = loaded.parameters();
    REQUIRE(pa.size() == pb.size());
    REQUIRE(pa.size() == 2 * 5);  // weight, att_src, att_dst, bias, res_weight per layer
    for (std::size_t k = 0; k < pa.size(); ++k) {
        INFO(pa[k]->name);
        CHECK(pb[k]->name == pa[k]->name);
        REQUIRE(pb[k]->value.rows() == pa[k]->value.rows());
        REQUIRE(pb[k]->value.cols() == pa[k]->value.cols());
        CHECK(std::memcmp(pb[k]->value.data(), pa[k]->value.data(), sizeof(float) * pa[k]->value.size()) == 0);
    }

    Rng rng(3);
    const Graph g = gatkit::test::random_graph(30, 0.1, rng);
    const Matrix x = gatkit::test::random_matrix<float>(30, 5, rng);
    const Matrix ya = m.forward(g, x, /*training=*/false), yb = loaded.forward(g, x, false);
    REQUIRE(ya.rows() == 30);
    REQUIRE(ya.cols() == 3);
    CHECK((ya.array() == yb.array()).all());

    // the atomic write leaves nothing but the model beside it
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir.path())) names.push_back(e.path().filename().string());
    CHECK(names == std::vector<std::string>{"toy.gatkit"});

    // the layout: 8-byte length, a header padded to 8 bytes, then the data
    const std::string bytes = read_bytes(path);
    const Parts parts = split_file(bytes);
    CHECK((bytes.size() - parts.data.size() - 8) % 8 == 0);
    CHECK(parts.data.size() == sizeof(float) * m.parameter_count());
    CHECK(parts.header.find("\"format\":\"gatkit\"") != std::string::npos);
}

TEST_CASE("load_model: damaged files give a gatkit::Error that says what is wrong", "[model][file]") {
    TempDir dir;
    Model m = small_model();
    const std::string good = dir.file("good.gatkit");
    save_model(good, m);
    const std::string bytes = read_bytes(good);
    const std::string bad = dir.file("bad.gatkit");

    const auto fails = [&](const std::string& content, const std::string& expect) {
        write_bytes(bad, content);
        CHECK_THROWS_AS(load_model(bad), ParseError);
        CHECK_THROWS_WITH(load_model(bad), Catch::Contains("bad.gatkit") && Catch::Contains(expect));
    };

    SECTION("nonexistent path") {
        CHECK_THROWS_AS(load_model(dir.file("missing.gatkit")), IoError);
        CHECK_THROWS_WITH(load_model(dir.file("missing.gatkit")), Catch::Contains("missing.gatkit"));
    }
    SECTION("a directory") {
        fs::create_directory(dir.file("adir"));
        CHECK_THROWS_AS(load_model(dir.file("adir")), IoError);
        CHECK_THROWS_WITH(load_model(dir.file("adir")), Catch::Contains("adir': it is a directory"));
    }
    SECTION("3-byte file") { fails("abc", "truncated (3 bytes"); }
    SECTION("header length larger than the file") { fails(u64_le(1000) + "{}", "header length 1000 exceeds the file size 10"); }
    SECTION("header length near 2^64") { fails(u64_le(~0ULL) + "{}", "exceeds the file size"); }
    SECTION("header is not JSON") { fails(join_file("this is not json", ""), "header is not valid JSON"); }
    SECTION("a foreign safetensors file") {
        fails(join_file(R"({"w":{"dtype":"F32","shape":[1,1],"data_offsets":[0,4]}})", std::string(4, '\0')),
              "unsupported model file");
        fails(join_file(R"({"__metadata__":{"format":"pt"}})", ""), "unsupported model file");
        fails(join_file("[1,2,3]", ""), "unsupported model file");
    }
    SECTION("newer format version") {
        fails(edit_header(bytes, R"("format_version":"1")", R"("format_version":"99")"), "format version '99'");
    }
    SECTION("truncated data section") {
        const Parts p = split_file(bytes);
        fails(bytes.substr(0, bytes.size() - p.data.size() / 2), "truncated file?");
        fails(bytes.substr(0, bytes.size() - p.data.size()), "outside the 0 data bytes");
    }
    SECTION("tensor with the wrong shape") {
        // layers.0.att_src is H×C = 2×4; 4×2 has the same byte count, so only the shape check catches it
        fails(edit_header(bytes, R"("shape":[2,4])", R"("shape":[4,2])", R"("layers.0.att_src")"),
              "tensor 'layers.0.att_src' has shape [4,2], expected [2,4]");
    }
    SECTION("tensor with the wrong dtype") {
        fails(edit_header(bytes, R"("dtype":"F32")", R"("dtype":"F64")", R"("layers.1.bias")"), "dtype F64");
    }
    SECTION("missing tensor") {
        fails(edit_header(bytes, R"("layers.1.att_dst")", R"("layers.1.att_dsX")"), "tensor 'layers.1.att_dst' is missing");
    }
    SECTION("malformed tensor entry") {
        fails(edit_header(bytes, R"("data_offsets":[)", R"("data_offsetz":[)", R"("layers.0.weight")"), "layers.0.weight");
    }
    SECTION("incomplete config metadata") {
        fails(edit_header(bytes, R"(\"in_features\")", R"(\"in_featurez\")"), "metadata is incomplete");
    }
    SECTION("invalid config values") { fails(edit_header(bytes, R"(\"heads\":2)", R"(\"heads\":0)"), "heads must be at least 1"); }
    SECTION("config sizes that are not ints") {
        fails(edit_header(bytes, R"(\"heads\":2)", R"(\"heads\":1e20)"), "'heads' is 1e+20, not an integer");
        fails(edit_header(bytes, R"(\"heads\":2)", R"(\"heads\":4294967298)"), "'heads' is 4294967298, not an integer");
        fails(edit_header(bytes, R"(\"heads\":2)", R"(\"heads\":2.5)"), "'heads' is 2.5, not an integer");
    }
    SECTION("a config far larger than the tensors the file holds: refused before anything is allocated") {
        // 2 heads x 2000 channels would be ~10^7 weights; the file holds a few hundred.
        fails(edit_header(bytes, R"(\"hidden\":4)", R"(\"hidden\":2000)"), "describes layers far larger than the");
        // Beyond what any file may ask for.
        fails(edit_header(bytes, R"(\"hidden\":4)", R"(\"hidden\":2000000000)"), "would have up to");
    }
}

TEST_CASE("ModelConfig::parameter_bound is an upper bound of the real parameter count, within a factor of 64", "[model][file]") {
    for (const char* conv : {"gat", "gatv2", "transformer"}) {
        for (const char* block : {"plain", "transformer"}) {
            for (const char* task : {"node", "graph"}) {
                ModelConfig c = small_config();
                c.conv = conv;
                c.block = block;
                c.task = task;
                if (c.task == "graph") {
                    c.target_type = "binary";
                    c.num_classes = 1;
                    c.edge_dim = 3;
                    c.readout = "attention";
                }
                Model m(c, 0);
                double count = 0;
                for (auto* p : m.parameters()) count += static_cast<double>(p->value.size());
                INFO(conv << " " << block << " " << task << ": " << count << " parameters, bound " << c.parameter_bound());
                CHECK(c.parameter_bound() >= count);
                CHECK(c.parameter_bound() <= 64 * count);
            }
        }
    }
    ModelConfig huge = small_config();
    huge.hidden = 1 << 20;
    huge.heads = 1 << 10;
    CHECK_THROWS_WITH(huge.validate(), Catch::Contains("parameters (the limit is"));
}

TEST_CASE("load_model: metadata of the wrong JSON type is a ParseError, not a JSON exception", "[model][file]") {
    TempDir dir;
    Model m = small_model();
    const std::string good = dir.file("good.gatkit");
    save_model(good, m);
    const std::string bytes = read_bytes(good);
    const std::string bad = dir.file("bad.gatkit");

    write_bytes(bad, edit_header(bytes, R"("format_version":"1")", R"("format_version":99)"));
    CHECK_THROWS_AS(load_model(bad), ParseError);
    CHECK_THROWS_WITH(load_model(bad), Catch::Contains("format version '99'"));
    write_bytes(bad, edit_header(bytes, R"("format_version":"1")", R"("format_version":[1])"));
    CHECK_THROWS_AS(load_model(bad), ParseError);
    write_bytes(bad, edit_header(bytes, R"("format":"gatkit")", R"("format":7)"));
    CHECK_THROWS_AS(load_model(bad), ParseError);
    CHECK_THROWS_WITH(load_model(bad), Catch::Contains("unsupported model file"));
    write_bytes(bad, edit_header(bytes, R"("config":")", R"("config":3,"x":")"));
    CHECK_THROWS_AS(load_model(bad), ParseError);
    CHECK_THROWS_WITH(load_model(bad), Catch::Contains("metadata is incomplete or malformed"));
}

TEST_CASE("load_model: a molecule model whose atom/bond feature layout differs from this gatkit's is refused", "[model][file]") {
    TempDir dir;
    ModelConfig c = small_config();
    c.task = "graph";
    c.target_type = "binary";
    c.num_classes = 1;
    Model m(c, 3);
    m.info().featurizer = chem::featurizer_id();
    m.info().target_names = {"active"};
    const std::string good = dir.file("mol.gatkit");
    save_model(good, m);
    CHECK(load_model(good).info().featurizer == chem::featurizer_id());
    const std::string bytes = read_bytes(good);
    REQUIRE(split_file(bytes).header.find(chem::featurizer_spec()) != std::string::npos);
    // The same id with another layout (as a changed table without a new id would write).
    const std::string bad = dir.file("other-layout.gatkit");
    write_bytes(bad, edit_header(bytes, "atomic_num/one_hot/", "atomic_num/one_hot/9", "featurizer_spec"));
    CHECK_THROWS_AS(load_model(bad), ParseError);
    CHECK_THROWS_WITH(load_model(bad), Catch::Contains("other-layout.gatkit") && Catch::Contains("differ from this gatkit's"));
}

namespace {

Model small_graph_model(std::uint64_t seed) {
    ModelConfig c;
    c.task = "graph";
    c.target_type = "binary";
    c.in_features = 5;
    c.num_classes = 1;
    c.layers = 2;
    c.heads = 2;
    c.hidden = 4;
    c.mlp_hidden = 8;
    Model m(c, seed);
    m.info().target_names = {"active"};
    m.info().data_name = "toy";
    return m;
}

}  // namespace

TEST_CASE("save_model_ensemble / load_model_ensemble: every member exactly, in a version-2 file", "[model][file][ensemble]") {
    TempDir dir;
    Model a = small_graph_model(1), b = small_graph_model(2), c = small_graph_model(3);
    const std::string path = dir.file("ens.gatkit");
    save_model_ensemble(path, {&a, &b, &c});
    std::vector<Model> loaded = load_model_ensemble(path);
    REQUIRE(loaded.size() == 3);
    Model* original[] = {&a, &b, &c};
    for (std::size_t k = 0; k < 3; ++k) {
        const auto pa = original[k]->parameters(), pb = loaded[k].parameters();
        REQUIRE(pa.size() == pb.size());
        for (std::size_t i = 0; i < pa.size(); ++i) {
            INFO("member " << k << " " << pa[i]->name);
            CHECK(pb[i]->value == pa[i]->value);
        }
        CHECK(loaded[k].info().target_names == std::vector<std::string>{"active"});
    }
    CHECK(a.parameters().front()->value != b.parameters().front()->value);  // members differ, so a mix-up would show
    const std::string header = split_file(read_bytes(path)).header;
    CHECK(header.find(R"("format_version":"2")") != std::string::npos);
    CHECK(header.find(R"("ensemble_size":"3")") != std::string::npos);
    CHECK(header.find("\"member.2.") != std::string::npos);

    // The single-model reader refuses it rather than reading one member as the whole model.
    CHECK_THROWS_AS(load_model(path), ParseError);
    CHECK_THROWS_WITH(load_model(path), Catch::Contains("holds an ensemble of 3 models") && Catch::Contains("load_model_ensemble"));
    // One member is a plain version-1 file that both readers take.
    const std::string single = dir.file("one.gatkit");
    save_model_ensemble(single, {&a});
    CHECK(split_file(read_bytes(single)).header.find(R"("format_version":"1")") != std::string::npos);
    CHECK(load_model_ensemble(single).size() == 1);
    CHECK(load_model(single).parameters().front()->value == a.parameters().front()->value);
}

TEST_CASE("model ensembles: mismatched members and damaged ensemble files are refused with the reason", "[model][file][ensemble]") {
    TempDir dir;
    Model a = small_graph_model(1), b = small_graph_model(2);
    ModelConfig other = b.config();
    other.hidden = 8;
    Model wide(other, 4);
    CHECK_THROWS_AS(save_model_ensemble(dir.file("x.gatkit"), {&a, &wide}), ConfigError);
    CHECK_THROWS_AS(save_model_ensemble(dir.file("x.gatkit"), {}), ConfigError);
    CHECK_FALSE(fs::exists(dir.file("x.gatkit")));

    const std::string path = dir.file("ens.gatkit");
    save_model_ensemble(path, {&a, &b});
    const std::string bytes = read_bytes(path);
    const auto fails = [&](const std::string& damaged, const std::string& expect) {
        const std::string bad = dir.file("bad.gatkit");
        write_bytes(bad, damaged);
        CHECK_THROWS_AS(load_model_ensemble(bad), ParseError);
        CHECK_THROWS_WITH(load_model_ensemble(bad), Catch::Contains("bad.gatkit") && Catch::Contains(expect));
    };
    fails(edit_header(bytes, R"("ensemble_size":"2")", R"("ensemble_size":"1")"), "ensemble_size from 2 to 100");
    fails(edit_header(bytes, R"("ensemble_size":"2")", R"("ensemble_size":"x2")"), "ensemble_size");
    fails(edit_header(bytes, R"("ensemble_size":"2")", R"("ensemble_size":"3")"), "tensor 'member.2.");
    fails(edit_header(bytes, "\"member.1.", "\"member.7."), "tensor 'member.1.");
    // A version-1 reader sees a version it does not know (checked through this reader's message
    // for an unknown version).
    fails(edit_header(bytes, R"("format_version":"2")", R"("format_version":"3")"), "format version '3'");
}

TEST_CASE("load_model: output names that disagree with the outputs are refused, not read past", "[model][file]") {
    TempDir dir;
    const std::string path = dir.file("m.gatkit");
    auto refused = [&](Model& m, const std::string& words) {
        save_model(path, m);
        CHECK_THROWS_AS(load_model(path), ParseError);
        CHECK_THROWS_WITH(load_model(path), Catch::Contains("m.gatkit") && Catch::Contains(words));
        CHECK_THROWS_AS(Predictor::load(path), ParseError);
    };
    // A node model: one class name per output.
    Model node = small_model();
    node.info().class_names = {"alpha"};
    refused(node, "3 outputs but 1 class name");
    node.info().class_names = {};
    refused(node, "3 outputs but 0 class names");
    // A binary graph model: one target name per output.
    Model graph = small_graph_model(1);
    graph.info().target_names = {};
    refused(graph, "1 output but 0 target names");
    graph.info().target_names = {"a", "b"};
    refused(graph, "1 output but 2 target names");
    // Regression: each target's mean and a positive, finite standard deviation.
    ModelConfig c = graph.config();
    c.target_type = "regression";
    c.num_classes = 2;
    Model reg(c, 2);
    reg.info().target_names = {"logS", "logP"};
    reg.info().target_mean = {1.0, 2.0};
    reg.info().target_std = {0.5, 1.5};
    save_model(path, reg);
    CHECK(load_model(path).info().target_std == std::vector<double>{0.5, 1.5});
    reg.info().target_std = {0.5};
    refused(reg, "2 regression targets but 2 means and 1 standard deviation in its info");
    reg.info().target_std = {0.5, 0.0};
    refused(reg, "target 'logP' has mean 2");
}

TEST_CASE("load_fingerprint_model: target names that disagree with the weights, or an unknown target type, are refused", "[model][file][fingerprint]") {
    TempDir dir;
    const std::string path = dir.file("fp.gatkit");
    const std::vector<std::vector<std::uint32_t>> bits = {{1, 5}, {2, 7}, {1, 3}, {4, 6}, {1, 9}, {2, 6}};
    Matrix y(6, 1);
    y << 1, 0, 1, 0, 1, 0;
    const FingerprintModel fp = FingerprintModel::fit(bits, y, {.n_bits = 16});
    ModelInfo info;
    info.target_names = {"active"};
    save_fingerprint_model(path, fp, info, "binary");
    CHECK(load_fingerprint_model(path).info.target_names == info.target_names);
    info.target_names = {};
    save_fingerprint_model(path, fp, info, "binary");
    CHECK_THROWS_AS(load_fingerprint_model(path), ParseError);
    CHECK_THROWS_WITH(load_fingerprint_model(path), Catch::Contains("1 output but 0 target names"));
    CHECK_THROWS_AS(Predictor::load(path), ParseError);
    info.target_names = {"active"};
    save_fingerprint_model(path, fp, info, "multiclass");
    CHECK_THROWS_WITH(load_fingerprint_model(path), Catch::Contains("target_type 'multiclass'"));
}

TEST_CASE("load_model: a weight that is NaN or infinite is a damaged file", "[model][file]") {
    TempDir dir;
    const std::string path = dir.file("nan.gatkit");
    for (const float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
        Model m = small_model();
        m.parameters().front()->value(0, 1) = bad;
        save_model(path, m);
        CHECK_THROWS_AS(load_model(path), ParseError);
        CHECK_THROWS_WITH(load_model(path), Catch::Contains("nan.gatkit") && Catch::Contains(std::isnan(bad) ? "holds NaN at element 1" : "holds an infinity at element 1"));
    }
}
