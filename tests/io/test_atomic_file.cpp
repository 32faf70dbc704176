// write_file_atomically: regular files replaced whole, links kept, and special files (pipes,
// devices) written in place instead of being replaced by a regular file.
#include "gatkit/core/error.hpp"
#include "gatkit/io/atomic_file.hpp"
#include "support/fixtures.hpp"

#include <catch2/catch.hpp>

#include <cerrno>
#include <filesystem>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace gatkit;
using gatkit::test::TempDir;
namespace fs = std::filesystem;

namespace {

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

}  // namespace

TEST_CASE("write_file_atomically replaces a regular file whole and leaves no temporary file", "[io][atomic]") {
    TempDir dir;
    const std::string path = dir.file("out.csv");
    write_file_atomically(path, "old\n");
    write_file_atomically(path, "new\n");
    CHECK(read_text(path) == "new\n");
    int entries = 0;
    for (const auto& e : fs::directory_iterator(dir.path())) entries += e.is_regular_file() ? 1 : 0;
    CHECK(entries == 1);
    CHECK_THROWS_WITH(write_file_atomically(dir.path().string(), "x"), Catch::Contains("it is a directory"));
    CHECK_THROWS_AS(write_file_atomically(dir.file("no/such/folder/f.csv"), "x"), IoError);
}

TEST_CASE("write_file_atomically through a symbolic link replaces the file it names and keeps the link", "[io][atomic]") {
    TempDir dir;
    const std::string real = dir.file("real.csv"), link = dir.file("link.csv");
    write_file_atomically(real, "old\n");
    fs::create_symlink(real, link);
    write_file_atomically(link, "new\n");
    CHECK(fs::is_symlink(link));
    CHECK(read_text(real) == "new\n");
}

TEST_CASE("write_file_atomically writes into a named pipe instead of renaming a file over it", "[io][atomic]") {
    TempDir dir;
    const std::string fifo = dir.file("pipe");
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    // The reader opens without blocking first, so the writer's open finds a reader; a writer that
    // renamed a file over the pipe would leave the reader with nothing (and no hang).
    const int rd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
    REQUIRE(rd >= 0);
    std::string got;
    std::thread writer([&] { write_file_atomically(fifo, "through the pipe\n"); });
    writer.join();
    char buf[256];
    for (;;) {
        const ssize_t n = ::read(rd, buf, sizeof buf);
        if (n > 0) got.append(buf, static_cast<std::size_t>(n));
        else if (n == 0 || errno != EINTR) break;
    }
    ::close(rd);
    CHECK(got == "through the pipe\n");
    struct stat st {};
    REQUIRE(::stat(fifo.c_str(), &st) == 0);
    CHECK(S_ISFIFO(st.st_mode));
}
