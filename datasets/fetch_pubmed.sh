#!/bin/bash
# Downloads PubMed-Diabetes (the Planetoid "PubMed" citation graph: 19,717 papers, 500 TF-IDF word
# features, 3 classes) from the LINQS group's public data page and unpacks its node and links
# files into DIR (default datasets/pubmed), in LINQS's tab layout. Needs internet access.
# Source: Namata et al., "Query-driven Active Surveying for Collective Classification", MLG 2012.
set -euo pipefail
dir=${1:-$(dirname "$0")/pubmed}
url=${PUBMED_URL:-https://linqs-data.soe.ucsc.edu/public/Pubmed-Diabetes.tgz}  # PUBMED_URL: a mirror or a local file:// copy
mkdir -p "$dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if command -v curl >/dev/null; then curl -fsSL "$url" -o "$tmp/pubmed.tgz"; else wget -q "$url" -O "$tmp/pubmed.tgz"; fi
tar -xzf "$tmp/pubmed.tgz" -C "$tmp"
for f in Pubmed-Diabetes.NODE.paper.tab Pubmed-Diabetes.DIRECTED.cites.tab; do
  path=$(find "$tmp" -name "$f" -type f | head -n 1)
  [ -n "$path" ] || { echo "fetch_pubmed: $f is not in the archive from $url" >&2; exit 1; }
  cp "$path" "$dir/"
done
echo "PubMed-Diabetes written to $dir (use: gatkit train --task node --data $dir ...)"
