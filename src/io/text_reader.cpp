#include "gatkit/io/text_reader.hpp"

#include "gatkit/core/error.hpp"

#include <zlib.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <sys/stat.h>

namespace gatkit {

TextReader::TextReader(const std::string& path) : path_(path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) throw IoError("cannot open '" + path + "': " + std::strerror(errno));
    if (S_ISDIR(st.st_mode)) throw IoError("cannot open '" + path + "': it is a directory");
    file_ = gzopen(path.c_str(), "rb");
    if (!file_) throw IoError("cannot open '" + path + "': " + std::strerror(errno ? errno : ENOMEM));
    gzbuffer(static_cast<gzFile>(file_), 1 << 17);
}

TextReader::~TextReader() {
    if (file_) gzclose(static_cast<gzFile>(file_));
}

bool TextReader::next(std::string& line) {
    line.clear();
    char buf[1 << 14];
    bool got_any = false;
    for (;;) {
        if (!gzgets(static_cast<gzFile>(file_), buf, sizeof buf)) {
            int err = 0;
            const char* msg = gzerror(static_cast<gzFile>(file_), &err);
            // Z_BUF_ERROR: the gzip stream stopped before its end (a cut download or copy). What
            // was read is a prefix of the data, not the data: refuse it rather than use part.
            if (err == Z_BUF_ERROR)
                throw IoError(path_ + ":" + std::to_string(line_number_ + 1) + ": the compressed file is truncated (" + msg +
                              " after line " + std::to_string(line_number_) + "); fetch or copy it again");
            if (err != Z_OK) throw IoError(path_ + ":" + std::to_string(line_number_ + 1) + ": read error: " + msg);
            break;
        }
        got_any = true;
        const std::size_t len = std::strlen(buf);
        line.append(buf, len);
        if (len > 0 && buf[len - 1] == '\n') break;
    }
    if (!got_any) return false;
    ++line_number_;
    // A UTF-8 byte-order mark (what some Windows editors write first) is no part of the data: left
    // in, it would glue itself to the first id or value of every format read through here.
    if (line_number_ == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);
    if (!line.empty() && line.back() == '\n') line.pop_back();
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return true;
}

std::vector<std::string_view> split_whitespace(std::string_view line) {
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
        const std::size_t start = i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
        if (i > start) out.push_back(line.substr(start, i - start));
    }
    return out;
}

bool parse_float(std::string_view text, float& value) {
    if (text.empty()) return false;
    const char* first = text.data();
    if (*first == '+') ++first;  // from_chars rejects a leading '+'
    const auto [ptr, ec] = std::from_chars(first, text.data() + text.size(), value);
    return ec == std::errc() && ptr == text.data() + text.size() && std::isfinite(value);
}

std::string clip(std::string_view text, std::size_t max) {
    const bool clipped = text.size() > max;
    if (clipped) text = text.substr(0, max);
    // Messages are one line: line breaks and other control characters are shown escaped.
    std::string out;
    out.reserve(text.size() + 3);
    for (const char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        if (c == '\n') {
            out += "\\n";
        } else if (c == '\r') {
            out += "\\r";
        } else if ((c < 0x20 && c != '\t') || c == 0x7f) {
            static constexpr char kHex[] = "0123456789abcdef";
            out += "\\x";
            out += kHex[c >> 4];
            out += kHex[c & 15];
        } else {
            out += ch;
        }
    }
    if (clipped) out += "...";
    return out;
}

bool file_exists(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace gatkit
