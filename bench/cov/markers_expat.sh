#!/bin/sh
# Exclusion markers on a real project: expat 2.5.0 (Debian bookworm's source
# package, fetched with apt-get source; its library carries LCOV_EXCL_*
# markers on 34 lines). Built with CMake at -O0 -g for hwt-cov and at -O0
# --coverage for lcov, xmlwf run on the same inputs under both; prints, per
# source file, what hwt-cov leaves out for the markers (its report against
# its report with --no-markers) next to what lcov leaves out (lcov --capture
# against lcov --capture --no-markers): lines, functions, lines with
# branches. docs/hwt-cov.md, "Exclusion markers", quotes the figures.
#   bench/cov/markers_expat.sh BUILD_DIR
# BUILD_DIR is a built tree (bin/hwt-cov, bin/hwt). Needs deb-src entries.
set -eu
build=$(cd "$1" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/hwt-bench-markers.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
apt-get source -q --download-only expat >/dev/null
tar -xzf expat_*.orig.tar.gz
src=$(echo "$work"/libexpat-*/expat)
for kind in g cov; do
	flags="-O0 -g"
	[ $kind = cov ] && flags="-O0 --coverage"
	cmake -S "$src" -B "build-$kind" -DCMAKE_BUILD_TYPE= -DCMAKE_C_FLAGS="$flags" \
		-DEXPAT_BUILD_TESTS=OFF -DEXPAT_BUILD_DOCS=OFF -DEXPAT_BUILD_EXAMPLES=OFF \
		-DEXPAT_BUILD_TOOLS=ON >"cmake-$kind.log" 2>&1
	cmake --build "build-$kind" -j2 >"build-$kind.log" 2>&1
done
doc=$src/doc/xmlwf.xml
cat >run.sh <<EOF
#!/bin/sh
# xmlwf on expat's own documentation and a few strings: the same for both builds
b=\$1
\$b/xmlwf/xmlwf "$doc" >/dev/null
\$b/xmlwf/xmlwf -d "\$2" "$doc"
\$b/xmlwf/xmlwf -n -c "$doc" >/dev/null
\$b/xmlwf/xmlwf -e UTF-16 "$doc" >/dev/null
printf '<?xml version="1.0"?><!DOCTYPE a [<!ENTITY e "x&#65;">]><a b="&e;">&e;<![CDATA[z]]><?p q?></b>' | \$b/xmlwf/xmlwf
exit 0
EOF
chmod +x run.sh
mkdir out-g out-cov
./run.sh build-cov out-cov >/dev/null 2>&1
lcov -q --capture --rc lcov_branch_coverage=1 -d build-cov -o lcov.info 2>/dev/null
lcov -q --capture --no-markers --rc lcov_branch_coverage=1 -d build-cov -o lcov_plain.info 2>/dev/null
"$build/bin/hwt-cov" -q --keep run.hwt -o hwt.info -- ./run.sh build-g out-g >/dev/null
"$build/bin/hwt" report lcov -q --no-markers -o hwt_plain.info run.hwt
python3 - "$root/tests/lcov" hwt.info hwt_plain.info lcov.info lcov_plain.info <<'EOF'
import os, sys
sys.path.insert(0, sys.argv[1])
from gcov_oracle import parse_lcov
hwt, hwt_plain, lcov, lcov_plain = [parse_lcov(p) for p in sys.argv[2:6]]
def view(d, src):
    r = d.get(src, {'lines': {}, 'fns': {}, 'brs': {}})
    return set(r['lines']), set(r['fns']), set(k[0] for k in r['brs'])
differ = 0
for src in sorted(set(hwt_plain) | set(lcov_plain)):
    ours = [a - b for a, b in zip(view(hwt_plain, src), view(hwt, src))]
    theirs = [a - b for a, b in zip(view(lcov_plain, src), view(lcov, src))]
    if not any(ours) and not any(theirs):
        continue
    for kind, a, b in zip(('lines', 'functions', 'lines with branches'), ours, theirs):
        differ += a != b
        print('%s: excluded %s: hwt-cov %d, lcov %d, in both %d' %
              (os.path.basename(src), kind, len(a), len(b), len(a & b)))
print('differences: %d' % differ)
EOF
