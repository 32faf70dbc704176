// Attention pictures: an SVG with the title, RDKit's molecule shaded by the scores, a legend;
// bad score vectors are errors that name the sizes.
#include "gatkit/chem/draw.hpp"
#include "gatkit/chem/smiles.hpp"
#include "gatkit/core/error.hpp"

#include <GraphMol/ROMol.h>
#include <catch2/catch.hpp>

using namespace gatkit;
using Catch::Matchers::Contains;

namespace {

std::size_t count(const std::string& text, const std::string& part) {
    std::size_t n = 0;
    for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
    return n;
}

}  // namespace

TEST_CASE("bond_atom_pairs lists each bond's atoms in bond order", "[chem][draw]") {
    const auto mol = chem::parse_smiles("CC(=O)N");
    CHECK(chem::bond_atom_pairs(*mol) == std::vector<NodePair>{{0, 1}, {1, 2}, {1, 3}});
}

TEST_CASE("attention_colour runs from white to red", "[chem][draw]") {
    CHECK(chem::attention_colour(0) == "#FFFFFF");
    CHECK(chem::attention_colour(-3) == "#FFFFFF");
    CHECK(chem::attention_colour(1) == chem::attention_colour(7));
    CHECK(chem::attention_colour(1) != chem::attention_colour(0.5));
}

TEST_CASE("attention_svg draws the molecule, its title and the legend", "[chem][draw]") {
    const auto mol = chem::parse_smiles("c1ccccc1O");
    const std::vector<double> atoms{0.5, 1.0, 1.0, 1.0, 1.0, 2.0, 0.0};
    const std::vector<double> bonds{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8};
    const std::string svg = chem::attention_svg(*mol, atoms, bonds, "phenol <p = 0.9>", {.caption = "layer 1"});
    CHECK(svg.rfind("<?xml", 0) == 0);
    CHECK(count(svg, "<svg") == 2);  // ours around RDKit's
    CHECK(count(svg, "</svg>") == 2);
    CHECK_THAT(svg, Contains("phenol &lt;p = 0.9&gt;"));
    CHECK_THAT(svg, Contains(">layer 1</text>"));
    CHECK_THAT(svg, Contains("atom-6"));  // RDKit drew every atom
    // The largest atom and bond scores are full red in the drawing, and the gradient ends there.
    CHECK(count(svg, chem::attention_colour(1)) >= 3);
    CHECK_THAT(svg, Contains(chem::attention_colour(0.5)));  // atom 1: 1.0 of max 2.0
    CHECK_THAT(svg, Contains(">2</text>"));                   // atom bar's maximum
    CHECK_THAT(svg, Contains(">0.8</text>"));                 // bond bar's maximum
}

TEST_CASE("attention_svg refuses scores that do not fit the molecule", "[chem][draw]") {
    const auto mol = chem::parse_smiles("CCO");
    CHECK_THROWS_WITH(chem::attention_svg(*mol, {1, 1}, {1, 1}, "t"), Contains("2 atom scores") && Contains("3 atoms"));
    CHECK_THROWS_AS(chem::attention_svg(*mol, {1, 1, 1}, {1}, "t"), ShapeError);
    CHECK_THROWS_WITH(chem::attention_svg(*mol, {1, -1, 1}, {1, 1}, "t"), Contains("atom 1"));
    CHECK_THROWS_AS(chem::attention_svg(*mol, {1, 1, 1}, {1, 1}, "t", {.width = 100}), ConfigError);
}
