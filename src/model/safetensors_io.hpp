// Private to the library (not installed): the safetensors writer and reader behind model files
// (model/model_file.hpp) and training checkpoints (train/checkpoint.hpp), and the JSON form of
// ModelConfig and ModelInfo they both keep in their metadata. docs/model-format.md describes
// the layout.
#pragma once

#include "gatkit/core/error.hpp"
#include "gatkit/model/config.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace gatkit::detail {

// The integer `j[key]` as T: ConfigError unless it is a JSON integer that T can hold (a
// get<int>() would convert 1e20 or 2^40 with undefined or wrapped results).
template <class T>
T integer_of(const nlohmann::json& j, const char* key) {
    const nlohmann::json& v = j.at(key);
    if (v.is_number_unsigned()) {
        if (const auto u = v.get<std::uint64_t>(); std::in_range<T>(u)) return static_cast<T>(u);
    } else if (v.is_number_integer()) {
        if (const auto i = v.get<std::int64_t>(); std::in_range<T>(i)) return static_cast<T>(i);
    }
    throw ConfigError(std::string("'") + key + "' is " + v.dump() + ", not an integer from " +
                      std::to_string(std::numeric_limits<T>::min()) + " to " + std::to_string(std::numeric_limits<T>::max()));
}
// The same for an optional entry: `fallback` when `key` is absent.
template <class T>
T integer_of(const nlohmann::json& j, const char* key, T fallback) {
    return j.contains(key) ? integer_of<T>(j, key) : fallback;
}

nlohmann::json config_to_json(const ModelConfig& c);
ModelConfig config_from_json(const nlohmann::json& j);
nlohmann::json info_to_json(const ModelInfo& info);
ModelInfo info_from_json(const nlohmann::json& j);

// One 2-D tensor to write: F32 (a float matrix) or I32 (ids).
struct TensorRef {
    std::string name;
    const char* dtype;
    std::int64_t rows, cols;
    const void* data;
};

std::vector<TensorRef> float_tensors(const std::vector<std::pair<std::string, const Matrix*>>& tensors);

// The bytes of a safetensors file for named tensors and string-valued metadata.
std::string safetensors_bytes(const std::vector<TensorRef>& tensors, const nlohmann::json& metadata);

// A safetensors file read and checked up to its metadata; tensors are read on demand. `what`
// names the kind of file in every message ("model file", "checkpoint").
struct SafetensorsFile {
    std::string what, path;
    std::string bytes;
    nlohmann::json header;
    std::size_t data_start = 0;

    // IoError when the file cannot be opened; ParseError when it is too short for its header,
    // the header is not JSON, or it has no `__metadata__` object.
    SafetensorsFile(std::string what, const std::string& path);

    ParseError bad(const std::string& why) const { return ParseError(what + " '" + path + "': " + why); }

    // safetensors metadata values are strings; anything else is shown as its JSON text (json::value
    // would throw a type_error that is not a gatkit::Error).
    static std::string text_of(const nlohmann::json& object, const char* key);
    const nlohmann::json& meta() const { return header["__metadata__"]; }
    std::string meta_text(const char* key) const { return text_of(meta(), key); }
    // The metadata entry `key` (JSON text inside a string), parsed; ParseError when it is missing
    // or malformed.
    nlohmann::json meta_json(const char* key) const;
    bool has_tensor(const std::string& name) const { return header.contains(name) && name != "__metadata__"; }

    // Reads tensor `name` into `m`; with m's shape unless m is empty (then any 2-D shape).
    template <class M>
    void read(const std::string& name, M& m) const {
        using Scalar = typename M::Scalar;
        static_assert(sizeof(Scalar) == 4);
        const char* dtype = std::is_floating_point_v<Scalar> ? "F32" : "I32";
        if (!has_tensor(name)) throw bad("tensor '" + name + "' is missing");
        const nlohmann::json& t = header[name];
        const std::size_t data_size = bytes.size() - data_start;
        try {
            if (t.at("dtype").get<std::string>() != dtype)
                throw bad("tensor '" + name + "' has dtype " + t.at("dtype").get<std::string>() + ", expected " + dtype);
            const auto shape = t.at("shape").get<std::vector<std::int64_t>>();
            const bool any = m.size() == 0 && m.rows() == 0;
            if (shape.size() != 2 || shape[0] < 0 || shape[1] < 0 || (!any && (shape[0] != m.rows() || shape[1] != m.cols())))
                throw bad("tensor '" + name + "' has shape " + t.at("shape").dump() + ", expected [" + std::to_string(m.rows()) + "," +
                          std::to_string(m.cols()) + "]");
            const auto off = t.at("data_offsets").get<std::vector<std::uint64_t>>();
            const std::size_t want = static_cast<std::size_t>(shape[0]) * static_cast<std::size_t>(shape[1]) * sizeof(Scalar);
            if (off.size() != 2 || off[0] > off[1] || off[1] > data_size || off[1] - off[0] != want)
                throw bad("tensor '" + name + "' has data offsets " + t.at("data_offsets").dump() + " outside the " +
                          std::to_string(data_size) + " data bytes (truncated file?)");
            if (any) m.resize(shape[0], shape[1]);
            std::memcpy(m.data(), bytes.data() + data_start + off[0], want);
            // Training never writes a NaN or an infinity (the divergence guard stops it first):
            // one here is damage, and would only give NaN predictions later.
            if constexpr (std::is_floating_point_v<Scalar>)
                for (Eigen::Index k = 0; k < m.size(); ++k)
                    if (!std::isfinite(m.data()[k]))
                        throw bad("tensor '" + name + "' holds " + (std::isnan(m.data()[k]) ? "NaN" : "an infinity") + " at element " +
                                  std::to_string(k) + " (a damaged file)");
        } catch (const nlohmann::json::exception& e) {
            throw bad("tensor '" + name + "' entry is malformed: " + e.what());
        }
    }
};

}  // namespace gatkit::detail
