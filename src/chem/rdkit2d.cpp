// The rdkit2d molecule features: RDKit's registered descriptors, then its 42 MQN counts, with
// the costliest of them computed by gatkit (include/gatkit/chem/rdkit2d.hpp).
#include "gatkit/chem/rdkit2d.hpp"

#include "gatkit/core/error.hpp"

#include <GraphMol/Descriptors/ConnectivityDescriptors.h>
#include <GraphMol/Descriptors/Crippen.h>
#include <GraphMol/Descriptors/MolDescriptors.h>
#include <GraphMol/Descriptors/Property.h>
#include <GraphMol/MolOps.h>
#include <GraphMol/QueryAtom.h>
#include <GraphMol/RingInfo.h>
#include <GraphMol/ROMol.h>
#include <GraphMol/SmilesParse/SmilesParse.h>
#include <GraphMol/Substruct/SubstructMatch.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>

namespace gatkit::chem {

namespace {

constexpr int kMqnCount = 42;

const RDKit::Descriptors::Properties& rdkit_properties() {
    static const RDKit::Descriptors::Properties properties;  // every descriptor RDKit registers
    return properties;
}

// --- chi, kappa and Phi from one walk over the bond trails ------------------------------------
//
// RDKit computes chi2v..chi4n, kappa2, kappa3 and Phi (Hall & Kier, Rev. Comp. Chem. 2, 367-422,
// 1991) each from its own list of bond paths, about half of all rdkit2d time (~300 of ~600 us a
// molecule). One depth-first walk over the heavy atoms gives every sum they need in ~5 us.
//
// RDKit's "paths" of L bonds are its bond trails: L distinct bonds walked end to end, each set
// counted once. Up to 4 bonds that is a simple path, a ring of 3 or 4 bonds, or a ring of 3
// bonds with one bond of tail (a "lollipop"). For chi of order L, a trail contributes the product
// of its atoms' deltas over its atom sequence a0..aL, without aL when the trail is a ring
// (aL = a0): the lollipop's junction atom counts twice, as in RDKit.
//
// Each such column (and each of gatkit's others below) is used only where it equals RDKit's
// registered descriptor on the probe molecules (rdkit2d_plan); anything else comes from RDKit's
// own function. That also follows RDKit 2022.09's registration, where "chi2v" and "chi2n"
// compute the order-3 indices.

struct TrailSums {
    long count[5] = {};     // trails of L bonds, L = 2..4
    double chi_v[5] = {};   // sum over them of the product of valence deltas (chiLv)
    double chi_n[5] = {};   // ... of the nVal deltas (chiLn)
};

// Extends the walk atoms[0..depth] by one bond; adj: heavy-atom neighbours.
void walk(const std::vector<std::vector<int>>& adj, const std::vector<double>& dv, const std::vector<double>& dn, int* atoms, int depth,
          TrailSums& s) {
    const int L = depth + 1;  // bonds in the extended walk
    const auto add = [&](int last_atom, int extra) {  // atoms[0..last_atom], then `extra` (or -1)
        double pv = 1.0, pn = 1.0;
        for (int i = 0; i <= last_atom; ++i) {
            pv *= dv[static_cast<std::size_t>(atoms[i])];
            pn *= dn[static_cast<std::size_t>(atoms[i])];
        }
        if (extra >= 0) {
            pv *= dv[static_cast<std::size_t>(extra)];
            pn *= dn[static_cast<std::size_t>(extra)];
        }
        s.count[L] += 1;
        s.chi_v[L] += pv;
        s.chi_n[L] += pn;
    };
    for (const int next : adj[static_cast<std::size_t>(atoms[depth])]) {
        int seen_at = -1;
        for (int i = 0; i <= depth; ++i)
            if (atoms[i] == next) {
                seen_at = i;
                break;
            }
        if (seen_at < 0) {  // a simple path, counted from its lower-numbered end
            atoms[L] = next;
            if (next > atoms[0]) add(L, -1);
            if (L < 4) walk(adj, dv, dn, atoms, L, s);
        } else if (seen_at == depth - 1) {
            continue;  // back along the bond just taken
        } else if (seen_at == 0) {  // a ring of L bonds, found from each atom both ways: once
            if (*std::min_element(atoms, atoms + L) != atoms[0] || atoms[1] > atoms[depth]) continue;
            add(depth, -1);
        } else {  // a ring closed onto the walk's middle, found both ways round: once
            if (atoms[seen_at + 1] > atoms[depth]) continue;
            add(depth, next);
        }
    }
}

// The sums; throws Error where RDKit has not left its nVal deltas on the molecule.
TrailSums trail_sums(const RDKit::ROMol& mol) {
    const std::size_t n = mol.getNumAtoms();
    std::vector<double> dv(n);
    RDKit::Descriptors::detail::hkDeltas(mol, dv, false);
    RDKit::Descriptors::calcChi0n(mol);  // leaves its nVal deltas on the molecule
    std::vector<double> dn;
    if (!mol.getPropIfPresent(RDKit::common_properties::_connectivityNVals, dn) || dn.size() < n)
        throw Error("rdkit2d features: RDKit left no nVal deltas on the molecule");
    std::vector<std::vector<int>> adj(n);
    for (const RDKit::Bond* b : mol.bonds()) {
        const RDKit::Atom* a = b->getBeginAtom();
        const RDKit::Atom* c = b->getEndAtom();
        if (a->getAtomicNum() == 1 || c->getAtomicNum() == 1) continue;  // RDKit's paths leave H out
        adj[a->getIdx()].push_back(static_cast<int>(c->getIdx()));
        adj[c->getIdx()].push_back(static_cast<int>(a->getIdx()));
    }
    TrailSums s;
    int atoms[5];
    for (const RDKit::Atom* a : mol.atoms()) {
        if (a->getAtomicNum() == 1) continue;
        atoms[0] = static_cast<int>(a->getIdx());
        walk(adj, dv, dn, atoms, 0, s);
    }
    return s;
}

// Hall & Kier's kappa shape indices from path counts P, heavy atoms A and alpha, with RDKit's
// order of operations.
double kappa1_of(double p1, double a, double alpha) {
    const double denom = p1 + alpha;
    return denom != 0.0 ? (a + alpha) * (a + alpha - 1) * (a + alpha - 1) / (denom * denom) : 0.0;
}
double kappa2_of(double p2, double a, double alpha) {
    const double denom = (p2 + alpha) * (p2 + alpha);
    return denom != 0.0 ? (a + alpha - 1) * (a + alpha - 2) * (a + alpha - 2) / denom : 0.0;
}
double kappa3_of(double p3, int a, double alpha) {
    const double denom = (p3 + alpha) * (p3 + alpha);
    if (denom == 0.0) return 0.0;
    return a % 2 ? (a + alpha - 1) * (a + alpha - 3) * (a + alpha - 3) / denom : (a + alpha - 2) * (a + alpha - 3) * (a + alpha - 3) / denom;
}

// NumRotatableBonds: RDKit 2022.09 copies its query molecule on every call (~30 of ~45 us);
// gatkit matches the same SMARTS compiled once per thread (matching a pattern with recursive
// SMARTS locks it, so threads do not share one). Which rule RDKit uses (strict unless built
// otherwise) is settled on the probes as for the walk.
const RDKit::ROMol& rotatable_pattern(bool strict) {
    thread_local const std::unique_ptr<RDKit::RWMol> strict_pattern(RDKit::SmartsToMol(
        "[!$(*#*)&!D1&!$(C(F)(F)F)&!$(C(Cl)(Cl)Cl)&!$(C(Br)(Br)Br)&!$(C([CH3])([CH3])[CH3])&!$([CD3](=[N,O,S])-!@[#7,O,S!D1])&"
        "!$([#7,O,S!D1]-!@[CD3]=[N,O,S])&!$([CD3](=[N+])-!@[#7!D1])&!$([#7!D1]-!@[CD3]=[N+])]-,:;!@[!$(*#*)&!D1&!$(C(F)(F)F)&"
        "!$(C(Cl)(Cl)Cl)&!$(C(Br)(Br)Br)&!$(C([CH3])([CH3])[CH3])]"));
    thread_local const std::unique_ptr<RDKit::RWMol> plain_pattern(RDKit::SmartsToMol("[!$(*#*)&!D1]-,:;!@[!$(*#*)&!D1]"));
    const std::unique_ptr<RDKit::RWMol>& pattern = strict ? strict_pattern : plain_pattern;
    if (!pattern) throw Error("rdkit2d features: RDKit did not parse the rotatable-bond SMARTS");  // the probes then fall back
    return *pattern;
}

double rotatable_bonds(const RDKit::ROMol& mol, bool strict) {
    std::vector<RDKit::MatchVectType> matches;
    return RDKit::SubstructMatch(mol, rotatable_pattern(strict), matches);
}

// CrippenClogP and CrippenMR (Wildman & Crippen, J. Chem. Inf. Comput. Sci. 39, 868, 1999).
// RDKit types every atom of a copy with explicit hydrogens by the first of its ~110 SMARTS
// patterns that matches there (the atom a match starts at), running each pattern over the whole
// molecule until every atom is typed, then sums the atoms' contributions (~190 us a molecule).
// gatkit does the same with RDKit's patterns and values, but skips a pattern when no atom still
// untyped matches its first atom, which no match of it could then type: about half the searches.
struct CrippenSums {
    double logp = 0.0;
    double mr = 0.0;
};

bool has_recursive_query(const RDKit::QueryAtom::QUERYATOM_QUERY* q) {
    if (q->getDescription() == "RecursiveStructure") return true;
    for (auto child = q->beginChildren(); child != q->endChildren(); ++child)
        if (has_recursive_query(child->get())) return true;
    return false;
}

// Per pattern of RDKit's collection, in its order: its first atom, when that can be matched
// against an atom on its own (a query atom without recursive SMARTS, which SubstructMatch would
// first have to evaluate over the molecule); else nullptr.
const std::vector<const RDKit::Atom*>& crippen_first_atoms() {
    static const std::vector<const RDKit::Atom*> first = [] {
        std::vector<const RDKit::Atom*> out;
        for (const RDKit::Descriptors::CrippenParams& p : *RDKit::Descriptors::CrippenParamCollection::getParams()) {
            const auto* q = p.dp_pattern && p.dp_pattern->getNumAtoms() > 0 ? dynamic_cast<const RDKit::QueryAtom*>(p.dp_pattern->getAtomWithIdx(0)) : nullptr;
            out.push_back(q && q->getQuery() && !has_recursive_query(q->getQuery()) ? q : nullptr);
        }
        return out;
    }();
    return first;
}

CrippenSums crippen_sums(const RDKit::ROMol& mol) {
    const std::unique_ptr<RDKit::ROMol> with_h(RDKit::MolOps::addHs(mol, /*explicitOnly=*/false, /*addCoords=*/false));
    const std::size_t n = with_h->getNumAtoms();
    std::vector<double> logp(n, 0.0), mr(n, 0.0);
    std::vector<char> untyped(n, 1);
    std::size_t left = n;
    const std::vector<const RDKit::Atom*>& first = crippen_first_atoms();
    std::size_t k = 0;
    for (const RDKit::Descriptors::CrippenParams& p : *RDKit::Descriptors::CrippenParamCollection::getParams()) {
        if (left == 0) break;
        const RDKit::Atom* head = k < first.size() ? first[k] : nullptr;
        ++k;
        if (head) {
            bool possible = false;
            for (std::size_t i = 0; i < n && !possible; ++i) possible = untyped[i] && head->Match(with_h->getAtomWithIdx(static_cast<unsigned>(i)));
            if (!possible) continue;
        }
        std::vector<RDKit::MatchVectType> matches;
        RDKit::SubstructMatch(*with_h, *p.dp_pattern, matches, /*uniquify=*/false, /*recursionPossible=*/true);
        for (const RDKit::MatchVectType& match : matches) {
            const auto i = static_cast<std::size_t>(match[0].second);
            if (!untyped[i]) continue;
            untyped[i] = 0;
            --left;
            logp[i] = p.logp;
            mr[i] = p.mr;
        }
    }
    CrippenSums sums;
    for (const double v : logp) sums.logp += v;
    for (const double v : mr) sums.mr += v;
    return sums;
}

enum class Source { rdkit, chi_v, chi_n, kappa2, kappa3, phi, rotatable_strict, rotatable_plain, crippen_logp, crippen_mr };

struct Column {
    std::string name;
    boost::shared_ptr<RDKit::Descriptors::PropertyFunctor> rdkit;
    Source source = Source::rdkit;
    int order = 0;  // chi: the trail length summed
};

// What gatkit's own columns of one molecule come from, each computed at most once.
class OwnInputs {
public:
    explicit OwnInputs(const RDKit::ROMol& mol) : mol_(mol) {}
    const RDKit::ROMol& mol() const { return mol_; }
    const TrailSums& trails() {
        if (!trails_) trails_ = trail_sums(mol_);
        return *trails_;
    }
    const CrippenSums& crippen() {
        if (!crippen_) crippen_ = crippen_sums(mol_);
        return *crippen_;
    }
    double alpha() {  // Hall-Kier alpha, for the kappa indices and Phi
        if (!alpha_) alpha_ = RDKit::Descriptors::calcHallKierAlpha(mol_);
        return *alpha_;
    }

private:
    const RDKit::ROMol& mol_;
    std::optional<TrailSums> trails_;
    std::optional<CrippenSums> crippen_;
    std::optional<double> alpha_;
};

double own_value(const Column& c, OwnInputs& in) {
    const RDKit::ROMol& mol = in.mol();
    const unsigned heavy = mol.getNumHeavyAtoms();
    switch (c.source) {
        case Source::chi_v: return in.trails().chi_v[c.order];
        case Source::chi_n: return in.trails().chi_n[c.order];
        case Source::kappa2: return kappa2_of(static_cast<double>(in.trails().count[2]), heavy, in.alpha());
        case Source::kappa3: return kappa3_of(static_cast<double>(in.trails().count[3]), static_cast<int>(heavy), in.alpha());
        case Source::phi: {
            if (heavy == 0) return 0.0;
            const double k1 = kappa1_of(mol.getNumBonds(), heavy, in.alpha());
            const double k2 = kappa2_of(static_cast<double>(in.trails().count[2]), heavy, in.alpha());
            return k1 * k2 / heavy;
        }
        case Source::rotatable_strict: return rotatable_bonds(mol, true);
        case Source::rotatable_plain: return rotatable_bonds(mol, false);
        case Source::crippen_logp: return in.crippen().logp;
        case Source::crippen_mr: return in.crippen().mr;
        case Source::rdkit: break;
    }
    return (*c.rdkit)(mol);
}

// Rings of 3 and 4 bonds, lollipops, fused and bridged rings, heteroatoms beyond the first row,
// charges, explicit and isotopic hydrogens, a lone atom; amides, CF3 and t-butyl groups, where
// the strict and plain rotatable-bond rules differ.
constexpr const char* kProbeSmiles[] = {
    "CC1CC1", "CCC1CC1C(=O)O", "C1CCC1N", "C1CC2CCC1C2", "c1ccc2ccccc2c1", "IC1=CC=C(C=C1)C2CC2S", "C[Si](C)(C)OC1CC1",
    "CC(C)(C)c1ccc(O)cc1", "OC(=O)c1ccccc1Br", "CS(=O)(=O)N1CCN(CC1)c1ncccn1", "ClC(Cl)(Cl)P(=O)(O)O", "[NH3+]CC([O-])=O",
    "[2H]C([2H])([2H])OC", "C", "[Na+].[Cl-]",
    "CC(=O)NCc1ccccc1", "FC(F)(F)c1ccccc1CC", "CC(C)(C)CCO", "NC(=S)CCC(=[NH2+])N", "C#CCOc1ccccc1",
};

// The 42 MQN counts (molecular quantum numbers: Nguyen, Blum, van Deursen & Reymond, ChemMedChem
// 4, 1803-1805, 2009) with RDKit's choices: its N and O donor and acceptor rules, aromatic bonds
// split between the cyclic single and double bins (the odd one to single), ring sizes from its
// ring information, and its rotatable-bond rule. RDKit's calcMQNs spends ~95 % of its ~45 us in
// that rotatable-bond count (the query copy above); the rest is counting.
std::vector<unsigned> mqn_counts(const RDKit::ROMol& mol, bool strict_rotatable) {
    enum : std::size_t {
        carbon = 0, fluorine, chlorine, bromine, iodine, sulfur, phosphorus, acyclic_n, cyclic_n, acyclic_o, cyclic_o, heavy_atoms,
        acyclic_single, acyclic_double, acyclic_triple, cyclic_single, cyclic_double, cyclic_triple, rotatable,
        acceptor_sites, acceptor_atoms, donor_sites, donor_atoms, negative_charges, positive_charges,
        degree1, acyclic_degree2, acyclic_degree3, acyclic_degree4, cyclic_degree2, cyclic_degree3, cyclic_degree4,
        ring3, ring10_or_more = ring3 + 7, atoms_in_2_rings, bonds_in_2_rings, count
    };
    static_assert(count == 42);
    std::vector<unsigned> n(count, 0);
    const RDKit::RingInfo& rings = *mol.getRingInfo();
    for (const RDKit::Atom* atom : mol.atoms()) {
        const int z = atom->getAtomicNum();
        const unsigned ring_count = rings.numAtomRings(atom->getIdx());
        const bool in_ring = ring_count > 0;
        const unsigned hydrogens = atom->getTotalNumHs();
        switch (z) {
            case 6: ++n[carbon]; break;
            case 9: ++n[fluorine]; break;
            case 17: ++n[chlorine]; break;
            case 35: ++n[bromine]; break;
            case 53: ++n[iodine]; break;
            case 16: ++n[sulfur]; break;
            case 15: ++n[phosphorus]; break;
            case 7:
            case 8: {
                if (z == 7) {
                    ++n[in_ring ? cyclic_n : acyclic_n];
                    if (atom->getDegree() != 4) {  // not a quaternary nitrogen: one acceptor site
                        ++n[acceptor_sites];
                        ++n[acceptor_atoms];
                    }
                } else {
                    ++n[in_ring ? cyclic_o : acyclic_o];
                    ++n[acceptor_atoms];
                    n[acceptor_sites] += atom->getFormalCharge() == -1 ? 3 : 2;  // lone pairs
                }
                if (hydrogens > 0) {
                    n[donor_sites] += hydrogens;
                    ++n[donor_atoms];
                }
                break;
            }
            default: break;
        }
        if (atom->getFormalCharge() > 0) ++n[positive_charges];
        if (atom->getFormalCharge() < 0) ++n[negative_charges];
        if (z == 1) continue;  // hydrogens count for nothing below
        const unsigned degree = atom->getDegree();
        if (degree == 1) ++n[degree1];
        if (degree >= 2 && degree <= 4) ++n[(in_ring ? cyclic_degree2 : acyclic_degree2) + degree - 2];
        if (ring_count >= 2) ++n[atoms_in_2_rings];
    }
    n[heavy_atoms] = mol.getNumHeavyAtoms();
    unsigned aromatic = 0;
    for (const RDKit::Bond* bond : mol.bonds()) {
        const unsigned ring_count = rings.numBondRings(bond->getIdx());
        if (bond->getIsAromatic()) ++aromatic;
        switch (bond->getBondType()) {
            case RDKit::Bond::SINGLE: ++n[ring_count ? cyclic_single : acyclic_single]; break;
            case RDKit::Bond::DOUBLE: ++n[ring_count ? cyclic_double : acyclic_double]; break;
            case RDKit::Bond::TRIPLE: ++n[ring_count ? cyclic_triple : acyclic_triple]; break;
            default: break;
        }
        if (ring_count >= 2) ++n[bonds_in_2_rings];
    }
    n[cyclic_single] += aromatic - aromatic / 2;
    n[cyclic_double] += aromatic / 2;
    n[rotatable] = static_cast<unsigned>(rotatable_bonds(mol, strict_rotatable));
    for (const auto& ring : rings.atomRings()) ++n[ring.size() >= 10 ? ring10_or_more : ring3 + ring.size() - 3];
    return n;
}

struct Rdkit2dPlan {
    std::vector<Column> columns;
    int mqn = 0;  // 0: RDKit's calcMQNs; 1: mqn_counts with the strict rotatable-bond rule; 2: the plain rule
};

// Which trail sum (if any) gives a registered descriptor: the candidates are tried on every probe
// molecule and kept only where each value equals RDKit's as a float (the columns are floats).
Rdkit2dPlan make_rdkit2d_plan() {
    Rdkit2dPlan plan;
    for (const std::string& name : rdkit_properties().getPropertyNames())
        plan.columns.push_back({.name = name, .rdkit = RDKit::Descriptors::Properties::getProperty(name)});
    std::vector<std::unique_ptr<RDKit::ROMol>> probes;
    try {
        for (const char* smiles : kProbeSmiles) {
            probes.emplace_back(RDKit::SmilesToMol(smiles));
            if (!probes.back()) return plan;  // every column from RDKit
        }
    } catch (const std::exception&) {
        return plan;
    }
    std::vector<OwnInputs> inputs;
    for (const auto& mol : probes) inputs.emplace_back(*mol);
    const auto agrees = [&](const Column& c) {  // c with its candidate source
        try {
            for (std::size_t p = 0; p < probes.size(); ++p)
                if (static_cast<float>(own_value(c, inputs[p])) != static_cast<float>((*c.rdkit)(*probes[p]))) return false;
        } catch (const std::exception&) {
            return false;
        }
        return true;
    };
    for (Column& c : plan.columns) {
        std::vector<std::pair<Source, int>> candidates;
        const std::string& n = c.name;
        if (n.size() == 5 && n.compare(0, 3, "chi") == 0 && n[3] >= '2' && n[3] <= '4' && (n[4] == 'v' || n[4] == 'n')) {
            const Source source = n[4] == 'v' ? Source::chi_v : Source::chi_n;
            const int stated = n[3] - '0';
            candidates.emplace_back(source, stated);
            for (int order = 2; order <= 4; ++order)
                if (order != stated) candidates.emplace_back(source, order);
        } else if (n == "kappa2") {
            candidates.emplace_back(Source::kappa2, 0);
        } else if (n == "kappa3") {
            candidates.emplace_back(Source::kappa3, 0);
        } else if (n == "Phi") {
            candidates.emplace_back(Source::phi, 0);
        } else if (n == "NumRotatableBonds") {
            candidates.emplace_back(Source::rotatable_strict, 0);
            candidates.emplace_back(Source::rotatable_plain, 0);
        } else if (n == "CrippenClogP") {
            candidates.emplace_back(Source::crippen_logp, 0);
        } else if (n == "CrippenMR") {
            candidates.emplace_back(Source::crippen_mr, 0);
        }
        for (const auto& [source, order] : candidates) {
            Column trial = c;
            trial.source = source;
            trial.order = order;
            if (agrees(trial)) {
                c = trial;
                break;
            }
        }
    }
    for (const int rule : {1, 2}) {
        bool same = true;
        try {
            for (std::size_t p = 0; p < probes.size() && same; ++p) same = mqn_counts(*probes[p], rule == 1) == RDKit::Descriptors::calcMQNs(*probes[p]);
        } catch (const std::exception&) {
            same = false;
        }
        if (same) {
            plan.mqn = rule;
            break;
        }
    }
    return plan;
}

const Rdkit2dPlan& rdkit2d_plan() {
    static const Rdkit2dPlan plan = make_rdkit2d_plan();
    return plan;
}

}  // namespace

void append_rdkit2d(const RDKit::ROMol& mol, std::vector<float>& out) {
    OwnInputs in(mol);
    for (const Column& c : rdkit2d_plan().columns) {
        double v;
        if (c.source == Source::rdkit) {
            v = (*c.rdkit)(mol);
        } else {
            try {
                v = own_value(c, in);
            } catch (const Error&) {  // what gatkit needs of RDKit is missing here: RDKit's own function
                v = (*c.rdkit)(mol);
            }
        }
        out.push_back(std::isfinite(v) ? static_cast<float>(v) : 0.0f);
    }
    const int mqn = rdkit2d_plan().mqn;
    for (const unsigned v : mqn == 0 ? RDKit::Descriptors::calcMQNs(mol) : mqn_counts(mol, mqn == 1)) out.push_back(static_cast<float>(v));
}

std::vector<std::string> rdkit2d_names() {
    std::vector<std::string> names = rdkit_properties().getPropertyNames();
    for (int k = 1; k <= kMqnCount; ++k) names.push_back("MQN" + std::to_string(k));
    return names;
}

std::vector<std::string> rdkit2d_own_columns() {
    std::vector<std::string> names;
    for (const Column& c : rdkit2d_plan().columns)
        if (c.source != Source::rdkit) names.push_back(c.name);
    if (rdkit2d_plan().mqn != 0)
        for (int k = 1; k <= kMqnCount; ++k) names.push_back("MQN" + std::to_string(k));
    return names;
}

}  // namespace gatkit::chem
