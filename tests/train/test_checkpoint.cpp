// Checkpoints (train/checkpoint.hpp): a run stopped after k epochs (or inside an epoch) and
// resumed from its checkpoint file ends with the same weights, bit for bit, and the same metrics
// as a run that never stopped; damaged and mismatching checkpoints are refused with the reason.
#include "gatkit/graph/generators.hpp"
#include "gatkit/io/atomic_file.hpp"
#include "gatkit/model/model_file.hpp"
#include "gatkit/train/checkpoint.hpp"
#include "gatkit/train/fit.hpp"
#include "gatkit/train/graph_trainer.hpp"
#include "gatkit/train/trainer.hpp"

#include "support/cli.hpp"
#include "support/fixtures.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <optional>

using namespace gatkit;
using Catch::Contains;
using gatkit::test::read_text;
using gatkit::test::TempDir;

namespace {

// The whole state at the end of a run: not only the kept weights but the last ones, Adam's moments and the Rng.
void check_same_state(const TrainState& a, const TrainState& b) {
    CHECK(a.epoch == b.epoch);
    CHECK(a.weights == b.weights);
    CHECK(a.best_weights == b.best_weights);
    CHECK(a.best_epoch == b.best_epoch);
    CHECK(a.adam.t == b.adam.t);
    CHECK(a.adam.m == b.adam.m);
    CHECK(a.adam.v == b.adam.v);
    CHECK(a.rng == b.rng);
    CHECK(a.order == b.order);
}

bool same_weights(Model& a, Model& b) {
    const auto pa = a.parameters(), pb = b.parameters();
    if (pa.size() != pb.size()) return false;
    for (std::size_t k = 0; k < pa.size(); ++k)
        if (pa[k]->name != pb[k]->name || pa[k]->value != pb[k]->value) return false;
    return true;
}

// A small planted-partition graph, a random split and a small GAT: the node task in miniature.
struct NodeSetup {
    NodeDataset data = generate_planted_partition({.nodes = 120, .classes = 3, .avg_degree = 5, .features = 20, .seed = 3});
    NodeSplit split;
    ModelConfig config;

    NodeSetup() {
        row_normalize(data.features);
        Rng rng(7);
        const IndexSplit s = random_split(static_cast<std::size_t>(data.num_nodes()), {0.5, 0.25, 0.25}, rng);
        for (const auto i : s.train) split.train.push_back(static_cast<NodeId>(i));
        for (const auto i : s.val) split.val.push_back(static_cast<NodeId>(i));
        for (const auto i : s.test) split.test.push_back(static_cast<NodeId>(i));
        config.in_features = static_cast<int>(data.features.cols());
        config.num_classes = data.num_classes();
        config.heads = 2;
        config.hidden = 4;
    }
    Model model() const { return Model(config, 11); }
    NodeTrainOptions options(int epochs) const {
        NodeTrainOptions o;
        o.epochs = epochs;
        o.patience = 0;
        o.seed = 5;
        o.adam.lr = 0.05;
        return o;
    }
    NodeTrainResult train(Model& m, const NodeTrainOptions& o) const {
        return train_node_classifier(m, data.graph, data.features, data.labels, split, o);
    }
};

Checkpoint checkpoint_of(Model& model, const TrainState& state) {
    Checkpoint c;
    c.config = model.config();
    c.info = model.info();
    c.run = {{"--seed", "5"}, {"--data", "/data/planted"}};
    for (const auto* p : model.parameters()) c.parameter_names.push_back(p->name);
    c.state = state;
    return c;
}

}  // namespace

TEST_CASE("Adam's state put into a fresh optimiser continues with the same steps", "[checkpoint][optimizer]") {
    Parameter a{"a", 2, 3}, b{"b", 1, 2};
    Parameter c{"a", 2, 3}, d{"b", 1, 2};
    Rng rng(1);
    a.value = test::random_matrix<float>(2, 3, rng);
    b.value = test::random_matrix<float>(1, 2, rng);
    c.value = a.value;
    d.value = b.value;
    Adam first({&a, &b}, {.lr = 0.1, .weight_decay = 0.01});
    Adam second({&c, &d}, {.lr = 0.1, .weight_decay = 0.01});
    const auto step = [&](Adam& opt, Parameter& x, Parameter& y, int k) {
        x.grad = x.value * static_cast<float>(k);
        y.grad = y.value.array().square().matrix();
        opt.step();
    };
    for (int k = 1; k <= 3; ++k) step(first, a, b, k);
    c.value = a.value;
    d.value = b.value;
    second.set_state(first.state());
    CHECK(second.steps() == 3);
    for (int k = 4; k <= 6; ++k) {
        step(first, a, b, k);
        step(second, c, d, k);
    }
    CHECK(a.value == c.value);
    CHECK(b.value == d.value);

    AdamState wrong = first.state();
    wrong.m.pop_back();
    CHECK_THROWS_WITH(second.set_state(wrong), Contains("1 first and 2 second moments"));
    wrong = first.state();
    wrong.v[1] = Matrix::Zero(2, 2);
    CHECK_THROWS_WITH(second.set_state(wrong), Contains("moment of 'b' is 2x2, the parameter 1x2"));
}

TEST_CASE("LoopState: a fresh run starts from the given bests, a resumed one puts back every part of the state", "[checkpoint][train]") {
    Parameter a{"a", 2, 3};
    Rng init(4);
    a.value = test::random_matrix<float>(2, 3, init);
    Adam adam({&a}, {.lr = 0.1});
    Rng rng(8);
    CheckpointOptions none;
    LoopState fresh({&a}, adam, rng, none, -1.0, 5.0);
    CHECK(fresh.first_epoch() == 1);
    CHECK(fresh.best_score == -1.0);
    CHECK(fresh.best_loss == 5.0);
    CHECK(fresh.best_weights.empty());
    CHECK_FALSE(fresh.out_of_patience(3));
    CHECK_FALSE(fresh.out_of_patience(0));
    const Matrix kept = a.value;
    fresh.keep_best(2);
    a.value.setZero();
    fresh.restore_best();
    CHECK(a.value == kept);
    CHECK(fresh.best_epoch == 2);

    // The state after 4 epochs, as a trainer would save it; then a different parameter value
    // and Rng, which resuming must overwrite.
    std::vector<TrainState> saved;
    CheckpointOptions every;
    every.every = 2;
    every.save = [&](const TrainState& st) { saved.push_back(st); };
    LoopState writer({&a}, adam, rng, every, 0.0, 0.0);
    writer.best_score = 0.8;
    writer.best_loss = 0.3;
    writer.keep_best(3);
    writer.since_best = 1;
    writer.epoch_seconds = {0.5, 0.25, 0.75, 1.0};
    writer.extend = [](TrainState& st) { st.order = {2, 0, 1}; };
    writer.end_epoch(3);
    CHECK(saved.empty());  // not due
    writer.end_epoch(4);
    REQUIRE(saved.size() == 1);
    const TrainState st = saved.front();
    CHECK(st.epoch == 4);
    CHECK(st.order == std::vector<std::size_t>{2, 0, 1});
    const Matrix at_save = a.value;
    const std::uint64_t rng_at_save = rng.state();
    a.value.setConstant(7.0f);
    rng.next_u64();

    CheckpointOptions resume;
    resume.resume_from = &st;
    LoopState resumed({&a}, adam, rng, resume, -1.0, 5.0);
    CHECK(a.value == at_save);
    CHECK(rng.state() == rng_at_save);
    CHECK(resumed.first_epoch() == 5);
    CHECK(resumed.best_score == 0.8);
    CHECK(resumed.best_loss == 0.3);
    CHECK(resumed.best_epoch == 3);
    CHECK(resumed.since_best == 1);
    CHECK(resumed.best_weights == st.best_weights);
    CHECK(resumed.epoch_seconds == std::vector<double>{0.5, 0.25, 0.75, 1.0});
    CHECK(resumed.train_seconds() >= st.train_seconds);
    CHECK(resumed.out_of_patience(1));
    CHECK_FALSE(resumed.out_of_patience(2));

    // A stop request hands the state over and throws.
    std::atomic<bool> stop{true};
    CheckpointOptions stopping;
    stopping.stop = &stop;
    stopping.save = [&](const TrainState& s2) { saved.push_back(s2); };
    LoopState stopped({&a}, adam, rng, stopping, 0.0, 0.0);
    CHECK_THROWS_AS(stopped.end_epoch(1), TrainingInterrupted);
    REQUIRE(saved.size() == 2);
    CHECK(saved.back().epoch == 1);
}

TEST_CASE("A checkpoint file keeps every part of the training state exactly", "[checkpoint]") {
    TempDir dir;
    const NodeSetup setup;
    Model model = setup.model();
    std::optional<TrainState> saved;
    NodeTrainOptions o = setup.options(3);
    o.checkpoint.every = 3;
    o.checkpoint.save = [&](const TrainState& s) { saved = s; };
    setup.train(model, o);
    REQUIRE(saved);
    TrainState s = *saved;
    s.order = {4, 0, 2, 1, 3};
    s.batch_start = 2;
    s.epoch_loss_sum = 0.1 + 0.2;  // not exactly representable in decimal: must still read back the same
    s.epoch_batches = 1;
    s.best_loss = std::numeric_limits<double>::infinity();
    const std::string path = dir.file("run.ckpt");
    save_checkpoint(path, checkpoint_of(model, s));
    const Checkpoint c = load_checkpoint(path);

    CHECK(c.state.epoch == 3);
    CHECK(c.state.best_epoch == s.best_epoch);
    CHECK(c.state.since_best == s.since_best);
    CHECK(c.state.best_score == s.best_score);
    CHECK(std::isinf(c.state.best_loss));
    CHECK(c.state.rng == s.rng);
    CHECK(c.state.adam.t == 3);
    CHECK(c.state.weights == s.weights);
    CHECK(c.state.best_weights == s.best_weights);
    CHECK(c.state.adam.m == s.adam.m);
    CHECK(c.state.adam.v == s.adam.v);
    CHECK(c.state.order == s.order);
    CHECK(c.state.batch_start == 2);
    CHECK(c.state.epoch_loss_sum == s.epoch_loss_sum);
    CHECK(c.state.epoch_batches == 1);
    CHECK(c.state.epoch_seconds == s.epoch_seconds);
    CHECK(c.run.at("--seed") == "5");
    CHECK(c.config.heads == 2);
    CHECK(c.parameter_names.size() == model.parameters().size());
    // The rng state is 64 bits; JSON numbers would lose the low ones in many readers.
    CHECK(read_text(path).find("\"rng\\\":\\\"" + std::to_string(s.rng) + "\\\"") != std::string::npos);
}

TEST_CASE("Node training resumed from a checkpoint file ends with the same weights as an uninterrupted run", "[checkpoint][train]") {
    TempDir dir;
    const NodeSetup setup;
    Model whole = setup.model();
    std::optional<TrainState> end_whole, end_resumed;
    NodeTrainOptions w = setup.options(12);
    w.checkpoint.every = 12;
    w.checkpoint.save = [&](const TrainState& s) { end_whole = s; };
    const NodeTrainResult full = setup.train(whole, w);
    REQUIRE(end_whole);

    SECTION("stopped with --epochs 5, the periodic checkpoint resumed to 12") {
        Model first = setup.model();
        NodeTrainOptions o = setup.options(5);
        o.checkpoint.every = 5;
        o.checkpoint.save = [&](const TrainState& s) { save_checkpoint(dir.file("a.ckpt"), checkpoint_of(first, s)); };
        setup.train(first, o);
        const Checkpoint c = load_checkpoint(dir.file("a.ckpt"));
        CHECK(c.state.epoch == 5);

        Model resumed = setup.model();
        check_resume(c, dir.file("a.ckpt"), resumed.config(), resumed.parameters(), c.run);
        NodeTrainOptions r = setup.options(12);
        r.checkpoint.resume_from = &c.state;
        r.checkpoint.every = 12;
        r.checkpoint.save = [&](const TrainState& s) { end_resumed = s; };
        const NodeTrainResult res = setup.train(resumed, r);
        REQUIRE(end_resumed);
        check_same_state(*end_whole, *end_resumed);
        CHECK(same_weights(whole, resumed));
        CHECK(res.epochs_run == full.epochs_run);
        CHECK(res.best_epoch == full.best_epoch);
        CHECK(res.val_accuracy == full.val_accuracy);
        CHECK(res.val_loss == full.val_loss);
        CHECK(res.test_accuracy == full.test_accuracy);
    }
    SECTION("stopped by the stop flag after epoch 4: the state goes to the callback, then TrainingInterrupted") {
        Model first = setup.model();
        std::atomic<bool> stop{false};
        NodeTrainOptions o = setup.options(12);
        o.checkpoint.stop = &stop;
        o.checkpoint.save = [&](const TrainState& s) { save_checkpoint(dir.file("b.ckpt"), checkpoint_of(first, s)); };
        const auto on_epoch = [&](const EpochStats& s) {
            if (s.epoch == 4) stop = true;
        };
        try {
            train_node_classifier(first, setup.data.graph, setup.data.features, setup.data.labels, setup.split, o, on_epoch);
            FAIL("training was not interrupted");
        } catch (const TrainingInterrupted& e) {
            CHECK(e.epochs_completed == 4);
            CHECK(e.saved);
        }
        const Checkpoint c = load_checkpoint(dir.file("b.ckpt"));
        CHECK(c.state.epoch == 4);
        Model resumed = setup.model();
        NodeTrainOptions r = setup.options(12);
        r.checkpoint.resume_from = &c.state;
        setup.train(resumed, r);
        CHECK(same_weights(whole, resumed));
    }
}

TEST_CASE("Early stopping carries over: a run resumed after its patience ran out trains no further epoch", "[checkpoint][train]") {
    const NodeSetup setup;
    NodeTrainOptions o = setup.options(300);
    o.patience = 3;
    o.adam.lr = 0.05;
    Model whole = setup.model();
    const NodeTrainResult full = setup.train(whole, o);
    REQUIRE(full.epochs_run < 300);  // stopped early

    std::optional<TrainState> last;
    Model first = setup.model();
    NodeTrainOptions c = o;
    c.checkpoint.every = 1;
    c.checkpoint.save = [&](const TrainState& s) { last = s; };
    setup.train(first, c);
    REQUIRE(last);
    CHECK(last->epoch == full.epochs_run);
    Model resumed = setup.model();
    NodeTrainOptions r = o;
    r.checkpoint.resume_from = &*last;
    const NodeTrainResult res = setup.train(resumed, r);
    CHECK(res.epochs_run == full.epochs_run);
    CHECK(same_weights(whole, resumed));
}

TEST_CASE("Graph training stopped between two batches resumes inside the epoch to the same weights", "[checkpoint][train]") {
    TempDir dir;
    const GraphDataset data = test::random_graph_dataset(40);
    IndexSplit split;
    for (std::size_t i = 0; i < 40; ++i) (i < 28 ? split.train : i < 34 ? split.val : split.test).push_back(i);
    GraphFitOptions fit = test::tiny_graph_fit();
    fit.model.dropout = 0.2;  // dropout masks must continue too
    GraphTrainOptions o;
    o.epochs = 6;
    o.patience = 0;
    o.batch_size = 8;  // 4 batches per epoch
    o.seed = 9;
    o.adam.lr = 0.01;
    // A schedule is a function of Adam's step count, which the checkpoint restores.
    o.schedule.kind = GENERATE(as<std::string>{}, "constant", "noam", "cosine");
    CAPTURE(o.schedule.kind);

    Model whole = make_graph_model(data, fit, 3);
    std::optional<TrainState> end_whole, end_resumed;
    GraphTrainOptions w = o;
    w.checkpoint.every = 6;
    w.checkpoint.save = [&](const TrainState& st) { end_whole = st; };
    const GraphTrainResult full = train_graph_model(whole, data, split, w);
    REQUIRE(end_whole);

    // Stop after the second batch of epoch 3: the augment hook runs once per batch.
    Model first = make_graph_model(data, fit, 3);
    std::atomic<bool> stop{false};
    int batches_seen = 0;
    GraphTrainOptions s = o;
    s.augment = [&](Matrix&, Rng&) {
        if (++batches_seen == 2 * 4 + 2) stop = true;
    };
    s.checkpoint.stop = &stop;
    s.checkpoint.save = [&](const TrainState& st) { save_checkpoint(dir.file("g.ckpt"), checkpoint_of(first, st)); };
    try {
        train_graph_model(first, data, split, s);
        FAIL("training was not interrupted");
    } catch (const TrainingInterrupted& e) {
        CHECK(e.epochs_completed == 2);
        CHECK(e.batch_start == 16);
    }
    const Checkpoint c = load_checkpoint(dir.file("g.ckpt"));
    CHECK(c.state.batch_start == 16);
    CHECK(c.state.epoch_batches == 2);
    CHECK(c.state.order.size() == split.train.size());

    Model resumed = make_graph_model(data, fit, 3);
    GraphTrainOptions r = o;
    r.checkpoint.resume_from = &c.state;
    r.checkpoint.every = 6;
    r.checkpoint.save = [&](const TrainState& st) { end_resumed = st; };
    const GraphTrainResult res = train_graph_model(resumed, data, split, r);
    REQUIRE(end_resumed);
    check_same_state(*end_whole, *end_resumed);
    CHECK(same_weights(whole, resumed));
    CHECK(res.best_epoch == full.best_epoch);
    CHECK(res.epochs_run == full.epochs_run);

    SECTION("a checkpoint of another split is refused") {
        IndexSplit other = split;
        std::swap(other.train.front(), other.val.front());
        Model m = make_graph_model(data, fit, 3);
        CHECK_THROWS_WITH(train_graph_model(m, data, other, r), Contains("training order"));
    }
}

TEST_CASE("Damaged, foreign and mismatching checkpoints are refused with the reason", "[checkpoint]") {
    TempDir dir;
    const NodeSetup setup;
    Model model = setup.model();
    std::optional<TrainState> saved;
    NodeTrainOptions o = setup.options(2);
    o.checkpoint.every = 2;
    o.checkpoint.save = [&](const TrainState& s) { saved = s; };
    setup.train(model, o);
    const std::string path = dir.file("run.ckpt");
    save_checkpoint(path, checkpoint_of(model, *saved));
    const std::string bytes = read_text(path);

    SECTION("truncated") {
        write_file_atomically(path, bytes.substr(0, bytes.size() / 2));
        CHECK_THROWS_WITH(load_checkpoint(path), Contains("checkpoint '" + path + "'") && Contains("truncated"));
        write_file_atomically(path, bytes.substr(0, 5));
        CHECK_THROWS_AS(load_checkpoint(path), ParseError);
    }
    SECTION("a flipped byte in the tensor data") {
        std::string damaged = bytes;
        damaged[damaged.size() - 3] ^= 0x40;
        write_file_atomically(path, damaged);
        CHECK_THROWS_WITH(load_checkpoint(path), Contains("damaged") && Contains("checksum"));
    }
    SECTION("a missing file") { CHECK_THROWS_AS(load_checkpoint(dir.file("none.ckpt")), IoError); }
    SECTION("a model file is not a checkpoint, and a checkpoint is not a model file") {
        save_model(dir.file("m.gatkit"), model);
        CHECK_THROWS_WITH(load_checkpoint(dir.file("m.gatkit")), Contains("is a model file, not a training checkpoint"));
        CHECK_THROWS_WITH(load_model(path), Contains("is a training checkpoint, not a model file") && Contains("--resume"));
    }
    SECTION("another run's options or model") {
        const Checkpoint c = load_checkpoint(path);
        auto run = c.run;
        run["--seed"] = "6";
        CHECK_THROWS_WITH(check_resume(c, path, model.config(), model.parameters(), run),
                          Contains("--seed 5; this run has --seed 6"));
        run = c.run;
        run["--split"] = "random";
        CHECK_THROWS_WITH(check_resume(c, path, model.config(), model.parameters(), run),
                          Contains("--split (not given); this run has --split random"));
        ModelConfig wider = model.config();
        wider.heads = 3;
        Model other(wider, 1);
        CHECK_THROWS_WITH(check_resume(c, path, other.config(), other.parameters(), c.run),
                          Contains("heads = 2; this run builds one with heads = 3"));
        CHECK_NOTHROW(check_resume(c, path, model.config(), model.parameters(), c.run));
    }
}
