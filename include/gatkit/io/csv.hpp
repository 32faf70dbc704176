// RFC 4180 CSV reading: quoted fields with embedded commas, doubled quotes and line breaks,
// CRLF or LF, a header row.
#pragma once

#include "gatkit/io/text_reader.hpp"

#include <string>
#include <vector>

namespace gatkit {

class CsvReader {
public:
    // Reads the header row; throws ParseError if the file is empty.
    explicit CsvReader(const std::string& path, char delimiter = ',');

    const std::vector<std::string>& header() const { return header_; }
    // Index of a header column; throws ConfigError listing the available columns if absent, and
    // naming both positions if two columns have that name.
    std::size_t column(const std::string& name) const;
    // Next record; false at end of file. Blank lines are skipped.
    bool next(std::vector<std::string>& fields);
    // Line on which the last record started.
    std::size_t line_number() const { return record_line_; }
    std::string where() const { return reader_.path() + ":" + std::to_string(record_line_); }
    const std::string& path() const { return reader_.path(); }

private:
    bool read_record(std::vector<std::string>& fields);
    TextReader reader_;
    char delimiter_;
    std::vector<std::string> header_;
    std::size_t record_line_ = 0;
};

}  // namespace gatkit
