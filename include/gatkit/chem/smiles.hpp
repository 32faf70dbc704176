// SMILES parsing: the one place that turns RDKit's failures into gatkit errors.
// RDKit reports syntax errors by returning null (and logging), sanitisation failures by
// throwing MolSanitizeException; both become a ParseError whose message is RDKit's reason.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

namespace RDKit {
class ROMol;
}

namespace gatkit::chem {

// The longest SMILES parse_smiles accepts. No real molecule comes near it (the longest in
// ChEMBL and PubChem are a few thousand characters); a longer cell is a broken file, and RDKit's
// parse time grows steeply with size (2022.09: an unbranched chain of 1,000 carbons takes about a
// second, 3,000 half a minute, in its CIP ranking), so a 10 MB cell is refused, not parsed.
inline constexpr std::size_t kMaxSmilesLength = 100000;

// Parses and sanitises; throws ParseError("SMILES 'X' rejected by RDKit: <reason>") (X clipped
// to 200 characters), or ParseError naming the length when smiles is longer than
// kMaxSmilesLength. Thread-safe: parses on several threads run in parallel (see RdkitLogCapture).
std::unique_ptr<RDKit::ROMol> parse_smiles(const std::string& smiles);

// parse_smiles for featurize_molecule (chem/featurize.hpp) and nothing else: the same atoms,
// bonds and everything the atom and bond features read (chiral tags and double-bond stereo after
// RDKit's clean-up included), the same errors, about 30 % faster. RDKit's SmilesToMol ends with a
// stereo perception that also flags every *possible* stereocentre (flagPossibleStereoCenters),
// which ranks the atoms of every molecule by CIP rules; here it runs without that flag, so only
// molecules with stereo marks are ranked. The flag's only trace is the atoms' _ChiralityPossible
// property, which descriptors such as NumAtomStereoCenters read: molecule-level features,
// fingerprints and scaffolds use parse_smiles. A SMILES with a space or tab (CXSMILES
// extensions, a name) goes through parse_smiles. tests/chem/test_smiles.cpp compares the features
// of both parses.
std::unique_ptr<RDKit::ROMol> parse_smiles_for_features(const std::string& smiles);

// Heavy-atom count of a parsed molecule.
int atom_count(const RDKit::ROMol& mol);

// While an RdkitLogCapture lives, what RDKit writes to its error and warning logs *from the
// calling thread* is kept here instead of reaching stderr. Other threads are not affected, so
// RDKit calls on several threads each get their own messages. Captures nest (the innermost
// one receives). Wrap every RDKit call that may log (parsing, sanitising, file readers).
//
// How: RDKit's loggers are process-wide streams; on first use they are pointed (once) at a
// stream whose buffer appends to the calling thread's active capture, or passes the text on
// to the logger's previous destination when the thread has none.
class RdkitLogCapture {
public:
    RdkitLogCapture();
    ~RdkitLogCapture();
    RdkitLogCapture(const RdkitLogCapture&) = delete;
    RdkitLogCapture& operator=(const RdkitLogCapture&) = delete;

    const std::string& errors() const { return errors_; }     // raw error-log text
    const std::string& warnings() const { return warnings_; } // raw warning-log text
    // The last line RDKit logged as an error, without its "[HH:MM:SS] " stamp; empty if none.
    std::string last_error() const;

private:
    friend struct LogSink;
    std::string errors_;
    std::string warnings_;
    RdkitLogCapture* outer_;
};

}  // namespace gatkit::chem
