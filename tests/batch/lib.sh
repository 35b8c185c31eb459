# SPDX-License-Identifier: MIT
# lib.sh - shared by the batch tests (sourced).  Environment: FT_BIN
# (foretell), FT_INST (the data/ programs built with foretell-cc), FT_SRC
# (the source tree), FT_WORK (scratch).  Sets $work and cds there.
set -u
FT=$FT_BIN/foretell
HERE=$FT_SRC/tests/batch
# Debian's python3 (setup.sh installs python3-jsonschema for it), not
# whatever python3 comes first in PATH
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
CHECK="$PY $HERE/storecheck.py"
work=$FT_WORK/$name
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

fail() { echo "FAIL($name): $*" >&2; exit 1; }

# rec OUT SEED QUANTUM PROG [ARGS]: records one run (whatever its status).
rec() {
    out=$1 seed=$2 q=$3
    shift 3
    "$FT" record --seed "$seed" --quantum "$q" -o "$out" -- "$@" \
        >/dev/null 2>&1
    [ -s "$out" ] || fail "recording $* wrote no trace"
}

# traces DIR: a small set of runs of the data/ programs: the same bugs in
# several runs (best_fig2 and vb_figures fig. 2 with three seeds), other
# bugs once, and correct programs.
traces() {
    mkdir -p "$1"
    for s in 1 2 3; do
        rec "$1/fig2-s$s.ftrace" $s 20000 "$FT_INST/best_fig2"
        rec "$1/vb2-s$s.ftrace" $s 3 "$FT_INST/vb_figures" 2
    done
    rec "$1/vb3.ftrace" 1 20000 "$FT_INST/vb_figures" 3
    rec "$1/ok-barrier.ftrace" 1 20000 "$FT_INST/barrier_phases"
    rec "$1/ok-init.ftrace" 1 20000 "$FT_INST/init_order"
}

# fast_traces DIR: runs that analyze fast, three of them with findings,
# for the tests that analyze them many times (with --stop-after 1).
fast_traces() {
    mkdir -p "$1"
    rec "$1/vb2.ftrace" 1 3 "$FT_INST/vb_figures" 2
    rec "$1/fig2.ftrace" 1 20000 "$FT_INST/best_fig2"
    rec "$1/cfg.ftrace" 1 20000 "$FT_INST/config_swap"
    for p in init_order barrier_phases abba_deadlock rpro_d1; do
        rec "$1/$p.ftrace" 1 20000 "$FT_INST/$p"
    done
}

# same A.db B.db WHAT: the two stores hold the same (times left out).
same() {
    $CHECK dump "$1" >"$1.dump" || fail "dump $1"
    $CHECK dump "$2" >"$2.dump" || fail "dump $2"
    cmp -s "$1.dump" "$2.dump" ||
        fail "$3: $(diff "$1.dump" "$2.dump" | head -5)"
}
