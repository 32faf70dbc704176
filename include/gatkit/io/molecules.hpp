// Molecule files (CSV with a SMILES column, .smi, SDF; each optionally gzip-compressed) into a
// GraphDataset of featurised molecules (chem/featurize.hpp), with per-row bookkeeping so that
// predictions can keep one output row per input row.
//
// * CSV (RFC 4180, header row): the SMILES column is options.smiles_column, or else the one
//   column named "smiles" in any case. Surrounding spaces of a SMILES are trimmed. Target cells:
//   empty (or "nan") is a missing label (NaN); anything else must be a number.
// * .smi: one molecule per line, "SMILES [name]" separated by spaces or tabs; a first line
//   whose first word is "smiles" (any case) is a header and skipped; '#' lines are comments.
//   No targets.
// * SDF: each record is read by RDKit (MolBlockToMol, sanitised, hydrogens removed); targets
//   are the SD properties named in target_columns (a missing property is a missing label);
//   data.smiles holds RDKit's canonical SMILES, data.names the record names, source_rows the
//   record numbers (1-based).
//
// Bad files throw: ConfigError for a wrong column name (listing the columns), ParseError for
// a non-numeric label ("FILE:LINE: column 'p_np': label 'abc' is not a number"), for a file
// that is not text/CSV, and when no row gives a valid molecule. Bad molecules do not throw:
// each becomes a LoadReport entry (file, line, SMILES, RDKit's reason) and an entry in
// error_of_record. RDKit's log output is captured, never printed.
//
// Molecules are parsed and featurised in parallel (OpenMP); the result is in input order and
// identical for any thread count.
#pragma once

#include "gatkit/io/dataset.hpp"

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace gatkit {

struct MoleculeReadOptions {
    std::string format = "auto";             // auto|csv|smi|sdf; auto: from the extension (.csv/.smi/.sdf, each optionally .gz)
    std::string smiles_column{};             // CSV; empty: the column named smiles/SMILES/Smiles (any case)
    std::vector<std::string> target_columns{}; // CSV columns or SD properties; empty for prediction
    // Molecule-level features (chem/mol_features.hpp, e.g. "rdkit2d") put into each graph's u
    // from the molecule the row was parsed into (SDF: from RDKit's SMILES of the record, as
    // add_molecule_features computes them), which saves parsing every SMILES a second time. A row
    // they cannot be computed for is an invalid row, its reason "molecule features (KIND): ...".
    // "none": u stays empty.
    std::string mol_features = "none";
};

struct MoleculeTable {
    GraphDataset data;                                // the valid molecules, in input order
    std::vector<std::string> header;                  // CSV: its header; smi: {smiles, name}; sdf: {smiles, targets...}
    std::vector<std::vector<std::string>> records;    // every data row, valid or not, in input order
                                                      // (CSV: its fields; smi: smiles[, name];
                                                      //  sdf: RDKit's SMILES or empty, then the named properties)
    std::vector<long> graph_of_record;                // index into data.graphs, or -1 when the row failed
    std::vector<std::string> error_of_record;         // empty, or why the row failed

    std::size_t num_records() const { return records.size(); }
};

MoleculeTable load_molecules(const std::string& path, const MoleculeReadOptions& options = {});

// What load_molecules_chunked hands each chunk to: consume(chunk, records, thread). `chunk` holds
// the chunk's valid molecules in input order (graphs, smiles, source_rows, names, targets), and
// records[k] is the table row (the index of records, graph_of_record, error_of_record) of its
// graph k. `thread` (0 … thread_count() − 1) numbers the calling thread, for state kept per
// thread (a model copy). It may move or drop the graphs.
using ChunkConsumer = std::function<void(GraphDataset& chunk, const std::vector<std::size_t>& records, int thread)>;

// load_molecules for files whose molecules need not all be held at once (prediction): the rows
// are read and cut into chunks of `chunk_rows` rows; then each thread parses, featurises and
// consumes whole chunks, the chunks side by side, so that no thread waits for another before the
// last chunk and only the chunks in hand hold atom features. `consume` is therefore called from
// several threads at once, for different chunks, in no set order: it must be safe for that, and
// what it computes for a chunk must not depend on which thread it runs on (inside it, gatkit's
// kernels run on the calling thread alone, as in any parallel region). On one thread, or with
// one chunk, the chunks come in input order on the calling thread.
// The table returned is load_molecules' with data.graphs empty (data.smiles, source_rows, names,
// targets, report, graph_of_record and error_of_record are all there). The same errors as
// load_molecules, the last ones ("no valid molecule") after every chunk has been consumed; an
// exception from `consume` (or out of memory) ends the load with the exception of the lowest
// chunk that failed.
MoleculeTable load_molecules_chunked(const std::string& path, const MoleculeReadOptions& options, std::size_t chunk_rows,
                                     const ChunkConsumer& consume);

// "csv", "smi" or "sdf" for a path (".gz" ignored); throws ConfigError for other extensions.
std::string molecule_format_of(const std::string& path);

}  // namespace gatkit
