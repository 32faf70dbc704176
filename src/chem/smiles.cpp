#include "gatkit/chem/smiles.hpp"

#include "gatkit/core/error.hpp"

#include <GraphMol/MolOps.h>
#include <GraphMol/ROMol.h>
#include <GraphMol/RWMol.h>
#include <GraphMol/SanitException.h>
#include <GraphMol/SmilesParse/SmilesParse.h>
#include <RDGeneral/RDLog.h>

#include <mutex>
#include <ostream>
#include <streambuf>

namespace gatkit::chem {

namespace {

thread_local RdkitLogCapture* active_capture = nullptr;

// The last logged line without RDKit's "[HH:MM:SS] " prefix.
std::string last_line(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    // the last logged line holds the reason; take it first, then drop its prefix
    const auto nl = s.rfind('\n');
    if (nl != std::string::npos) s.erase(0, nl + 1);
    if (s.size() > 11 && s.front() == '[' && s[9] == ']') s.erase(0, 11);
    return s;
}

// The first `max` characters of s, with "..." when it is longer.
std::string clip(const std::string& s, std::size_t max) { return s.size() <= max ? s : s.substr(0, max) + "..."; }

}  // namespace

namespace {
std::mutex install_mutex;
}  // namespace

// A stream buffer without a put area: every write arrives in xsputn/overflow, which append to
// the calling thread's capture, so threads never share buffered characters.
struct LogSink : std::streambuf {
    std::string RdkitLogCapture::*member;
    std::ostream* fallback;  // the logger's destination before gatkit took it over (stderr)

    LogSink(std::string RdkitLogCapture::*m, std::ostream* previous) : member(m), fallback(previous) {}

    std::streamsize xsputn(const char* s, std::streamsize n) override {
        if (active_capture)
            (active_capture->*member).append(s, static_cast<std::size_t>(n));
        else if (fallback)
            fallback->write(s, n);
        return n;
    }
    int_type overflow(int_type c) override {
        if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
        const char ch = traits_type::to_char_type(c);
        xsputn(&ch, 1);
        return c;
    }
    int sync() override {
        if (!active_capture && fallback) fallback->flush();
        return 0;
    }

    static void install();
};

// Points RDKit's error and warning loggers at capturing streams (again, if something has
// called RDLog::InitLogs since). The sinks and streams are never freed: RDKit's loggers flush
// their destination from static destructors, after ours would have run.
void LogSink::install() {
    static std::ostream* error_stream = nullptr;
    static std::ostream* warning_stream = nullptr;
    std::lock_guard<std::mutex> lock(install_mutex);
    if (!rdErrorLog || !rdWarningLog) RDLog::InitLogs();
    if (!error_stream || rdErrorLog->dp_dest != error_stream) {
        error_stream = new std::ostream(new LogSink(&RdkitLogCapture::errors_, rdErrorLog->dp_dest));
        rdErrorLog->dp_dest = error_stream;
    }
    if (!warning_stream || rdWarningLog->dp_dest != warning_stream) {
        warning_stream = new std::ostream(new LogSink(&RdkitLogCapture::warnings_, rdWarningLog->dp_dest));
        rdWarningLog->dp_dest = warning_stream;
    }
}

RdkitLogCapture::RdkitLogCapture() : outer_(active_capture) {
    LogSink::install();
    active_capture = this;
}

RdkitLogCapture::~RdkitLogCapture() { active_capture = outer_; }

std::string RdkitLogCapture::last_error() const { return last_line(errors_); }

namespace {

// SmilesToMol, or (for_features, a plain SMILES) its steps with the last one lighter: parse
// without sanitising, then remove hydrogens and sanitise as SmilesToMol does, then assign
// stereochemistry with clean-up but without flagging possible stereocentres.
RDKit::RWMol* smiles_to_mol(const std::string& smiles, bool for_features) {
    if (!for_features || smiles.find_first_of(" \t") != std::string::npos) return RDKit::SmilesToMol(smiles);
    RDKit::SmilesParserParams params;
    params.sanitize = false;
    params.removeHs = false;
    std::unique_ptr<RDKit::RWMol> mol(RDKit::SmilesToMol(smiles, params));
    if (!mol) return nullptr;
    RDKit::MolOps::removeHs(*mol, /*implicitOnly=*/false, /*updateExplicitCount=*/true, /*sanitize=*/true);
    RDKit::MolOps::assignStereochemistry(*mol, /*cleanIt=*/true, /*force=*/true, /*flagPossibleStereoCenters=*/false);
    return mol.release();
}

std::unique_ptr<RDKit::ROMol> parse(const std::string& smiles, bool for_features) {
    const std::string shown = clip(smiles, 200);  // messages stay one readable line
    if (smiles.size() > kMaxSmilesLength)
        throw ParseError("SMILES '" + clip(smiles, 40) + "' is " + std::to_string(smiles.size()) + " characters long, more than the " +
                         std::to_string(kMaxSmilesLength) + " gatkit reads (is the cell a whole file?)");
    RdkitLogCapture log;
    std::unique_ptr<RDKit::ROMol> mol;
    try {
        mol.reset(smiles_to_mol(smiles, for_features));
    } catch (const RDKit::MolSanitizeException& e) {
        throw ParseError("SMILES '" + shown + "' rejected by RDKit: " + clip(e.what(), 300));
    } catch (const std::exception& e) {
        throw ParseError("SMILES '" + shown + "' rejected by RDKit: " + clip(e.what(), 300));
    }
    if (!mol) {
        // RDKit's reason often quotes the whole input: clipped like the SMILES itself
        std::string reason = clip(log.last_error(), 300);
        if (reason.empty()) reason = "not a valid SMILES string";
        throw ParseError("SMILES '" + shown + "' rejected by RDKit: " + reason);
    }
    if (mol->getNumAtoms() == 0) throw ParseError("SMILES '" + shown + "' has no atoms");
    return mol;
}

}  // namespace

std::unique_ptr<RDKit::ROMol> parse_smiles(const std::string& smiles) { return parse(smiles, false); }

std::unique_ptr<RDKit::ROMol> parse_smiles_for_features(const std::string& smiles) { return parse(smiles, true); }

int atom_count(const RDKit::ROMol& mol) { return static_cast<int>(mol.getNumHeavyAtoms()); }

}  // namespace gatkit::chem
