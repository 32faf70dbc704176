#include "gatkit/train/checkpoint.hpp"

#include "../model/safetensors_io.hpp"
#include "gatkit/io/atomic_file.hpp"

#include <cmath>
#include <limits>

namespace gatkit {

using nlohmann::json;

TrainingInterrupted::TrainingInterrupted(int epochs, std::size_t batch, bool was_saved)
    : Error("training stopped after " + std::to_string(epochs) + (epochs == 1 ? " epoch" : " epochs") +
            (batch > 0 ? " and " + std::to_string(batch) + " graphs of the next" : std::string()) +
            (was_saved ? " (checkpoint written)" : " (no checkpoint)")),
      epochs_completed(epochs),
      batch_start(batch),
      saved(was_saved) {}

namespace {

constexpr const char* kFormat = "gatkit-checkpoint";

// Doubles in the state JSON: numbers when finite (nlohmann writes the shortest text that reads
// back to the same double), else "nan", "inf" or "-inf" (JSON has no such numbers).
json number(double v) {
    if (std::isfinite(v)) return v;
    return std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf";
}

double number_from(const json& j) {
    if (j.is_number()) return j.get<double>();
    const std::string s = j.get<std::string>();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
    throw ConfigError("expected a number, 'nan', 'inf' or '-inf', got '" + s + "'");
}

// FNV-1a over the tensor bytes: a damaged file (a flipped or lost byte that leaves the header
// readable) is refused instead of resuming from wrong weights.
std::string data_hash(const char* data, std::size_t size) {
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (std::size_t k = 0; k < size; ++k) {
        h ^= static_cast<unsigned char>(data[k]);
        h *= 0x100000001b3ULL;
    }
    return std::to_string(h);
}

std::string shape_text(const Matrix& m) { return "[" + std::to_string(m.rows()) + "," + std::to_string(m.cols()) + "]"; }

}  // namespace

void save_checkpoint(const std::string& path, const Checkpoint& c) {
    const TrainState& s = c.state;
    if (c.parameter_names.size() != s.weights.size())
        throw ConfigError("save_checkpoint: " + std::to_string(c.parameter_names.size()) + " parameter names for " +
                          std::to_string(s.weights.size()) + " weights");
    std::vector<std::pair<std::string, const Matrix*>> named;
    for (std::size_t k = 0; k < s.weights.size(); ++k) named.emplace_back("param." + c.parameter_names[k], &s.weights[k]);
    for (std::size_t k = 0; k < s.best_weights.size(); ++k) named.emplace_back("best." + c.parameter_names[k], &s.best_weights[k]);
    for (std::size_t k = 0; k < s.adam.m.size(); ++k) named.emplace_back("adam.m." + c.parameter_names[k], &s.adam.m[k]);
    for (std::size_t k = 0; k < s.adam.v.size(); ++k) named.emplace_back("adam.v." + c.parameter_names[k], &s.adam.v[k]);
    // An ensemble run's finished members: their kept weights as member.<m>.<name>.
    if (c.finished.size() != static_cast<std::size_t>(c.member))
        throw ConfigError("save_checkpoint: member " + std::to_string(c.member) + " with " + std::to_string(c.finished.size()) + " finished members");
    json finished = json::array();
    for (std::size_t m = 0; m < c.finished.size(); ++m) {
        const FinishedMember& f = c.finished[m];
        if (f.weights.size() != c.parameter_names.size())
            throw ConfigError("save_checkpoint: finished member " + std::to_string(m) + " has " + std::to_string(f.weights.size()) + " weights");
        for (std::size_t k = 0; k < f.weights.size(); ++k) named.emplace_back("member." + std::to_string(m) + "." + c.parameter_names[k], &f.weights[k]);
        finished.push_back({{"epochs_run", f.epochs_run},
                            {"best_epoch", f.best_epoch},
                            {"train_seconds", number(f.train_seconds)},
                            {"epoch_seconds_median", number(f.epoch_seconds_median)}});
    }
    std::vector<detail::TensorRef> tensors = detail::float_tensors(named);
    MatrixT<std::int32_t> order(static_cast<Eigen::Index>(s.order.size()), 1);
    for (std::size_t k = 0; k < s.order.size(); ++k) {
        if (s.order[k] > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
            throw ConfigError("save_checkpoint: training order entry " + std::to_string(s.order[k]) + " does not fit in 32 bits");
        order(static_cast<Eigen::Index>(k), 0) = static_cast<std::int32_t>(s.order[k]);
    }
    if (!s.order.empty()) tensors.push_back({"train.order", "I32", order.rows(), 1, order.data()});

    json state = {{"epoch", s.epoch},
                  {"best_epoch", s.best_epoch},
                  {"since_best", s.since_best},
                  {"best_score", number(s.best_score)},
                  {"best_loss", number(s.best_loss)},
                  {"rng", std::to_string(s.rng)},  // 64 bits: a string, as many JSON readers keep 53
                  {"adam_t", s.adam.t},
                  {"parameters", c.parameter_names},
                  {"has_best", !s.best_weights.empty()},
                  {"batch_start", s.batch_start},
                  {"epoch_loss_sum", number(s.epoch_loss_sum)},
                  {"epoch_batches", s.epoch_batches},
                  {"epoch_seconds", s.epoch_seconds},
                  {"train_seconds", s.train_seconds}};
    if (c.member > 0) {
        state["member"] = c.member;
        state["finished"] = finished;
    }
    json run = json::object();
    for (const auto& [k, v] : c.run) run[k] = v;
    json meta = {{"format", kFormat},
                 {"format_version", std::to_string(kCheckpointFormatVersion)},
                 {"model_type", "gat"},
                 {"config", detail::config_to_json(c.config).dump()},
                 {"info", detail::info_to_json(c.info).dump()},
                 {"run", run.dump()},
                 {"state", state.dump()}};
    // The hash covers the data section, which safetensors_bytes lays out in tensor order.
    std::string data;
    for (const auto& t : tensors) data.append(static_cast<const char*>(t.data), static_cast<std::size_t>(t.rows * t.cols) * 4);
    meta["data_hash"] = data_hash(data.data(), data.size());
    write_file_atomically(path, detail::safetensors_bytes(tensors, meta));
}

Checkpoint load_checkpoint(const std::string& path) {
    const detail::SafetensorsFile file("checkpoint", path);
    const std::string format = file.meta_text("format");
    if (format == "gatkit") throw file.bad("is a model file, not a training checkpoint (checkpoints are written by gatkit train --checkpoint-every or on Ctrl-C)");
    if (format != kFormat) throw file.bad("not a gatkit checkpoint: a safetensors file without '" + std::string(kFormat) + "' metadata");
    const std::string version = file.meta_text("format_version");
    if (version != std::to_string(kCheckpointFormatVersion))
        throw file.bad("unsupported checkpoint format version '" + version + "' (this gatkit reads version " +
                       std::to_string(kCheckpointFormatVersion) + ")");
    const std::string want_hash = file.meta_text("data_hash");
    const std::string have_hash = data_hash(file.bytes.data() + file.data_start, file.bytes.size() - file.data_start);
    if (want_hash != have_hash)
        throw file.bad("damaged: the tensor data do not match the checksum in its header (data hash " + have_hash + ", expected " +
                       want_hash + "); use an earlier checkpoint or start afresh");

    Checkpoint c;
    TrainState& s = c.state;
    try {
        c.config = detail::config_from_json(file.meta_json("config"));
        c.config.validate();
        c.info = detail::info_from_json(file.meta_json("info"));
        const json run = file.meta_json("run");
        for (const auto& [k, v] : run.items()) c.run[k] = v.get<std::string>();
        const json state = file.meta_json("state");
        s.epoch = detail::integer_of<int>(state, "epoch");
        s.best_epoch = detail::integer_of<int>(state, "best_epoch");
        s.since_best = detail::integer_of<int>(state, "since_best");
        s.best_score = number_from(state.at("best_score"));
        s.best_loss = number_from(state.at("best_loss"));
        s.rng = std::stoull(state.at("rng").get<std::string>());
        s.adam.t = detail::integer_of<long>(state, "adam_t");
        c.parameter_names = state.at("parameters").get<std::vector<std::string>>();
        const bool has_best = state.at("has_best").get<bool>();
        s.batch_start = detail::integer_of<std::size_t>(state, "batch_start");
        s.epoch_loss_sum = number_from(state.at("epoch_loss_sum"));
        s.epoch_batches = detail::integer_of<int>(state, "epoch_batches");
        s.epoch_seconds = state.at("epoch_seconds").get<std::vector<double>>();
        s.train_seconds = state.at("train_seconds").get<double>();
        if (s.epoch < 0 || s.best_epoch < 0 || s.best_epoch > s.epoch || s.since_best < 0 || s.adam.t < 0 || s.epoch_batches < 0)
            throw file.bad("state is inconsistent: " + state.dump());
        for (const auto& name : c.parameter_names) {
            Matrix w;
            file.read("param." + name, w);
            Matrix m(w.rows(), w.cols()), v(w.rows(), w.cols());
            file.read("adam.m." + name, m);
            file.read("adam.v." + name, v);
            if (has_best) {
                Matrix b(w.rows(), w.cols());
                file.read("best." + name, b);
                s.best_weights.push_back(std::move(b));
            }
            s.weights.push_back(std::move(w));
            s.adam.m.push_back(std::move(m));
            s.adam.v.push_back(std::move(v));
        }
        if (file.has_tensor("train.order")) {
            MatrixT<std::int32_t> order;
            file.read("train.order", order);
            for (Eigen::Index k = 0; k < order.size(); ++k) {
                if (order.data()[k] < 0) throw file.bad("tensor 'train.order' holds " + std::to_string(order.data()[k]));
                s.order.push_back(static_cast<std::size_t>(order.data()[k]));
            }
        }
        c.member = detail::integer_of<int>(state, "member", 0);
        if (c.member < 0) throw file.bad("state is inconsistent: member " + std::to_string(c.member));
        if (c.member > 0) {
            const json& finished = state.at("finished");
            if (!finished.is_array() || finished.size() != static_cast<std::size_t>(c.member))
                throw file.bad("state is inconsistent: member " + std::to_string(c.member) + " with " + finished.dump() + " finished");
            for (std::size_t m = 0; m < finished.size(); ++m) {
                FinishedMember f;
                f.epochs_run = detail::integer_of<int>(finished[m], "epochs_run");
                f.best_epoch = detail::integer_of<int>(finished[m], "best_epoch");
                f.train_seconds = number_from(finished[m].at("train_seconds"));
                f.epoch_seconds_median = number_from(finished[m].at("epoch_seconds_median"));
                for (std::size_t k = 0; k < c.parameter_names.size(); ++k) {
                    Matrix w(s.weights[k].rows(), s.weights[k].cols());
                    file.read("member." + std::to_string(m) + "." + c.parameter_names[k], w);
                    f.weights.push_back(std::move(w));
                }
                c.finished.push_back(std::move(f));
            }
        }
        if (s.batch_start > s.order.size())
            throw file.bad("state is inconsistent: batch_start " + std::to_string(s.batch_start) + " beyond the " +
                           std::to_string(s.order.size()) + " training graphs");
    } catch (const json::exception& e) {
        throw file.bad(std::string("metadata is incomplete or malformed: ") + e.what());
    } catch (const std::logic_error& e) {  // std::stoull
        throw file.bad(std::string("metadata is incomplete or malformed: ") + e.what());
    } catch (const ConfigError& e) {
        throw file.bad(e.what());
    }
    return c;
}

void check_resume(const Checkpoint& c, const std::string& path, const ModelConfig& config, const ParameterList<float>& params,
                  const std::map<std::string, std::string>& run) {
    const std::string where = "checkpoint '" + path + "'";
    const std::string hint = " (resume with the options of the run that wrote it, or start afresh without --resume)";
    const auto shown = [](const std::map<std::string, std::string>& m, const std::string& key) {
        const auto it = m.find(key);
        // An empty value is a flag left out, whose default the task chose.
        return it == m.end() ? std::string("(not given)") : it->second.empty() ? std::string("(not given: the default)") : it->second;
    };
    std::vector<std::string> keys;
    for (const auto& [k, v] : c.run) keys.push_back(k);
    for (const auto& [k, v] : run)
        if (!c.run.count(k)) keys.push_back(k);
    for (const auto& k : keys) {
        if (shown(c.run, k) == shown(run, k)) continue;
        // "<flag> contents": a digest of what the input held. Older checkpoints have none.
        if (k.size() > 9 && k.ends_with(" contents")) {
            if (!c.run.count(k)) continue;
            const std::string flag = k.substr(0, k.size() - 9);
            throw ConfigError(where + " was written from other contents of " + flag + " (digest " + shown(c.run, k) + ", now " +
                              shown(run, k) + "): the input changed since, and its split and weights would not match it" + hint);
        }
        throw ConfigError(where + " was written by a run with " + k + " " + shown(c.run, k) + "; this run has " + k + " " +
                          shown(run, k) + hint);
    }
    const json was = detail::config_to_json(c.config), now = detail::config_to_json(config);
    for (const auto& [k, v] : now.items())
        if (!was.contains(k) || was[k] != v)
            throw ConfigError(where + " holds a model with " + k + " = " + (was.contains(k) ? was[k].dump() : "(none)") +
                              "; this run builds one with " + k + " = " + v.dump() + hint);
    if (c.parameter_names.size() != params.size())
        throw ConfigError(where + " holds " + std::to_string(c.parameter_names.size()) + " parameters; this run's model has " +
                          std::to_string(params.size()) + hint);
    for (std::size_t k = 0; k < params.size(); ++k) {
        const Matrix& w = c.state.weights[k];
        if (c.parameter_names[k] != params[k]->name || w.rows() != params[k]->value.rows() || w.cols() != params[k]->value.cols())
            throw ConfigError(where + ": parameter " + std::to_string(k) + " is '" + c.parameter_names[k] + "' " + shape_text(w) +
                              "; this run's model has '" + params[k]->name + "' " + shape_text(params[k]->value) + hint);
    }
}

TrainState capture_state(int epochs_completed, const ParameterList<float>& params, const AdamT<float>& adam, const Rng& rng) {
    TrainState s;
    s.epoch = epochs_completed;
    s.rng = rng.state();
    s.adam = adam.state();
    for (const auto* p : params) s.weights.push_back(p->value);
    return s;
}

void restore_state(const TrainState& s, const ParameterList<float>& params, AdamT<float>& adam, Rng& rng) {
    if (s.weights.size() != params.size() || (!s.best_weights.empty() && s.best_weights.size() != params.size()))
        throw ShapeError("resume: the state holds " + std::to_string(s.weights.size()) + " weights (" + std::to_string(s.best_weights.size()) +
                         " kept), the model has " + std::to_string(params.size()) + " parameters");
    for (std::size_t k = 0; k < params.size(); ++k) {
        const Matrix& p = params[k]->value;
        for (const Matrix* w : {&s.weights[k], s.best_weights.empty() ? &s.weights[k] : &s.best_weights[k]})
            if (w->rows() != p.rows() || w->cols() != p.cols())
                throw ShapeError("resume: weights of '" + params[k]->name + "' are " + shape_text(*w) + ", the parameter " + shape_text(p));
    }
    adam.set_state(s.adam);
    for (std::size_t k = 0; k < params.size(); ++k) params[k]->value = s.weights[k];
    rng.set_state(s.rng);
}

void interrupt_training(const CheckpointOptions& o, const TrainState& state) {
    if (o.save) o.save(state);
    throw TrainingInterrupted(state.epoch, state.batch_start, static_cast<bool>(o.save));
}

LoopState::LoopState(const ParameterList<float>& params, AdamT<float>& adam, Rng& rng, const CheckpointOptions& options, double best_score,
                     double best_loss)
    : best_score(best_score), best_loss(best_loss), params_(params), adam_(adam), rng_(rng), options_(options) {
    if (const TrainState* r = options.resume_from) {
        restore_state(*r, params_, adam_, rng_);
        this->best_score = r->best_score;
        this->best_loss = r->best_loss;
        best_epoch = r->best_epoch;
        since_best = r->since_best;
        epochs_run = r->epoch;
        best_weights = r->best_weights;
        epoch_seconds = r->epoch_seconds;
        seconds_before_ = r->train_seconds;
    }
    start_ = std::chrono::steady_clock::now();
}

void LoopState::keep_best(int epoch) {
    best_epoch = epoch;
    since_best = 0;
    best_weights.clear();
    for (const auto* p : params_) best_weights.push_back(p->value);
}

void LoopState::end_epoch(int epoch) {
    epochs_run = epoch;
    if (checkpoint_due(options_, epoch)) options_.save(state(epoch));
    if (stop_requested(options_)) interrupt_training(options_, state(epoch));
}

TrainState LoopState::state(int epochs_completed) const {
    TrainState st = capture_state(epochs_completed, params_, adam_, rng_);
    st.best_epoch = best_epoch;
    st.since_best = since_best;
    st.best_score = best_score;
    st.best_loss = best_loss;
    st.best_weights = best_weights;
    st.epoch_seconds = epoch_seconds;
    st.train_seconds = train_seconds();
    if (extend) extend(st);
    return st;
}

void LoopState::restore_best() const {
    for (std::size_t k = 0; k < params_.size() && k < best_weights.size(); ++k) params_[k]->value = best_weights[k];
}

double LoopState::train_seconds() const {
    return seconds_before_ + std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

}  // namespace gatkit
