// gatkit — graph attention networks from the command line. A thin shell over the library:
// parse options, call the library, print, set the exit code (0 ok, 1 user error, 2 usage).
#include "common.hpp"

#include "gatkit/core/error.hpp"
#include "gatkit/version.hpp"

#include <iostream>

#include <malloc.h>

int main(int argc, char** argv) {
    // Batches and epochs allocate the same large matrices again and again. glibc's defaults hand
    // blocks above its (adaptive) mmap threshold back to the kernel on free and trim the heap top,
    // so each batch paid fresh page faults and zero fills (~10 % of `gatkit predict` on 5,000
    // molecules; on a virtual machine that reports freed pages to its host, each reuse also faults
    // on the host). Keep freed memory for reuse instead: blocks up to 256 MiB from the heap, and
    // the heap never trimmed (M_TRIM_THRESHOLD -1, mallopt(3)). Peak memory is unchanged; what
    // is freed stays with the process until it exits. The library leaves this choice to the
    // program that embeds it (docs/design.md, "Memory").
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, -1);
    CLI::App app{"gatkit: graph attention networks for molecules and networks"};
    app.require_subcommand(1);
    app.set_version_flag("--version", std::string("gatkit ") + gatkit::kVersion);
    gatkit::cli::Action action;
    gatkit::cli::add_train_command(app, action);
    gatkit::cli::add_predict_command(app, action);
    gatkit::cli::add_info_command(app, action);
    gatkit::cli::add_generate_command(app, action);
    gatkit::cli::add_explain_command(app, action);
    gatkit::cli::add_embed_command(app, action);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int rc = app.exit(e);
        return rc == 0 ? 0 : 2;
    }
    try {
        return action();
    } catch (const gatkit::cli::UserError& e) {
        std::cerr << "gatkit: error: " << e.what() << "\n";
        if (!e.hint.empty()) std::cerr << "hint: " << e.hint << "\n";
    } catch (const gatkit::Error& e) {
        std::cerr << "gatkit: error: " << e.what() << "\n";
    } catch (const std::bad_alloc&) {
        std::cerr << "gatkit: error: out of memory\n";
    } catch (const std::exception& e) {
        std::cerr << "gatkit: error: " << e.what() << "\n";
    }
    return 1;
}
