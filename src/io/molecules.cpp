#include "gatkit/io/molecules.hpp"

#include "gatkit/chem/featurize.hpp"
#include "gatkit/chem/mol_features.hpp"
#include "gatkit/chem/smiles.hpp"
#include "gatkit/core/error.hpp"
#include "gatkit/core/parallel.hpp"
#include "gatkit/io/csv.hpp"
#include "gatkit/io/text_reader.hpp"

#include <GraphMol/FileParsers/FileParsers.h>
#include <GraphMol/RWMol.h>
#include <GraphMol/SmilesParse/SmilesWrite.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cctype>
#include <exception>
#include <filesystem>
#include <functional>
#include <limits>
#include <new>
#include <optional>

namespace gatkit {

namespace fs = std::filesystem;

namespace {

constexpr float kMissing = std::numeric_limits<float>::quiet_NaN();

// A data row on its way to becoming a molecule (or a skipped row).
struct Pending {
    std::string input;           // the SMILES (CSV, smi) or the mol block (SDF)
    std::size_t source_row = 0;  // 1-based line (CSV, smi) or record number (SDF)
    std::size_t line = 0;        // 1-based line in the file where the row starts
    std::string text;            // what the report shows: the SMILES, or "record K 'name'"
    std::string name;            // smi/SDF molecule name, else empty
    std::vector<float> targets;  // T values, NaN = missing
    std::string error;           // set when the row is known to be bad before RDKit sees it
};

struct Parsed {
    std::optional<GraphSample> sample;
    std::string smiles;  // SDF: RDKit's canonical SMILES
    std::string error;
};

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

std::string trim(std::string_view s) {
    const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
    while (!s.empty() && space(s.front())) s.remove_prefix(1);
    while (!s.empty() && space(s.back())) s.remove_suffix(1);
    return std::string(s);
}

bool has_control_chars(std::string_view s) {
    return std::any_of(s.begin(), s.end(), [](char c) {
        const auto u = static_cast<unsigned char>(c);
        return (u < 0x20 && c != '\t') || u == 0x7f;
    });
}

// One printable line for messages: line breaks become spaces, other control bytes '?'.
std::string one_line(std::string_view s, std::size_t max = 200) {
    std::string out;
    for (const char c : s) {
        const auto u = static_cast<unsigned char>(c);
        out += (c == '\n' || c == '\r' || c == '\t') ? ' ' : (u < 0x20 || u == 0x7f) ? '?' : c;
    }
    return clip(out, max);
}

std::string join(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "" : ", ") + one_line(n, 40);
    return out;
}

// A label cell: empty or "nan" is missing, anything else must be a finite number.
float parse_label(std::string_view cell, const std::string& where, const std::string& what) {
    const std::string text = trim(cell);
    if (text.empty() || lower(text) == "nan") return kMissing;
    float value = 0.0f;
    if (!parse_float(text, value)) {
        // A number all the same (1e300, inf) is outside what a float label can hold: say so.
        double wide = 0.0;
        const char* first = text.data() + (text.front() == '+' ? 1 : 0);
        const auto [ptr, ec] = std::from_chars(first, text.data() + text.size(), wide);
        if (ptr == text.data() + text.size() && (ec == std::errc::result_out_of_range || (ec == std::errc() && !std::isnan(wide))))
            throw ParseError(where + ": " + what + ": label '" + one_line(text, 40) + "' is outside the finite float range (about ±3.4e38)");
        throw ParseError(where + ": " + what + ": label '" + one_line(text, 40) + "' is not a number");
    }
    return value;
}

std::string file_stem(const std::string& path) {
    std::string name = fs::path(path).filename().string();
    if (lower(name).ends_with(".gz")) name.resize(name.size() - 3);
    const auto dot = name.rfind('.');
    return dot == std::string::npos || dot == 0 ? name : name.substr(0, dot);
}

// ---- CSV -------------------------------------------------------------------------------

std::size_t find_smiles_column(const CsvReader& csv, const MoleculeReadOptions& options) {
    if (!options.smiles_column.empty()) return csv.column(options.smiles_column);
    std::vector<std::size_t> found;
    for (std::size_t k = 0; k < csv.header().size(); ++k)
        if (lower(trim(csv.header()[k])) == "smiles") found.push_back(k);
    if (found.size() == 1) return found.front();
    if (found.empty())
        throw ConfigError(csv.path() + ": no SMILES column (looked for a column named 'smiles' in any case; columns: " +
                          join(csv.header()) + "); name it with --smiles-column");
    throw ConfigError(csv.path() + ": " + std::to_string(found.size()) + " columns are named 'smiles' (columns: " +
                      join(csv.header()) + "); choose one with --smiles-column");
}

std::vector<Pending> read_csv(const std::string& path, const MoleculeReadOptions& options, MoleculeTable& table) {
    CsvReader csv(path);
    table.header = csv.header();
    for (const auto& h : table.header)
        if (has_control_chars(h))
            throw ParseError(path + ": not a CSV text file (its header line holds binary or control characters)");
    const std::size_t smiles_col = find_smiles_column(csv, options);
    std::vector<std::size_t> target_cols;
    for (const auto& t : options.target_columns) target_cols.push_back(csv.column(t));

    std::vector<Pending> rows;
    std::vector<std::string> fields;
    while (csv.next(fields)) {
        Pending p;
        p.source_row = p.line = csv.line_number();
        if (fields.size() != table.header.size()) {
            // The row as it reads, for the invalid-rows file; its fields are then made as many as
            // the header's, so an output that repeats the input columns keeps one value under each
            // name (fields beyond the header are named in the reason, so none is lost).
            std::string row;
            for (std::size_t k = 0; k < fields.size(); ++k) row += (k ? "," : "") + fields[k];
            p.text = one_line(row, 120);
            p.error = "row has " + std::to_string(fields.size()) + " fields, the header has " +
                      std::to_string(table.header.size()) + " (an unquoted comma?)";
            if (fields.size() > table.header.size()) {
                std::string extra;
                for (std::size_t k = table.header.size(); k < fields.size(); ++k) extra += (extra.empty() ? "" : ",") + fields[k];
                p.error += "; beyond the header: " + one_line(extra, 60);
            }
            fields.resize(table.header.size());
        } else {
            p.input = trim(fields[smiles_col]);
            p.text = clip(p.input, 120);
            for (std::size_t t = 0; t < target_cols.size(); ++t)
                p.targets.push_back(parse_label(fields[target_cols[t]], csv.where(), "column '" + options.target_columns[t] + "'"));
        }
        table.records.push_back(std::move(fields));
        rows.push_back(std::move(p));
    }
    return rows;
}

// ---- SMILES list (.smi) ----------------------------------------------------------------

std::vector<Pending> read_smi(const std::string& path, const MoleculeReadOptions& options, MoleculeTable& table) {
    if (!options.target_columns.empty())
        throw ConfigError(path + ": a .smi file has no label columns (asked for '" + options.target_columns.front() +
                          "'); use a CSV or SDF file for training data");
    table.header = {"smiles", "name"};
    TextReader in(path);
    std::vector<Pending> rows;
    std::string line;
    bool first = true;
    while (in.next(line)) {
        const auto tokens = split_whitespace(line);
        if (tokens.empty() || tokens.front().front() == '#') continue;
        // a header: no SMILES starts with "smiles" ('s' is aromatic sulfur, 'm' is no atom)
        if (first && lower(std::string(tokens.front())).starts_with("smiles")) {
            first = false;
            continue;
        }
        first = false;
        Pending p;
        p.source_row = p.line = in.line_number();
        p.input = std::string(tokens.front());
        p.text = clip(p.input, 120);
        for (std::size_t k = 1; k < tokens.size(); ++k) p.name += (k > 1 ? " " : "") + std::string(tokens[k]);
        table.records.push_back(p.name.empty() ? std::vector<std::string>{p.input} : std::vector<std::string>{p.input, p.name});
        rows.push_back(std::move(p));
    }
    return rows;
}

// ---- SDF -------------------------------------------------------------------------------

// SD data items after "M  END": a header line "> ... <NAME> ..." then value lines up to a blank
// line. Returns name → (value, line of its first value line).
struct SdProperty {
    std::string value;
    std::size_t line = 0;
};

std::vector<std::pair<std::string, SdProperty>> sd_properties(const std::vector<std::string>& lines, std::size_t from,
                                                              std::size_t first_line) {
    std::vector<std::pair<std::string, SdProperty>> props;
    for (std::size_t k = from; k < lines.size(); ++k) {
        const std::string& l = lines[k];
        if (l.empty() || l.front() != '>') continue;
        const auto open = l.find('<'), close = l.find('>', open == std::string::npos ? 0 : open);
        if (open == std::string::npos || close == std::string::npos) continue;
        SdProperty prop{.value = {}, .line = first_line + k + 1};
        for (std::size_t v = k + 1; v < lines.size() && !trim(lines[v]).empty(); ++v, ++k)
            prop.value += (prop.value.empty() ? "" : "\n") + lines[v];
        props.emplace_back(l.substr(open + 1, close - open - 1), std::move(prop));
    }
    return props;
}

std::vector<Pending> read_sdf(const std::string& path, const MoleculeReadOptions& options, MoleculeTable& table) {
    table.header = {"smiles"};
    table.header.insert(table.header.end(), options.target_columns.begin(), options.target_columns.end());
    std::vector<bool> seen(options.target_columns.size(), false);
    std::vector<std::string> all_properties;

    std::vector<Pending> rows;
    TextReader in(path);
    std::vector<std::string> lines;
    std::size_t first_line = 1;
    const auto finish_record = [&]() {
        Pending p;
        p.source_row = rows.size() + 1;
        p.line = first_line;
        p.name = lines.empty() ? std::string() : trim(lines.front());
        p.text = "record " + std::to_string(p.source_row) + (p.name.empty() ? "" : " '" + one_line(p.name, 60) + "'");
        std::size_t end = 0;  // lines [0, end) are the mol block, through "M  END"
        while (end < lines.size() && !lines[end].starts_with("M  END")) ++end;
        end = std::min(end + 1, lines.size());
        for (std::size_t k = 0; k < end; ++k) p.input += lines[k] + '\n';
        const auto props = sd_properties(lines, end, first_line);
        for (const auto& [name, prop] : props)
            if (std::find(all_properties.begin(), all_properties.end(), name) == all_properties.end())
                all_properties.push_back(name);
        std::vector<std::string> record{""};
        for (std::size_t t = 0; t < options.target_columns.size(); ++t) {
            const auto it = std::find_if(props.begin(), props.end(), [&](const auto& kv) { return kv.first == options.target_columns[t]; });
            if (it == props.end()) {
                p.targets.push_back(kMissing);
                record.emplace_back();
            } else {
                seen[t] = true;
                p.targets.push_back(parse_label(it->second.value, path + ":" + std::to_string(it->second.line),
                                                "property '" + options.target_columns[t] + "'"));
                record.push_back(it->second.value);
            }
        }
        table.records.push_back(std::move(record));
        rows.push_back(std::move(p));
    };
    std::string line;
    while (in.next(line)) {
        if (line.starts_with("$$$$")) {
            finish_record();
            lines.clear();
            first_line = in.line_number() + 1;
        } else {
            lines.push_back(line);
        }
    }
    // text after the last "$$$$" is a record only if it holds something
    if (std::any_of(lines.begin(), lines.end(), [](const std::string& l) { return !trim(l).empty(); })) finish_record();

    for (std::size_t t = 0; t < seen.size(); ++t)
        if (!seen[t] && !rows.empty())
            throw ConfigError(path + ": no record has an SD property named '" + options.target_columns[t] +
                              "' (properties: " + (all_properties.empty() ? "none" : join(all_properties)) + ")");
    return rows;
}

// ---- parsing ---------------------------------------------------------------------------

// The molecule-level features of `kind` into sample.u; false (and the reason in `error`) when
// RDKit cannot compute them.
bool add_features(const RDKit::ROMol& mol, const std::string& kind, GraphSample& sample, std::string& error) {
    if (kind == "none") return true;
    try {
        const std::vector<float> u = chem::molecule_features(mol, kind);
        sample.u = Eigen::Map<const Matrix>(u.data(), 1, static_cast<Eigen::Index>(u.size()));
        return true;
    } catch (const std::bad_alloc&) {
        throw;
    } catch (const std::exception& e) {
        error = one_line("molecule features (" + kind + "): " + e.what(), 400);
        return false;
    }
}

Parsed parse_smiles_row(const Pending& row, const std::string& mol_features) {
    Parsed out;
    if (row.input.empty()) {
        out.error = "empty SMILES";
        return out;
    }
    if (has_control_chars(row.input)) {
        out.error = "SMILES holds binary or control characters (is this a text file?)";
        return out;
    }
    try {
        // Only featurised: the lighter parse. With molecule-level features: the full one, which
        // gives the same atom rows (tests/chem/test_smiles.cpp) and the molecule they are computed
        // from elsewhere (add_molecule_features).
        const auto mol = mol_features == "none" ? chem::parse_smiles_for_features(row.input) : chem::parse_smiles(row.input);
        chem::RdkitLogCapture log;  // featurisation should not log; if RDKit does, keep it quiet
        GraphSample sample = chem::featurize_molecule(*mol);
        if (add_features(*mol, mol_features, sample, out.error)) out.sample = std::move(sample);
    } catch (const std::bad_alloc&) {
        throw;
    } catch (const std::exception& e) {
        out.error = one_line(e.what(), 400);
    }
    return out;
}

Parsed parse_sdf_record(const Pending& row, const std::string& mol_features) {
    Parsed out;
    const std::string head = row.text + " rejected by RDKit: ";
    try {
        chem::RdkitLogCapture log;
        std::unique_ptr<RDKit::RWMol> mol;
        try {
            mol.reset(RDKit::MolBlockToMol(row.input, /*sanitize=*/true, /*removeHs=*/true, /*strictParsing=*/true));
        } catch (const std::bad_alloc&) {
            throw;
        } catch (const std::exception& e) {
            out.error = head + one_line(e.what(), 300);
            return out;
        }
        if (!mol) {
            const std::string reason = log.last_error();
            out.error = head + (reason.empty() ? "not a valid mol block" : one_line(reason, 300));
            return out;
        }
        if (mol->getNumAtoms() == 0) {
            out.error = row.text + " has no atoms";
            return out;
        }
        out.smiles = RDKit::MolToSmiles(*mol);
        GraphSample sample = chem::featurize_molecule(*mol);
        if (mol_features != "none") {
            std::unique_ptr<RDKit::ROMol> again;
            try {
                again = chem::parse_smiles(out.smiles);
            } catch (const Error& e) {
                out.error = one_line("molecule features (" + mol_features + "): " + e.what(), 400);
                return out;
            }
            if (!add_features(*again, mol_features, sample, out.error)) return out;
        }
        out.sample = std::move(sample);
    } catch (const std::bad_alloc&) {
        throw;
    } catch (const std::exception& e) {
        out.error = head + one_line(e.what(), 300);
    }
    return out;
}

}  // namespace

std::string molecule_format_of(const std::string& path) {
    std::string name = lower(fs::path(path).filename().string());
    if (name.ends_with(".gz")) name.resize(name.size() - 3);
    for (const char* ext : {".csv", ".smi", ".sdf"})
        if (name.ends_with(ext)) return std::string(ext + 1);
    if (name.ends_with(".smiles")) return "smi";
    if (name.ends_with(".sd")) return "sdf";
    const auto dot = name.rfind('.');
    throw ConfigError(path + ": cannot tell the molecule format from the file name (" +
                      (dot == std::string::npos ? std::string("no extension") : "extension '" + name.substr(dot) + "'") +
                      "); expected .csv, .smi or .sdf (optionally .gz), or pass --format csv|smi|sdf");
}

namespace {

// load_molecules and load_molecules_chunked: with `consume`, the chunks go to it side by side on
// the threads and table.data keeps no graph; without, the graphs stay in table.data
// (load_molecules: one chunk).
MoleculeTable load_rows_in_chunks(const std::string& path, const MoleculeReadOptions& options, std::size_t chunk_rows,
                                  const ChunkConsumer* consume) {
    const std::string format = options.format == "auto" ? molecule_format_of(path) : options.format;
    if (format != "csv" && format != "smi" && format != "sdf")
        throw ConfigError("molecule format '" + options.format + "' is not one of auto, csv, smi, sdf");
    if (chunk_rows < 1) throw ConfigError("load_molecules_chunked: chunk_rows must be at least 1");
    chem::check_molecule_features(options.mol_features);

    MoleculeTable table;
    const std::vector<Pending> rows = format == "csv"   ? read_csv(path, options, table)
                                      : format == "smi" ? read_smi(path, options, table)
                                                        : read_sdf(path, options, table);
    const bool sdf = format == "sdf";

    GraphDataset& data = table.data;
    data.name = file_stem(path);
    data.target_names = options.target_columns;
    table.graph_of_record.assign(rows.size(), -1);
    table.error_of_record.assign(rows.size(), std::string());
    const auto T = static_cast<Eigen::Index>(options.target_columns.size());
    const auto parse_row = [&](std::size_t k, Parsed& out) {
        const Pending& row = rows[k];
        if (!row.error.empty())
            out.error = row.error;
        else
            out = sdf ? parse_sdf_record(row, options.mol_features) : parse_smiles_row(row, options.mol_features);
    };
    // The targets of rows ks[0], ks[1], ... (one matrix row each).
    const auto targets_of = [&](const std::vector<std::size_t>& ks) {
        Matrix out(static_cast<Eigen::Index>(ks.size()), T);
        for (std::size_t b = 0; b < ks.size(); ++b)
            for (Eigen::Index t = 0; t < T; ++t) out(static_cast<Eigen::Index>(b), t) = rows[ks[b]].targets[static_cast<std::size_t>(t)];
        return out;
    };
    // The row's SMILES as the table keeps it (SDF: RDKit's, from the record).
    const auto smiles_of = [&](std::size_t k, const Parsed& p) -> const std::string& { return sdf ? p.smiles : rows[k].input; };

    // Parse and featurise; each row writes only its own slot, so the result does not depend on
    // the thread count. A row's own problem is its error; what escapes (out of memory) ends the
    // load with the exception of the lowest such row (chunk, with `consume`).
    std::vector<Parsed> parsed(rows.size());
    std::vector<char> valid_row(rows.size(), 0);
    if (consume) {
        // Each chunk is parsed, featurised and consumed by one thread, the chunks side by side:
        // no thread waits for another until the last chunk, and only the chunks in hand hold
        // atom features. What stays of a row is its error (and its SMILES, from an SDF record).
        const std::size_t chunks = rows.empty() ? 0 : (rows.size() - 1) / chunk_rows + 1;
        for_each_item(static_cast<std::ptrdiff_t>(chunks), [&](std::ptrdiff_t c, int thread) {
            const std::size_t first = static_cast<std::size_t>(c) * chunk_rows;
            const std::size_t last = std::min(rows.size(), first + chunk_rows);
            GraphDataset part;
            std::vector<std::size_t> records;
            bool any_name = false;
            for (std::size_t k = first; k < last; ++k) {
                Parsed& p = parsed[k];
                parse_row(k, p);
                if (!p.sample) continue;
                valid_row[k] = 1;
                part.graphs.push_back(std::move(*p.sample));
                p.sample.reset();
                part.smiles.push_back(smiles_of(k, p));
                part.source_rows.push_back(rows[k].source_row);
                part.names.push_back(rows[k].name);
                any_name = any_name || !rows[k].name.empty();
                records.push_back(k);
            }
            if (part.graphs.empty()) return;
            part.name = data.name;
            part.target_names = data.target_names;
            if (!any_name) part.names.clear();
            part.targets = targets_of(records);
            (*consume)(part, records, thread);
        });
    } else {
        for_each_item(static_cast<std::ptrdiff_t>(rows.size()), {.chunk = 8}, [&](std::ptrdiff_t i) {
            const auto k = static_cast<std::size_t>(i);
            parse_row(k, parsed[k]);
            valid_row[k] = parsed[k].sample ? 1 : 0;
        });
    }

    // The table, in input order.
    std::vector<std::size_t> valid;
    bool any_name = false;
    for (std::size_t k = 0; k < rows.size(); ++k) {
        Parsed& p = parsed[k];
        if (!valid_row[k]) {
            table.error_of_record[k] = p.error;
            data.report.skip(path, rows[k].line, rows[k].text, p.error);
            continue;
        }
        table.graph_of_record[k] = static_cast<long>(data.smiles.size());
        if (!consume) data.graphs.push_back(std::move(*p.sample));
        data.source_rows.push_back(rows[k].source_row);
        data.smiles.push_back(smiles_of(k, p));
        data.names.push_back(rows[k].name);
        any_name = any_name || !rows[k].name.empty();
        if (sdf) table.records[k][0] = p.smiles;
        valid.push_back(k);
    }
    if (!any_name) data.names.clear();

    const char* unit = sdf ? " records" : " rows";
    if (valid.empty()) {
        std::string why = rows.empty() ? std::string("the file has no data") : std::string();
        if (!rows.empty()) {
            const LoadIssue& first = data.report.skipped.front();
            why = "first error: " + (sdf ? first.text + " (line " + std::to_string(first.line) + ")"
                                         : "line " + std::to_string(first.line)) +
                  ": " + one_line(first.reason, 300);
        }
        throw ParseError(path + ": no valid molecule in " + std::to_string(rows.size()) + unit + " (" + why + ")");
    }
    if (data.report.n_skipped() > 0)
        data.report.notes.push_back(std::to_string(data.report.n_skipped()) + " of " + std::to_string(rows.size()) + unit +
                                    " are not valid molecules and were skipped");

    data.targets = targets_of(valid);
    return table;
}

}  // namespace

MoleculeTable load_molecules(const std::string& path, const MoleculeReadOptions& options) {
    return load_rows_in_chunks(path, options, std::numeric_limits<std::size_t>::max(), nullptr);
}

MoleculeTable load_molecules_chunked(const std::string& path, const MoleculeReadOptions& options, std::size_t chunk_rows,
                                     const ChunkConsumer& consume) {
    return load_rows_in_chunks(path, options, chunk_rows, &consume);
}

}  // namespace gatkit
