#include "gatkit/chem/smiles.hpp"

#include "gatkit/core/error.hpp"

#include <GraphMol/ROMol.h>
#include <GraphMol/SanitException.h>
#include <GraphMol/SmilesParse/SmilesParse.h>
#include <RDGeneral/RDLog.h>

#include <mutex>
#include <sstream>

namespace gatkit::chem {

namespace {

// RDKit's loggers are process-wide; capture them into a string while one parse runs.
std::mutex log_mutex;

std::string trimmed(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    // RDKit prefixes each log line with "[HH:MM:SS] "
    if (s.size() > 11 && s.front() == '[' && s[9] == ']') s.erase(0, 11);
    const auto nl = s.rfind('\n');
    return nl == std::string::npos ? s : s.substr(nl + 1);
}

}  // namespace

std::unique_ptr<RDKit::ROMol> parse_smiles(const std::string& smiles) {
    std::lock_guard<std::mutex> lock(log_mutex);
    static std::once_flag init;
    std::call_once(init, [] { RDLog::InitLogs(); });
    std::ostringstream captured;
    auto* saved = rdErrorLog->dp_dest;
    rdErrorLog->dp_dest = &captured;
    struct Restore {
        std::ostream* dest;
        ~Restore() { rdErrorLog->dp_dest = dest; }
    } restore{saved};
    std::unique_ptr<RDKit::ROMol> mol;
    try {
        mol.reset(RDKit::SmilesToMol(smiles));
    } catch (const RDKit::MolSanitizeException& e) {
        throw ParseError("SMILES '" + smiles + "' rejected by RDKit: " + e.what());
    } catch (const std::exception& e) {
        throw ParseError("SMILES '" + smiles + "' rejected by RDKit: " + e.what());
    }
    if (!mol) {
        std::string reason = trimmed(captured.str());
        if (reason.empty()) reason = "not a valid SMILES string";
        throw ParseError("SMILES '" + smiles + "' rejected by RDKit: " + reason);
    }
    if (mol->getNumAtoms() == 0) throw ParseError("SMILES '" + smiles + "' has no atoms");
    return mol;
}

int atom_count(const RDKit::ROMol& mol) { return static_cast<int>(mol.getNumHeavyAtoms()); }

}  // namespace gatkit::chem
