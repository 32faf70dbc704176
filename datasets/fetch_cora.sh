#!/bin/bash
# Downloads the Cora citation graph from the LINQS group's public data page and unpacks
# cora.content and cora.cites into DIR (default datasets/cora). Needs internet access.
# Source: Sen et al., "Collective Classification in Network Data", AI Magazine 29(3), 2008.
set -euo pipefail
dir=${1:-$(dirname "$0")/cora}
url=https://linqs-data.soe.ucsc.edu/public/lbc/cora.tgz
mkdir -p "$dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if command -v curl >/dev/null; then curl -fsSL "$url" -o "$tmp/cora.tgz"; else wget -q "$url" -O "$tmp/cora.tgz"; fi
tar -xzf "$tmp/cora.tgz" -C "$tmp"
cp "$tmp"/cora/cora.content "$tmp"/cora/cora.cites "$dir"/
echo "Cora written to $dir (use: gatkit train --task node --data $dir ...)"
