#!/bin/sh
# SPDX-License-Identifier: MIT
# no_cmocka.sh SRC WORK - configures foretell with -DFORETELL_TESTS=OFF
# while pkg-config denies knowing cmocka (a wrapper around the real one),
# and checks that the default configuration (tests on) does need it.
set -u
src=$1 work=$2
fail() { echo "FAIL(install_no_cmocka): $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work" || exit 1
real=$(command -v pkg-config) || { echo "no pkg-config: skipped"; exit 0; }
cat >"$work/pkg-config" <<SH
#!/bin/sh
for a in "\$@"; do case \$a in cmocka*) exit 1 ;; esac; done
exec "$real" "\$@"
SH
chmod +x "$work/pkg-config"
PKG_CONFIG=$work/pkg-config cmake -S "$src" -B "$work/off" -DFORETELL_TESTS=OFF \
    >"$work/off.log" 2>&1 || fail "TESTS=OFF without cmocka: $(grep -A3 'Error' "$work/off.log" | head -8)"
grep -q 'foretell_rt' "$work/off/recorder/rt/Makefile" 2>/dev/null ||
    [ -f "$work/off/build.ninja" ] || fail "TESTS=OFF generated no runtime target"
PKG_CONFIG=$work/pkg-config cmake -S "$src" -B "$work/on" >"$work/on.log" 2>&1 &&
    fail "the default configuration found a cmocka the fake pkg-config hides"
grep -q cmocka "$work/on.log" || fail "the failure does not name cmocka"
echo "install_no_cmocka: ok"
