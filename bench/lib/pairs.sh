# shellcheck shell=bash
# bench/lib/pairs.sh — shared machinery of the pair-by-pair timing scripts (bench/cora_epoch,
# bench/link_epoch): sourced, never run. Timings drift ±5–10 % between processes on these
# machines, so a script alternates gatkit (A) and the PyTorch reference (B) — one untimed warm-up
# pair, then P timed pairs A B A B … — and reports medians and the median per-pair ratio.
#
# A script using it (its header comment is its --help text):
#   set -euo pipefail
#   shopt -s inherit_errexit                  # a failing run inside $(...) stops the script
#   source "$(dirname "$0")/lib/pairs.sh"
#   pairs_parse_args "$@"   # --threads N --pairs P --help; checks GATKIT; cd to the repository root
#   ...                     # the script's own checks (its data)
#   pairs_prepare torch_reference_script.py   # builds build/gatkit if needed, $tmp, with_torch
#   run_gatkit() { ...; }   # each prints one median training-epoch time in seconds on stdout
#   run_torch() { ...; }
#   pairs_run "title line"
#
# Sets: name (the script's file name, for messages), threads, pairs, root (the repository root,
# also the working directory), bench (../shared/bench, absolute), gatkit (the binary to time),
# tmp (a scratch folder removed on exit), with_torch (1 when the reference can run, else 0).
# Gives: json_field FILE KEY, median X..., ms SECONDS; after pairs_run, g_all and t_all hold the
# timed runs' seconds (gatkit, reference).

name=$(basename "$0")

# --threads N (default 2) and --pairs P (default 5); --help prints the script's header comment.
# Resolves GATKIT to an absolute path before leaving the caller's directory.
pairs_parse_args() {
    threads=2
    pairs=5
    while [ $# -gt 0 ]; do
        case "$1" in
            --threads) threads=$2; shift 2 ;;
            --pairs) pairs=$2; shift 2 ;;
            -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
            *) echo "$name: unknown argument '$1' (try --help)" >&2; exit 2 ;;
        esac
    done
    [[ "$threads" =~ ^[1-9][0-9]*$ ]] || { echo "$name: --threads must be a positive integer" >&2; exit 2; }
    [[ "$pairs" =~ ^[1-9][0-9]*$ ]] || { echo "$name: --pairs must be a positive integer" >&2; exit 2; }

    if [ -n "${GATKIT:-}" ]; then
        if [ ! -x "$GATKIT" ] || [ -d "$GATKIT" ]; then
            echo "$name: GATKIT=$GATKIT is not an executable" >&2
            exit 1
        fi
        GATKIT=$(cd "$(dirname "$GATKIT")" && pwd)/$(basename "$GATKIT")
    fi
    # This file lives in bench/lib: the repository root is two levels up.
    cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
    root=$(pwd)
    bench="$root/../shared/bench"
}

# Builds build/gatkit (Release) when it is missing and GATKIT is unset; makes $tmp; sets
# with_torch from whether ../shared/bench/$1 exists and PyTorch imports through with-openblas.
pairs_prepare() {
    local reference=$1
    # shellcheck disable=SC2034  # gatkit is for the caller's run_gatkit
    gatkit=${GATKIT:-build/gatkit}
    if [ -z "${GATKIT:-}" ] && [ ! -x build/gatkit ]; then
        echo "$name: build/gatkit missing; building it (Release)" >&2
        cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
        cmake --build build -j2 --target gatkit_cli >/dev/null
    fi

    tmp=$(mktemp -d "/tmp/$name.XXXXXX")
    trap 'rm -rf "$tmp"' EXIT

    with_torch=1
    if [ ! -f "$bench/$reference" ] || [ ! -x "$bench/with-openblas" ]; then
        echo "$name: ../shared/bench not found: timing gatkit alone" >&2
        with_torch=0
    elif ! "$bench/with-openblas" /usr/bin/python3 -c 'import torch' 2>"$tmp/torch.err"; then
        echo "$name: PyTorch reference not runnable ($(tail -n 1 "$tmp/torch.err")): timing gatkit alone" >&2
        echo "$name: run ../shared/bench/setup.sh once to install it" >&2
        with_torch=0
    fi
}

# JSON field from a file (python3 from the path; any version reads JSON). KEY may be a dotted
# path into nested objects (epoch_s.median).
json_field() {
    python3 -c 'import json,sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."): v = v[k]
print(v)' "$1" "$2"
}

median() { printf '%s\n' "$@" | python3 -c 'import statistics,sys; print(statistics.median(float(x) for x in sys.stdin.read().split()))'; }

ms() { python3 -c "print($1 * 1e3)"; }

# Prints the title, runs one untimed warm-up pair, then $pairs timed pairs of run_gatkit and
# run_torch (run_gatkit alone without the reference): per pair gatkit ms, torch ms and
# torch/gatkit (the speed-up; > 1 means gatkit is faster), then the medians.
pairs_run() {
    echo "$1"
    run_gatkit >/dev/null
    [ "$with_torch" = 1 ] && run_torch >/dev/null

    g_all=() t_all=()  # left set for the caller: every timed run's seconds
    local r_all=() g t r g_med t_med r_med i
    if [ "$with_torch" = 1 ]; then
        printf '%-6s %12s %12s %14s\n' pair "gatkit ms" "torch ms" "torch/gatkit"
    else
        printf '%-6s %12s\n' pair "gatkit ms"
    fi
    for ((i = 1; i <= pairs; i++)); do
        g=$(run_gatkit)
        g_all+=("$g")
        if [ "$with_torch" = 1 ]; then
            t=$(run_torch)
            t_all+=("$t")
            r=$(python3 -c "print($t / $g)")
            r_all+=("$r")
            printf '%-6s %12.2f %12.2f %14.2f\n' "$i" "$(ms "$g")" "$(ms "$t")" "$r"
        else
            printf '%-6s %12.2f\n' "$i" "$(ms "$g")"
        fi
    done

    g_med=$(median "${g_all[@]}")
    if [ "$with_torch" = 1 ]; then
        t_med=$(median "${t_all[@]}")
        r_med=$(median "${r_all[@]}")
        printf '%-6s %12.2f %12.2f %14.2f\n' median "$(ms "$g_med")" "$(ms "$t_med")" "$r_med"
        printf 'speed-up (median of per-pair torch/gatkit): %.2fx\n' "$r_med"
    else
        printf '%-6s %12.2f\n' median "$(ms "$g_med")"
    fi
}
