#include "gatkit/chem/draw.hpp"

#include "draw_backend.hpp"
#include "gatkit/chem/smiles.hpp"
#include "gatkit/core/error.hpp"

#include <GraphMol/ROMol.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gatkit::chem {

namespace {

// The map's two ends; the legend's gradients use the same two colours, so a bar shows exactly
// the colours the molecule uses.
constexpr double kWhite[3] = {1.0, 1.0, 1.0};
constexpr double kRed[3] = {0.84, 0.15, 0.16};  // ×255 is not near an integer: no rounding doubt

// Layout of the picture around the molecule panel (px).
constexpr int kTitleHeight = 34;
constexpr int kCaptionHeight = 24;
constexpr int kLegendRowHeight = 28;
constexpr int kLegendPadding = 10;
constexpr int kBarWidth = 160;
constexpr int kBarHeight = 12;

struct Rgb {
    double r, g, b;
};

Rgb colour_of(double t) {
    t = std::clamp(t, 0.0, 1.0);
    return {(1 - t) * kWhite[0] + t * kRed[0], (1 - t) * kWhite[1] + t * kRed[1], (1 - t) * kWhite[2] + t * kRed[2]};
}

// Truncated like RDKit's own SVG colours, so a highlight and its legend colour are the same text.
std::string hex(const Rgb& c) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "#%02X%02X%02X", static_cast<int>(255 * c.r), static_cast<int>(255 * c.g), static_cast<int>(255 * c.b));
    return buf;
}

std::string xml_escape(const std::string& s) {
    std::string out;
    for (const char c : s) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '\'': out += "&apos;"; break;
            case '"': out += "&quot;"; break;
            default: out += c;
        }
    }
    return out;
}

std::string short_number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}

void check_scores(const std::vector<double>& score, std::size_t expected, const char* kind, const RDKit::ROMol& mol) {
    if (score.size() != expected)
        throw ShapeError("attention_svg: " + std::to_string(score.size()) + " " + kind + " scores for a molecule with " +
                         std::to_string(mol.getNumAtoms()) + " atoms and " + std::to_string(mol.getNumBonds()) + " bonds");
    for (std::size_t i = 0; i < score.size(); ++i)
        if (!std::isfinite(score[i]) || score[i] < 0)
            throw ConfigError("attention_svg: " + std::string(kind) + " " + std::to_string(i) + " has score " + std::to_string(score[i]) +
                              "; scores must be finite and >= 0");
}

double max_of(const std::vector<double>& v) { return v.empty() ? 0.0 : *std::max_element(v.begin(), v.end()); }

// One legend row: its text, a gradient bar and the bar's end labels.
std::string legend_row(const std::string& label, double max, int y, int width) {
    const int bar_x = width - kLegendPadding - kBarWidth - 40;
    std::string s;
    s += "<text x='" + std::to_string(kLegendPadding) + "' y='" + std::to_string(y + kBarHeight - 1) +
         "' font-family='DejaVu Sans,sans-serif' font-size='12' fill='#000000'>" + xml_escape(label) + "</text>\n";
    s += "<rect x='" + std::to_string(bar_x) + "' y='" + std::to_string(y) + "' width='" + std::to_string(kBarWidth) + "' height='" +
         std::to_string(kBarHeight) + "' fill='url(#gatkit-attention-map)' stroke='#808080' stroke-width='0.5'/>\n";
    s += "<text x='" + std::to_string(bar_x - 4) + "' y='" + std::to_string(y + kBarHeight - 1) +
         "' text-anchor='end' font-family='DejaVu Sans,sans-serif' font-size='11' fill='#000000'>0</text>\n";
    s += "<text x='" + std::to_string(bar_x + kBarWidth + 4) + "' y='" + std::to_string(y + kBarHeight - 1) +
         "' font-family='DejaVu Sans,sans-serif' font-size='11' fill='#000000'>" + short_number(max) + "</text>\n";
    return s;
}

}  // namespace

std::string attention_colour(double t) { return hex(colour_of(t)); }

std::vector<NodePair> bond_atom_pairs(const RDKit::ROMol& mol) {
    std::vector<NodePair> pairs(mol.getNumBonds());
    for (const RDKit::Bond* b : mol.bonds())
        pairs[b->getIdx()] = {static_cast<NodeId>(b->getBeginAtomIdx()), static_cast<NodeId>(b->getEndAtomIdx())};
    return pairs;
}

std::string attention_svg(const RDKit::ROMol& mol, const std::vector<double>& atom_score, const std::vector<double>& bond_score,
                          const std::string& title, const SvgOptions& options) {
    check_scores(atom_score, mol.getNumAtoms(), "atom", mol);
    check_scores(bond_score, mol.getNumBonds(), "bond", mol);
    if (options.width < 2 * kBarWidth || options.mol_height < 50)
        throw ConfigError("attention_svg: picture " + std::to_string(options.width) + "×" + std::to_string(options.mol_height) +
                          " px is too small (at least " + std::to_string(2 * kBarWidth) + " wide and 50 high)");

    // Highlight every atom and bond with its colour (RDKit's highlight circles, radius 0.4).
    const double atom_max = max_of(atom_score), bond_max = max_of(bond_score);
    detail::MoleculeDrawing drawing;
    drawing.width = options.width;
    drawing.height = options.mol_height;
    drawing.atom_indices = options.atom_indices;
    for (const double score : atom_score) {
        const Rgb c = colour_of(atom_max > 0 ? score / atom_max : 0.0);
        drawing.atom_rgb.push_back({c.r, c.g, c.b});
    }
    for (const double score : bond_score) {
        const Rgb c = colour_of(bond_max > 0 ? score / bond_max : 0.0);
        drawing.bond_rgb.push_back({c.r, c.g, c.b});
    }

    std::string molecule;
    {
        RdkitLogCapture capture;
        try {
            molecule = detail::rdkit_molecule_svg(mol, drawing);
        } catch (const std::exception& e) {
            const std::string log = capture.last_error();
            throw Error("attention_svg: RDKit could not draw the molecule (" + std::to_string(mol.getNumAtoms()) + " atoms): " + e.what() +
                        (log.empty() ? "" : " (" + log + ")"));
        }
    }
    // RDKit's document becomes an <svg> element nested below the title: its XML declaration
    // goes, its root element gets a position.
    const std::size_t root = molecule.find("<svg");
    if (root == std::string::npos) throw Error("attention_svg: RDKit's drawing has no <svg> element");
    molecule = "<svg x='0' y='" + std::to_string(kTitleHeight) + "'" + molecule.substr(root + 4);

    const int W = options.width;
    const int caption_top = kTitleHeight + options.mol_height + kLegendPadding;
    const int legend_top = caption_top + (options.caption.empty() ? 0 : kCaptionHeight);
    const int H = legend_top + 2 * kLegendRowHeight;
    // Long titles shrink so they fit the width (about 0.6 em per character in DejaVu Sans).
    const double font = std::min(15.0, (W - 2.0 * kLegendPadding) / (0.6 * static_cast<double>(std::max<std::size_t>(title.size(), 1))));
    std::string svg = "<?xml version='1.0' encoding='UTF-8'?>\n";
    svg += "<svg xmlns='http://www.w3.org/2000/svg' version='1.1' width='" + std::to_string(W) + "px' height='" + std::to_string(H) +
           "px' viewBox='0 0 " + std::to_string(W) + " " + std::to_string(H) + "'>\n";
    svg += "<defs><linearGradient id='gatkit-attention-map' x1='0' y1='0' x2='1' y2='0'><stop offset='0' stop-color='" + hex(colour_of(0)) +
           "'/><stop offset='1' stop-color='" + hex(colour_of(1)) + "'/></linearGradient></defs>\n";
    svg += "<rect x='0' y='0' width='" + std::to_string(W) + "' height='" + std::to_string(H) + "' fill='#FFFFFF'/>\n";
    svg += "<text x='" + std::to_string(W / 2) + "' y='" + std::to_string(kTitleHeight - 10) + "' text-anchor='middle' " +
           "font-family='DejaVu Sans,sans-serif' font-size='" + short_number(font) + "' fill='#000000'>" + xml_escape(title) + "</text>\n";
    svg += molecule;
    if (!svg.empty() && svg.back() != '\n') svg += '\n';
    svg += "<g class='gatkit-legend'>\n";
    if (!options.caption.empty())
        svg += "<text x='" + std::to_string(kLegendPadding) + "' y='" + std::to_string(caption_top + 12) +
               "' font-family='DejaVu Sans,sans-serif' font-size='12' fill='#404040'>" + xml_escape(options.caption) + "</text>\n";
    svg += legend_row(options.atom_label, atom_max, legend_top, W);
    svg += legend_row(options.bond_label, bond_max, legend_top + kLegendRowHeight, W);
    svg += "</g>\n</svg>\n";
    return svg;
}

}  // namespace gatkit::chem
