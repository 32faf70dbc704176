#include "gatkit/nn/activation.hpp"

namespace gatkit {

Activation parse_activation(const std::string& name) {
    if (name == "none") return Activation::none;
    if (name == "relu") return Activation::relu;
    if (name == "elu") return Activation::elu;
    if (name == "leaky_relu") return Activation::leaky_relu;
    throw ConfigError("unknown activation '" + name + "' (expected none, relu, elu or leaky_relu)");
}

std::string to_string(Activation a) {
    switch (a) {
        case Activation::relu: return "relu";
        case Activation::elu: return "elu";
        case Activation::leaky_relu: return "leaky_relu";
        case Activation::none: break;
    }
    return "none";
}

}  // namespace gatkit
