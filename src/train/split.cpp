#include "gatkit/train/split.hpp"

#include "gatkit/core/error.hpp"
#include "gatkit/io/csv.hpp"

#include <algorithm>
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

NodeSplit read_split_file(const std::string& path, const std::vector<std::string>& node_ids) {
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
    for (const auto* set : {&s.train, &s.val, &s.test})
        if (set->empty())
            throw ParseError(path + ": the " + std::string(set == &s.train ? "train" : set == &s.val ? "val" : "test") +
                             " set is empty");
    std::sort(s.train.begin(), s.train.end());
    std::sort(s.val.begin(), s.val.end());
    std::sort(s.test.begin(), s.test.end());
    return s;
}

}  // namespace gatkit
