#!/bin/sh
# The GAT row kernels' gathers keep their software prefetches in the compiled library.
#
# GCC 12 once split the prefetch helpers of src/nn/gat_simd*.cpp by partial inlining and then
# deleted the outlined part, which held nothing but prefetches (instructions it treats as free
# of side effects): the 1M-node layer ran 1.7× slower and no test noticed, since no value
# changed (docs/results.md, "Prefetches the compiler had deleted"). This reads the disassembly
# of the kernels' object files and fails when a forward_rows, backward_dst_rows or
# backward_src_rows function there has no prefetch instruction, or when the vector kernels are
# compiled in but none of those is a function of its own any more (then this check must learn
# where their loops went).
#
# usage: kernel_prefetches.sh OBJDUMP OBJECT...   (ctest passes all the library's object files,
# as one ;-separated list)
set -eu
objdump=$1
shift
# ctest passes the objects as one ';'-separated list: split it (paths with ';' are not expected)
list=""
for a in "$@"; do list="$list;$a"; done
old_ifs=$IFS
IFS=';'
set -f
set -- $list
set +f
IFS=$old_ifs
kernels=0
stubs=0
for object in "$@"; do
    case $(basename "$object") in
        gat_simd*.o | gat_simd*.obj) ;;
        *) continue ;;
    esac
    # the build without AVX2 and AVX-512 compiles stubs that throw this message
    if grep -q "no vector GatConv kernels" "$object"; then stubs=$((stubs + 1)); fi
    report=$("$objdump" -d -C --no-show-raw-insn "$object" | awk '
        /^[0-9a-f]+ </ {
            name = ""
            if (match($0, /(forward_rows|backward_dst_rows|backward_src_rows)<[0-9]+>/)) {
                name = substr($0, RSTART, RLENGTH)
                if (!(name in count)) count[name] = 0
            }
            next
        }
        /prefetch/ { if (name != "") count[name]++ }
        END {
            n = 0; bad = 0
            for (k in count) {
                n++
                if (count[k] == 0) { print "  no prefetch in " k; bad++ }
            }
            print n, bad
        }')
    counts=$(printf '%s\n' "$report" | tail -n 1)
    n=${counts% *}
    bad=${counts#* }
    printf '%s\n' "$report" | sed '$d' | sort
    echo "$(basename "$object"): $n row kernels, $bad without a prefetch"
    [ "$bad" = 0 ] || exit 1
    kernels=$((kernels + n))
done
if [ "$kernels" = 0 ]; then
    if [ "$stubs" -gt 0 ]; then
        echo "this build has no vector row kernels: nothing to check"
        exit 0
    fi
    echo "no forward_rows, backward_dst_rows or backward_src_rows function in the gat_simd objects, though the vector kernels are compiled in: find where their loops went and check those for prefetches" >&2
    exit 1
fi
