// RFC 4180 CSV reading through CsvReader (plain and gzip files).
#include "gatkit/core/error.hpp"
#include "gatkit/io/csv.hpp"
#include "support/fixtures.hpp"

#include <catch2/catch.hpp>
#include <zlib.h>

#include <fstream>
#include <iterator>
#include <stdexcept>

using namespace gatkit;
using gatkit::test::TempDir;
using gatkit::test::write_gz;
using Row = std::vector<std::string>;

namespace {

std::vector<Row> read_all(CsvReader& csv) {
    std::vector<Row> rows;
    Row fields;
    while (csv.next(fields)) rows.push_back(fields);
    return rows;
}

}  // namespace

TEST_CASE("CSV: quoted commas, doubled quotes, embedded newlines", "[io][csv]") {
    TempDir dir;
    const std::string path = dir.write("mols.csv",
                                       "name,smiles,note\n"
                                       "\"a, b\",CCO,plain\n"
                                       "\"\"\"2,2-dimethylbutane\"\"\",CCC(C)(C)C,\"say \"\"hi\"\"\"\n"
                                       "multi,C,\"line one\nline two\"\n"
                                       "last,,\"\"\n");
    CsvReader csv(path);
    CHECK(csv.header() == Row{"name", "smiles", "note"});
    Row f;
    REQUIRE(csv.next(f));
    CHECK(f == Row{"a, b", "CCO", "plain"});
    CHECK(csv.line_number() == 2);
    REQUIRE(csv.next(f));
    CHECK(f == Row{"\"2,2-dimethylbutane\"", "CCC(C)(C)C", "say \"hi\""});
    CHECK(csv.line_number() == 3);
    REQUIRE(csv.next(f));
    CHECK(f == Row{"multi", "C", "line one\nline two"});
    CHECK(csv.line_number() == 4);  // the line the record started on
    REQUIRE(csv.next(f));
    CHECK(f == Row{"last", "", ""});
    CHECK(csv.line_number() == 6);
    CHECK(csv.where() == path + ":6");
    CHECK_FALSE(csv.next(f));
    CHECK_FALSE(csv.next(f));  // stays at the end
}

TEST_CASE("CSV: CRLF endings and blank lines", "[io][csv]") {
    TempDir dir;
    const std::string path = dir.write("crlf.csv", "id,value\r\n1,\"x\r\ny\"\r\n\r\n2,b\r\n\r\n\r\n3,c\r\n");
    CsvReader csv(path);
    CHECK(csv.header() == Row{"id", "value"});
    const auto rows = read_all(csv);
    REQUIRE(rows.size() == 3);
    CHECK(rows[0] == Row{"1", "x\ny"});
    CHECK(rows[1] == Row{"2", "b"});
    CHECK(rows[2] == Row{"3", "c"});
    for (const auto& r : rows)
        for (const auto& field : r) CHECK(field.find('\r') == std::string::npos);
}

TEST_CASE("CSV: other delimiter, UTF-8 BOM, no final newline", "[io][csv]") {
    TempDir dir;
    CsvReader bom(dir.write("bom.csv", "\xEF\xBB\xBF" "a,b\n1,\"2;3\""));
    CHECK(bom.header() == Row{"a", "b"});
    CHECK(bom.column("a") == 0);
    Row f;
    REQUIRE(bom.next(f));
    CHECK(f == Row{"1", "2;3"});
    CHECK_FALSE(bom.next(f));

    // the BOM is not part of a quoted first field
    CsvReader quoted(dir.write("bomq.csv", "\xEF\xBB\xBF\"name\",\"x, y\"\n"));
    CHECK(quoted.header() == Row{"name", "x, y"});

    // ';' splits, ',' does not
    CsvReader semi(dir.write("semi.csv", "a;b\n1,5;\"2;3\"\n"), ';');
    CHECK(semi.header() == Row{"a", "b"});
    REQUIRE(semi.next(f));
    CHECK(f == Row{"1,5", "2;3"});
}

TEST_CASE("CSV: column() returns the index or lists the columns", "[io][csv]") {
    TempDir dir;
    CsvReader csv(dir.write("cols.csv", "node_id,split,weight\n"));
    CHECK(csv.column("node_id") == 0);
    CHECK(csv.column("split") == 1);
    CHECK(csv.column("weight") == 2);
    CHECK_THROWS_AS(csv.column("label"), ConfigError);
    CHECK_THROWS_WITH(csv.column("label"), Catch::Contains("cols.csv") && Catch::Contains("'label'") &&
                                               Catch::Contains("node_id, split, weight"));
    Row f;
    CHECK_FALSE(csv.next(f));  // header only: no records
}

TEST_CASE("CSV: the column list in an error stays one line and short (found by fuzz_csv)", "[io][csv]") {
    TempDir dir;
    // A quoted header cell may hold a line break and control characters: shown escaped.
    CsvReader odd(dir.write("odd.csv", "\"smi\nles\",\"a\rb\x01\"\nCCO,1\n"));
    try {
        odd.column("smiles");
        FAIL("no error");
    } catch (const ConfigError& e) {
        const std::string message = e.what();
        CHECK(message.find('\n') == std::string::npos);
        CHECK(message.find('\r') == std::string::npos);
        CHECK_THAT(message, Catch::Contains("columns: smi\\nles, a\\rb\\x01)"));
    }
    // 5000 columns: the first 30 and the count.
    std::string header;
    for (int k = 0; k < 5000; ++k) header += (k ? ",c" : "c") + std::to_string(k);
    CsvReader wide(dir.write("wide.csv", header + "\n"));
    try {
        wide.column("smiles");
        FAIL("no error");
    } catch (const ConfigError& e) {
        const std::string message = e.what();
        CHECK_THAT(message, Catch::Contains("c0, c1, c2") && Catch::Contains("c29, ... (5000 in all)"));
        CHECK(message.size() < 400);
    }
}

TEST_CASE("CSV: errors", "[io][csv]") {
    TempDir dir;
    SECTION("empty file") {
        const std::string path = dir.write("empty.csv", "");
        CHECK_THROWS_AS(CsvReader(path), ParseError);
        CHECK_THROWS_WITH(CsvReader(path), Catch::Contains("empty.csv") && Catch::Contains("empty"));
    }
    SECTION("unterminated quote names file and line") {
        const std::string path = dir.write("open.csv", "a,b\n1,2\n3,\"never closed\n4,5\n");
        CsvReader csv(path);
        Row f;
        REQUIRE(csv.next(f));
        CHECK_THROWS_AS(csv.next(f), ParseError);
    }
    SECTION("unterminated quote message") {
        const std::string path = dir.write("open.csv", "a,b\n1,2\n3,\"never closed\n4,5\n");
        CsvReader csv(path);
        Row f;
        REQUIRE(csv.next(f));
        CHECK_THROWS_WITH(csv.next(f), Catch::Contains(path + ":3") && Catch::Contains("unterminated"));
    }
    SECTION("missing file") {
        CHECK_THROWS_AS(CsvReader(dir.file("nope.csv")), IoError);
        CHECK_THROWS_WITH(CsvReader(dir.file("nope.csv")), Catch::Contains("nope.csv"));
    }
}

TEST_CASE("CSV: gzip-compressed input reads like plain text", "[io][csv]") {
    TempDir dir;
    const std::string text = "name,smiles\r\n\"x, y\",C\r\n\r\n\"\"\"q\"\"\",\"C\nC\"\r\n";
    const std::string gz = dir.file("data.csv.gz");
    write_gz(gz, text);
    const std::string plain = dir.write("data.csv", text);

    CsvReader a(gz), b(plain);
    CHECK(a.header() == Row{"name", "smiles"});
    const auto rows = read_all(a);
    CHECK(rows == read_all(b));
    REQUIRE(rows.size() == 2);
    CHECK(rows[0] == Row{"x, y", "C"});
    CHECK(rows[1] == Row{"\"q\"", "C\nC"});
    CHECK(a.line_number() == 4);
}

TEST_CASE("CSV: a truncated gzip file is refused, not read as a shorter file", "[io][csv]") {
    TempDir dir;
    std::string text = "name,value\n";
    for (int i = 0; i < 2000; ++i) text += "row" + std::to_string(i) + "," + std::to_string(i * 7 % 1000) + "\n";
    const std::string whole = dir.file("whole.csv.gz");
    write_gz(whole, text);
    std::string bytes;
    {
        std::ifstream in(whole, std::ios::binary);
        bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    REQUIRE(bytes.size() > 100);
    CsvReader ok(whole);
    CHECK(read_all(ok).size() == 2000);
    // Cut in the middle of the compressed data, and with only the 8-byte trailer (CRC and size) missing.
    for (const std::size_t keep : {bytes.size() * 6 / 10, bytes.size() - 8}) {
        INFO("kept " << keep << " of " << bytes.size() << " bytes");
        const std::string cut = dir.file("cut.csv.gz");
        std::ofstream(cut, std::ios::binary) << bytes.substr(0, keep);
        CsvReader r(cut);
        CHECK_THROWS_AS(read_all(r), IoError);
        CsvReader again(cut);
        CHECK_THROWS_WITH(read_all(again), Catch::Contains("cut.csv.gz:") && Catch::Contains("truncated"));
    }
}
