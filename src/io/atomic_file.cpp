#include "gatkit/io/atomic_file.hpp"

#include "gatkit/core/error.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gatkit {

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& why) { throw IoError("cannot write '" + path + "': " + why); }

// Every byte to fd, or the system's reason for stopping.
bool write_all(int fd, const std::string& bytes, std::string& why) {
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            why = n < 0 ? std::strerror(errno) : "nothing more could be written";
            return false;
        }
        done += static_cast<std::size_t>(n);
    }
    return true;
}

void write_in_place(const std::string& path, const std::string& bytes) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) fail(path, std::strerror(errno));
    std::string why;
    const bool ok = write_all(fd, bytes, why);
    if (::close(fd) != 0 && ok) fail(path, std::strerror(errno));
    if (!ok) fail(path, why);
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& bytes) {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
        if (S_ISDIR(st.st_mode)) fail(path, "it is a directory");
        write_in_place(path, bytes);
        return;
    }
    std::string target = path;
    std::error_code ec;
    if (std::filesystem::is_symlink(path, ec)) {
        const std::filesystem::path real = std::filesystem::weakly_canonical(path, ec);
        if (!ec) target = real.string();
    }
    const std::string tmp = target + ".tmp." + std::to_string(::getpid());
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) fail(path, std::strerror(errno));
    std::string why;
    if (!write_all(fd, bytes, why)) {
        ::close(fd);
        ::unlink(tmp.c_str());
        fail(path, why);
    }
    const bool synced = ::fsync(fd) == 0;
    if (!synced) why = std::strerror(errno);
    if (::close(fd) != 0 && synced) why = std::strerror(errno);
    if (!why.empty()) {
        ::unlink(tmp.c_str());
        fail(path, why);
    }
    if (::rename(tmp.c_str(), target.c_str()) != 0) {
        why = std::strerror(errno);
        ::unlink(tmp.c_str());
        fail(path, why);
    }
}

}  // namespace gatkit
