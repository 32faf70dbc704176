#include "gatkit/io/csv.hpp"

#include "gatkit/core/error.hpp"

namespace gatkit {

CsvReader::CsvReader(const std::string& path, char delimiter) : reader_(path), delimiter_(delimiter) {
    if (!read_record(header_)) throw ParseError(path + ": file is empty (expected a header row)");
}

std::size_t CsvReader::column(const std::string& name) const {
    for (std::size_t k = 0; k < header_.size(); ++k) {
        if (header_[k] != name) continue;
        // Two columns of one name: which one is meant cannot be told, and taking the first would
        // silently ignore the other.
        for (std::size_t j = k + 1; j < header_.size(); ++j)
            if (header_[j] == name)
                throw ConfigError(reader_.path() + ": columns " + std::to_string(k + 1) + " and " + std::to_string(j + 1) + " are both named '" +
                                  clip(name) + "' in the header; rename one");
        return k;
    }
    std::string available;
    for (std::size_t k = 0; k < header_.size() && k < 30; ++k) available += (k ? ", " : "") + clip(header_[k]);
    if (header_.size() > 30) available += ", ... (" + std::to_string(header_.size()) + " in all)";
    throw ConfigError(reader_.path() + ": no column named '" + clip(name) + "' (columns: " + available + ")");
}

bool CsvReader::next(std::vector<std::string>& fields) {
    for (;;) {
        if (!read_record(fields)) return false;
        if (!(fields.size() == 1 && fields[0].empty())) return true;
    }
}

bool CsvReader::read_record(std::vector<std::string>& fields) {
    fields.clear();
    std::string line;
    if (!reader_.next(line)) return false;
    record_line_ = reader_.line_number();
    // a UTF-8 BOM goes before parsing, so a quoted first header field still reads as quoted
    if (record_line_ == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);
    std::string field;
    bool quoted = false;
    std::size_t i = 0;
    for (;;) {
        if (i == line.size()) {
            if (quoted) {  // a quoted field continues on the next line
                if (!reader_.next(line))
                    throw ParseError(reader_.path() + ":" + std::to_string(record_line_) + ": unterminated quoted field");
                field += '\n';
                i = 0;
                continue;
            }
            fields.push_back(std::move(field));
            return true;
        }
        const char c = line[i++];
        if (quoted) {
            if (c == '"') {
                if (i < line.size() && line[i] == '"') {
                    field += '"';
                    ++i;
                } else {
                    quoted = false;
                }
            } else {
                field += c;
            }
        } else if (c == '"' && field.empty()) {
            quoted = true;
        } else if (c == delimiter_) {
            fields.push_back(std::move(field));
            field.clear();
        } else {
            field += c;
        }
    }
}

}  // namespace gatkit
