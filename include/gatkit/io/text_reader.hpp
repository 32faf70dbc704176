// Line-by-line reading of plain or gzip-compressed text files (zlib reads both
// transparently). Strips a trailing '\r' so CRLF files read like LF files and a UTF-8 byte-order
// mark before the first line, counts lines for error messages, and refuses a gzip file that
// stops before its end (IoError) rather than reading it as a shorter file.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace gatkit {

class TextReader {
public:
    // Throws IoError naming the path and the system's reason when it cannot be opened.
    explicit TextReader(const std::string& path);
    ~TextReader();
    TextReader(const TextReader&) = delete;
    TextReader& operator=(const TextReader&) = delete;

    // Reads the next line into `line` (without the end-of-line); false at end of file.
    bool next(std::string& line);
    std::size_t line_number() const { return line_number_; }
    const std::string& path() const { return path_; }
    // "path:line" for messages.
    std::string where() const { return path_ + ":" + std::to_string(line_number_); }

private:
    std::string path_;
    void* file_ = nullptr;  // gzFile
    std::size_t line_number_ = 0;
};

// Splits on runs of spaces and tabs.
std::vector<std::string_view> split_whitespace(std::string_view line);
// Parses a finite float; false if `text` is not entirely a number.
bool parse_float(std::string_view text, float& value);
// Shortens long text for error messages.
// `text` for a message: its first `max` bytes (then "..."), with line breaks and other control
// characters escaped (\n, \r, \xHH) so that the message stays one line.
std::string clip(std::string_view text, std::size_t max = 60);
bool file_exists(const std::string& path);

}  // namespace gatkit
