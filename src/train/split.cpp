#include "gatkit/train/split.hpp"

#include "gatkit/core/error.hpp"
#include "gatkit/io/csv.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <numeric>
#include <sstream>
#include <unordered_map>

namespace gatkit {

NodeSplit planetoid_split(const std::vector<int>& labels, int num_classes, Rng& rng, const PlanetoidOptions& o) {
    const auto N = static_cast<NodeId>(labels.size());
    NodeSplit s;
    std::vector<char> used(labels.size(), 0);
    for (int c = 0; c < num_classes; ++c) {
        std::vector<NodeId> members;
        for (NodeId i = 0; i < N; ++i)
            if (labels[i] == c) members.push_back(i);
        rng.shuffle(members);
        const std::size_t take = std::min<std::size_t>(members.size(), static_cast<std::size_t>(o.per_class));
        for (std::size_t k = 0; k < take; ++k) {
            s.train.push_back(members[k]);
            used[members[k]] = 1;
        }
    }
    std::vector<NodeId> rest;
    for (NodeId i = 0; i < N; ++i)
        if (!used[i]) rest.push_back(i);
    rng.shuffle(rest);
    const std::size_t n_val = std::min<std::size_t>(rest.size(), static_cast<std::size_t>(o.num_val));
    const std::size_t n_test = std::min<std::size_t>(rest.size() - n_val, static_cast<std::size_t>(o.num_test));
    if (n_val == 0 || n_test == 0)
        throw ConfigError("planetoid split: " + std::to_string(N) + " nodes leave " + std::to_string(rest.size()) +
                          " after " + std::to_string(s.train.size()) +
                          " training nodes, too few for a validation and a test set");
    s.val.assign(rest.begin(), rest.begin() + static_cast<std::ptrdiff_t>(n_val));
    s.test.assign(rest.begin() + static_cast<std::ptrdiff_t>(n_val), rest.begin() + static_cast<std::ptrdiff_t>(n_val + n_test));
    std::sort(s.train.begin(), s.train.end());
    std::sort(s.val.begin(), s.val.end());
    std::sort(s.test.begin(), s.test.end());
    return s;
}

NodeSplit read_split_file(const std::string& path, const std::vector<std::string>& node_ids, bool allow_empty_parts) {
    std::unordered_map<std::string, NodeId> index;
    for (std::size_t i = 0; i < node_ids.size(); ++i) index.emplace(node_ids[i], static_cast<NodeId>(i));
    CsvReader csv(path);
    const std::size_t id_col = csv.column("node_id"), split_col = csv.column("split");
    std::vector<std::size_t> listed_on(node_ids.size(), 0);
    NodeSplit s;
    std::vector<std::string> fields;
    while (csv.next(fields)) {
        if (fields.size() != csv.header().size())
            throw ParseError(csv.where() + ": expected " + std::to_string(csv.header().size()) + " columns, found " +
                             std::to_string(fields.size()));
        const std::string& id = fields[id_col];
        const std::string& part = fields[split_col];
        const auto it = index.find(id);
        if (it == index.end()) throw ParseError(csv.where() + ": node_id '" + clip(id) + "' is not a node of the data set");
        if (listed_on[it->second] != 0)
            throw ParseError(csv.where() + ": node_id '" + clip(id) + "' is listed twice (first on line " +
                             std::to_string(listed_on[it->second]) + ")");
        listed_on[it->second] = csv.line_number();
        if (part == "train")
            s.train.push_back(it->second);
        else if (part == "val")
            s.val.push_back(it->second);
        else if (part == "test")
            s.test.push_back(it->second);
        else
            throw ParseError(csv.where() + ": split '" + clip(part) + "' for node '" + clip(id) + "' (expected train, val or test)");
    }
    if (allow_empty_parts && s.train.empty() && s.val.empty() && s.test.empty()) throw ParseError(path + ": the file lists no node");
    for (const auto* set : {&s.train, &s.val, &s.test})
        if (set->empty() && !allow_empty_parts)
            throw ParseError(path + ": the " + std::string(set == &s.train ? "train" : set == &s.val ? "val" : "test") +
                             " set is empty");
    std::sort(s.train.begin(), s.train.end());
    std::sort(s.val.begin(), s.val.end());
    std::sort(s.test.begin(), s.test.end());
    return s;
}

namespace {

void validate_sizes(const std::array<double, 3>& sizes) {
    const char* names[3] = {"train", "val", "test"};
    for (int i = 0; i < 3; ++i)
        if (!(sizes[i] >= 0.0 && sizes[i] <= 1.0))  // also rejects NaN
            throw ConfigError("split sizes: " + std::string(names[i]) + " fraction " + std::to_string(sizes[i]) +
                              " is outside [0, 1]");
    if (sizes[0] <= 0.0) throw ConfigError("split sizes: the train fraction is 0");
    const double sum = sizes[0] + sizes[1] + sizes[2];
    // 1e-6 admits fractions typed with a few decimals ("0.33,0.33,0.34") and their float error.
    if (std::abs(sum - 1.0) > 1e-6)
        throw ConfigError("split sizes: " + std::to_string(sizes[0]) + " + " + std::to_string(sizes[1]) + " + " +
                          std::to_string(sizes[2]) + " = " + std::to_string(sum) + ", expected 1");
}

// chemprop's rounding: train = int(s0·n), train+val = int((s0+s1)·n), test the rest.
std::array<std::size_t, 2> chemprop_cuts(std::size_t n, const std::array<double, 3>& sizes) {
    const auto train_end = static_cast<std::size_t>(sizes[0] * static_cast<double>(n));
    const auto val_end = static_cast<std::size_t>((sizes[0] + sizes[1]) * static_cast<double>(n));
    return {std::min(train_end, n), std::min(std::max(val_end, train_end), n)};
}

void append_cut(IndexSplit& s, const std::vector<std::size_t>& shuffled, const std::array<double, 3>& sizes) {
    const auto [train_end, val_end] = chemprop_cuts(shuffled.size(), sizes);
    s.train.insert(s.train.end(), shuffled.begin(), shuffled.begin() + static_cast<std::ptrdiff_t>(train_end));
    s.val.insert(s.val.end(), shuffled.begin() + static_cast<std::ptrdiff_t>(train_end),
                 shuffled.begin() + static_cast<std::ptrdiff_t>(val_end));
    s.test.insert(s.test.end(), shuffled.begin() + static_cast<std::ptrdiff_t>(val_end), shuffled.end());
}

void sort_parts(IndexSplit& s) {
    std::sort(s.train.begin(), s.train.end());
    std::sort(s.val.begin(), s.val.end());
    std::sort(s.test.begin(), s.test.end());
}

// Indices of each distinct label, labels ascending, indices ascending within a label.
std::map<int, std::vector<std::size_t>> indices_by_label(const std::vector<int>& labels) {
    std::map<int, std::vector<std::size_t>> classes;
    for (std::size_t i = 0; i < labels.size(); ++i) classes[labels[i]].push_back(i);
    return classes;
}

}  // namespace

std::array<double, 3> parse_split_sizes(const std::string& text) {
    std::array<double, 3> sizes{};
    std::size_t count = 0;
    std::stringstream in(text);
    std::string field;
    while (std::getline(in, field, ',')) {
        const auto first = field.find_first_not_of(" \t");
        const auto last = field.find_last_not_of(" \t");
        const std::string value = first == std::string::npos ? "" : field.substr(first, last - first + 1);
        char* end = nullptr;
        const double x = std::strtod(value.c_str(), &end);
        if (value.empty() || end != value.c_str() + value.size() || !std::isfinite(x))
            throw ConfigError("split sizes '" + clip(text) + "': '" + clip(value) + "' is not a number");
        if (count < 3) sizes[count] = x;
        ++count;
    }
    if (!text.empty() && text.back() == ',') ++count;  // getline drops a trailing empty field
    if (count != 3)
        throw ConfigError("split sizes '" + clip(text) + "': " + std::to_string(count) +
                          " values, expected 3 (train,val,test such as 0.8,0.1,0.1)");
    validate_sizes(sizes);
    return sizes;
}

IndexSplit random_split(std::size_t n, const std::array<double, 3>& sizes, Rng& rng) {
    validate_sizes(sizes);
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
    rng.shuffle(order);
    IndexSplit s;
    append_cut(s, order, sizes);
    sort_parts(s);
    return s;
}

IndexSplit stratified_split(const std::vector<int>& labels, const std::array<double, 3>& sizes, Rng& rng) {
    validate_sizes(sizes);
    IndexSplit s;
    for (auto& [label, members] : indices_by_label(labels)) {
        rng.shuffle(members);
        append_cut(s, members, sizes);
    }
    sort_parts(s);
    return s;
}

IndexSplit scaffold_split(const std::vector<std::string>& scaffolds, const std::array<double, 3>& sizes, Rng& rng) {
    validate_sizes(sizes);
    const double n = static_cast<double>(scaffolds.size());
    const double train_size = sizes[0] * n, val_size = sizes[1] * n, test_size = sizes[2] * n;

    std::unordered_map<std::string, std::size_t> set_of;
    std::vector<std::vector<std::size_t>> sets;  // in order of first appearance
    for (std::size_t i = 0; i < scaffolds.size(); ++i) {
        const auto [it, inserted] = set_of.emplace(scaffolds[i], sets.size());
        if (inserted) sets.emplace_back();
        sets[it->second].push_back(i);
    }
    std::vector<std::vector<std::size_t>> big, small;
    for (auto& set : sets) {
        const auto size = static_cast<double>(set.size());
        (size > val_size / 2 || size > test_size / 2 ? big : small).push_back(std::move(set));
    }
    rng.shuffle(big);
    rng.shuffle(small);

    IndexSplit s;
    const auto place = [&](const std::vector<std::size_t>& set) {
        const auto size = static_cast<double>(set.size());
        std::vector<std::size_t>& part = static_cast<double>(s.train.size()) + size <= train_size ? s.train
                                         : static_cast<double>(s.val.size()) + size <= val_size   ? s.val
                                                                                                  : s.test;
        part.insert(part.end(), set.begin(), set.end());
    };
    for (const auto& set : big) place(set);
    for (const auto& set : small) place(set);
    sort_parts(s);
    return s;
}

std::vector<IndexSplit> stratified_kfold(const std::vector<int>& labels, int k, Rng& rng) {
    if (k < 3 || static_cast<std::size_t>(k) > labels.size())
        throw ConfigError("stratified k-fold: k = " + std::to_string(k) + " for " + std::to_string(labels.size()) +
                          " items, expected 3 <= k <= " + std::to_string(labels.size()) +
                          " (one fold is the test set, the next the validation set)");
    const auto K = static_cast<std::size_t>(k);
    std::vector<std::vector<std::size_t>> folds(K);
    std::size_t dealt = 0;
    for (auto& [label, members] : indices_by_label(labels)) {
        rng.shuffle(members);
        for (const std::size_t i : members) folds[dealt++ % K].push_back(i);
    }
    std::vector<IndexSplit> splits(K);
    for (std::size_t f = 0; f < K; ++f) {
        for (std::size_t g = 0; g < K; ++g) {
            auto& part = g == f ? splits[f].test : g == (f + 1) % K ? splits[f].val : splits[f].train;
            part.insert(part.end(), folds[g].begin(), folds[g].end());
        }
        sort_parts(splits[f]);
    }
    return splits;
}

IndexSplit split_from_column(const std::vector<std::string>& values) {
    IndexSplit s;
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (values[i] == "train")
            s.train.push_back(i);
        else if (values[i] == "val")
            s.val.push_back(i);
        else if (values[i] == "test")
            s.test.push_back(i);
        else
            throw ParseError("split column, row " + std::to_string(i) + ": '" + clip(values[i]) +
                             "' (expected train, val or test)");
    }
    return s;
}

}  // namespace gatkit
