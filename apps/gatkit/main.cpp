// gatkit — graph attention networks from the command line. A thin shell over the library:
// parse options, call the library, print, set the exit code (0 ok, 1 user error, 2 usage).
#include "common.hpp"

#include "gatkit/core/error.hpp"
#include "gatkit/core/memory.hpp"
#include "gatkit/version.hpp"

#include <iostream>

int main(int argc, char** argv) {
    // Batches and epochs allocate the same matrices again and again, and a molecule file's
    // parse allocates millions of small blocks: keep freed memory for reuse and let the heaps
    // fault in 2 MiB pages (core/memory.hpp; docs/design.md, "Memory"). The library leaves this
    // choice to the program that embeds it.
    gatkit::tune_process_heap();
    CLI::App app{"gatkit: graph attention networks for molecules and networks"};
    app.require_subcommand(1);
    app.set_version_flag("--version", std::string("gatkit ") + gatkit::kVersion);
    gatkit::cli::Action action;
    gatkit::cli::add_train_command(app, action);
    gatkit::cli::add_predict_command(app, action);
    gatkit::cli::add_evaluate_command(app, action);
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
        const int rc = action();
        // What went to standard output (predictions with --out -, info, a picture) must all be
        // there: a full disk or a closed pipe is an error, not a success with a cut output.
        std::cout.flush();
        if (!std::cout) {
            std::cerr << "gatkit: error: cannot write to standard output (disk full, file size limit or closed pipe?)\n";
            return 1;
        }
        return rc;
    } catch (const gatkit::cli::UserError& e) {
        std::cerr << "gatkit: error: " << e.what() << "\n";
        if (!e.hint.empty()) std::cerr << "hint: " << e.hint << "\n";
        if (dynamic_cast<const gatkit::cli::UsageError*>(&e)) return 2;
    } catch (const gatkit::Error& e) {
        std::cerr << "gatkit: error: " << e.what() << "\n";
    } catch (const std::bad_alloc&) {
        std::cerr << "gatkit: error: out of memory\n";
    } catch (const std::exception& e) {
        std::cerr << "gatkit: error: " << e.what() << "\n";
    }
    return 1;
}
