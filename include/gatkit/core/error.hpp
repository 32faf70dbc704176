// gatkit's exception hierarchy. Library code never prints or exits: it throws one of these,
// with the numbers that explain the failure in the message (file:line, the value, what was
// expected). The command-line program turns them into exit code 1.
#pragma once

#include <stdexcept>
#include <string>

namespace gatkit {

class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A bad option or combination of options (e.g. heads = 0).
class ConfigError : public Error {
public:
    using Error::Error;
};

// A file whose content cannot be read as the expected format.
class ParseError : public Error {
public:
    using Error::Error;
};

// A file that cannot be opened, read or written.
class IoError : public Error {
public:
    using Error::Error;
};

// A graph that violates a requirement (node id out of range, empty graph, ...).
class GraphError : public Error {
public:
    using Error::Error;
};

// Matrices whose shapes do not fit together.
class ShapeError : public Error {
public:
    using Error::Error;
};

}  // namespace gatkit
