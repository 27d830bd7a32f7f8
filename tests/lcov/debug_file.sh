#!/bin/sh
# Separate debug files, where gdb finds them (docs/debuginfo.md): a program
# whose DWARF was moved out (objcopy --only-keep-debug, strip -g, objcopy
# --add-gnu-debuglink) gives the same lcov and the same sample profile as
# the program with its DWARF, with the debug file
#   beside     beside the program (the debug link's name in its directory)
#   dotdebug   in the program's .debug/ subdirectory
#   debugroot  under --debug-dir DIR as DIR/ + the program's directory
#   buildid    as DIR/.build-id/XX/REST.debug under --debug-dir DIR (no link)
# and a debug file whose CRC32 is not the link's is not used, with a warning
# naming it. gdb, where installed, is the oracle of each layout: it finds
# the same file (and refuses the one with another CRC).
# hwt-pgo takes --debug-dir and passes it on (its sample profile is written).
#   debug_file.sh HWT_COV HWT SRC_DIR WORK_DIR [HWT_PGO]
set -u
hwt_cov=$1
hwt=$2
src=$3
work=$4
hwt_pgo=${5:-}
. "$(dirname "$0")/../work_dir.sh"
hwt_test_work_dir "$work"
mkdir -p "$work"
cd "$work" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
pass() { echo "ok: $*"; }

for tool in objcopy strip readelf; do
	command -v $tool >/dev/null || { echo "SKIP: no $tool"; exit 77; }
done

mkdir full
gcc -O0 -g -o full/prog "$src/cov_basic.c" || exit 1
"$hwt_cov" --trace-all --keep full.hwt -o full.info ./full/prog >/dev/null 2>full.err ||
	{ cat full.err; exit 1; }
grep -q '^SF:.*cov_basic\.c$' full.info || { echo "FAIL: the unstripped program has no coverage"; exit 1; }
"$hwt" report afdo --binary full/prog -o full.prof full.hwt 2>full.afdo.err || { cat full.afdo.err; exit 1; }
grep -q main full.prof || { echo "FAIL: no main in the sample profile"; cat full.prof; exit 1; }

# split VARIANT [link]: VARIANT/bin/prog without DWARF, VARIANT/prog.debug
# with it; with "link", a .gnu_debuglink to prog.debug in prog.
split() {
	mkdir -p "$1/bin"
	cp full/prog "$1/bin/prog"
	objcopy --only-keep-debug "$1/bin/prog" "$1/prog.debug" || exit 1
	strip -g "$1/bin/prog" || exit 1
	if [ "${2:-}" = link ]; then
		# objcopy reads the debug file (its CRC) from the current directory.
		(cd "$1" && objcopy --add-gnu-debuglink=prog.debug bin/prog) || exit 1
	fi
	if readelf -S "$1/bin/prog" | grep -q '\.debug_info'; then
		echo "FAIL: $1/bin/prog still has .debug_info"
		exit 1
	fi
}

# gdb_finds VARIANT [--debug-dir DIR]: gdb, with DIR as its
# debug-file-directory (else its default, /usr/lib/debug), finds the line of
# main in VARIANT/bin/prog (0), or not (1); 2 without gdb.
gdb_finds() {
	command -v gdb >/dev/null || return 2
	gv=$1
	shift
	gdir=/usr/lib/debug
	[ $# -eq 2 ] && gdir=$2
	gdb -nx --batch -iex "set debug-file-directory $gdir" -ex 'info line main' "$gv/bin/prog" \
		>"$gv.gdb" 2>&1
	grep -q '^Line [0-9]* of ".*cov_basic\.c"' "$gv.gdb"
}

# same VARIANT [--debug-dir DIR]: its lcov and sample profile are the
# unstripped program's (the program's own: --debug-dir replaces
# /usr/lib/debug, where libc6-dbg gives the loader and libc their DWARF).
same() {
	v=$1
	shift
	gdb_finds "$v" "$@"
	case $? in
	0) pass "$v: gdb finds the debug file there too" ;;
	1) fail "$v: gdb does not find the debug file there: $(cat "$v.gdb")" ;;
	esac
	"$hwt_cov" --trace-all --keep "$v.hwt" "$@" -o "$v.info" "./$v/bin/prog" >/dev/null 2>"$v.err"
	if cmp -s full.info "$v.info"; then
		pass "$v: the same lcov as the unstripped program"
	else
		fail "$v: lcov differs"
		diff full.info "$v.info" | head -20
		cat "$v.err"
	fi
	"$hwt" report afdo "$@" --binary "$v/bin/prog" -o "$v.prof" "$v.hwt" 2>"$v.afdo.err"
	if cmp -s full.prof "$v.prof"; then
		pass "$v: the same sample profile"
	else
		fail "$v: sample profile differs"
		diff full.prof "$v.prof" | head -20
		cat "$v.afdo.err"
	fi
}

split beside link
mv beside/prog.debug beside/bin/prog.debug
same beside

split dotdebug link
mkdir dotdebug/bin/.debug
mv dotdebug/prog.debug dotdebug/bin/.debug/prog.debug
same dotdebug

split debugroot link
mkdir -p "debugroot/root$work/debugroot/bin"
mv debugroot/prog.debug "debugroot/root$work/debugroot/bin/prog.debug"
same debugroot --debug-dir "$work/debugroot/root"
# --debug-dir replaces /usr/lib/debug, and is repeatable: a second one is looked in too.
mkdir empty
"$hwt_cov" --trace-all --debug-dir "$work/empty" --debug-dir "$work/debugroot/root" \
	-o debugroot2.info ./debugroot/bin/prog >/dev/null 2>debugroot2.err
if cmp -s full.info debugroot2.info; then
	pass "debugroot: found in the second --debug-dir"
else
	fail "debugroot: not found in the second --debug-dir"
	cat debugroot2.err
fi

split buildid
id=$(readelf -n buildid/bin/prog | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
[ -n "$id" ] || { echo "FAIL: no build-id"; exit 1; }
rest=${id#??}
mkdir -p "buildid/root/.build-id/${id%"$rest"}"
mv buildid/prog.debug "buildid/root/.build-id/${id%"$rest"}/$rest.debug"
same buildid --debug-dir "$work/buildid/root"
# Without the --debug-dir, /usr/lib/debug has no such file: no debug info, said.
"$hwt_cov" --trace-all -o buildid-nodir.info ./buildid/bin/prog >/dev/null 2>buildid-nodir.err
if grep -q '^SF:.*cov_basic\.c$' buildid-nodir.info 2>/dev/null ||
   ! grep -q "no debug info: $work/buildid/bin/prog" buildid-nodir.err; then
	fail "buildid: found without its --debug-dir, or not said"
	cat buildid-nodir.err
else
	pass "buildid: not found without its --debug-dir, and said"
fi

# Another build's debug file under the link's name: its CRC32 is not the
# link's. gdb passes over it; so do lcov and the sample profile, saying so.
split crc link
mv crc/prog.debug crc/bin/prog.debug
printf 'x' >>crc/bin/prog.debug
gdb_finds crc
if [ $? -eq 1 ] && grep -q 'CRC mismatch' crc.gdb; then
	pass "crc: gdb refuses it too (CRC mismatch)"
elif command -v gdb >/dev/null; then
	fail "crc: gdb does not refuse it: $(cat crc.gdb)"
fi
"$hwt_cov" --trace-all --keep crc.hwt -o crc.info ./crc/bin/prog >/dev/null 2>crc.err
if grep -q '^SF:.*cov_basic\.c$' crc.info 2>/dev/null; then
	fail "crc: a debug file with another CRC32 was used"
elif grep -qF "$work/crc/bin/prog: its debug link names $work/crc/bin/prog.debug, whose CRC32 is not the link's" crc.err &&
     grep -q "no debug info: $work/crc/bin/prog" crc.err; then
	pass "crc: a debug file with another CRC32 not used, and said"
else
	fail "crc: no warning naming the debug file"
	cat crc.err
fi
"$hwt" report afdo -o crc.prof crc.hwt 2>crc.afdo.err
if grep -qF "its debug link names $work/crc/bin/prog.debug, whose CRC32 is not the link's" crc.afdo.err; then
	pass "crc: hwt report afdo says so too"
else
	fail "crc: hwt report afdo does not say why"
	cat crc.afdo.err
fi

if [ -n "$hwt_pgo" ] && command -v clang-19 >/dev/null; then
	mkdir -p pgo
	"$hwt_pgo" -q --debug-dir "$work/empty" --debug-dir /usr/lib/debug -o pgo/prog -- \
		"$src/cov_basic.c" >pgo.out 2>pgo.err
	if [ -s pgo/prog.afdo ] && grep -q main pgo/prog.afdo && [ -x pgo/prog ]; then
		pass "hwt-pgo --debug-dir: built with its profile"
	else
		fail "hwt-pgo --debug-dir"
		cat pgo.err
	fi
fi

[ $fails -eq 0 ] || exit 1
echo "all debug file checks passed"
