#!/bin/sh
# hwt-cov's configuration file (docs/hwt-cov.md, "Configuration file"):
#  - found from a subdirectory of the project (hwt.cfg at the top of the
#    work tree), said unless -q; its keys applied: the unit, trace-all, an
#    output relative to the file's directory, a gate, max-trace-size;
#  - the command line wins for a single value (a gate, max-trace-size) and
#    adds to a list (-o), as gcovr does;
#  - --config FILE; --no-config;
#  - errors (a line that is not key = value, an unknown key, a bad value)
#    name FILE:LINE, exit 2, and nothing runs.
#
# usage: config_test.sh BUILD_DIR WORK_DIR
set -u
build=$1
work=$2
cov=$build/bin/hwt-cov
loops=$build/tests/programs/loops

fail() {
	echo "FAIL: $*"
	exit 1
}

. "$(dirname "$0")/../work_dir.sh"
hwt_test_work_dir "$work"
rm -rf "$work"
mkdir -p "$work/proj/.git" "$work/proj/sub/dir" "$work/proj/reports" || exit 1
work=$(cd "$work" && pwd -P)
proj=$work/proj

if command -v valgrind >/dev/null; then
	unit=valgrind
elif command -v qemu-x86_64 >/dev/null; then
	unit=qemu
else
	echo "SKIP: no software trace unit (valgrind, qemu-x86_64)"
	exit 77
fi

cat >"$proj/hwt.cfg" <<CFG
# hwt-cov's options for this project
unit = $unit
trace-all = yes        # loops is not built under this root
output = reports/cov.json
fail-under-branches = 100
max-trace-size = 1
summary-only = yes     # the totals, no table of files
CFG

cd "$proj/sub/dir" || exit 1
# The keys applied: the gate fails (16), the output is where the file says.
"$cov" -- "$loops" >run.out 2>run.err
status=$?
[ $status = 16 ] || fail "keys: exit $status, want 16 (the branch gate): $(cat run.err)"
grep -qx "hwt-cov: options from $proj/hwt.cfg" run.err || fail "the file read is not said: $(cat run.err)"
[ -s "$proj/reports/cov.json" ] || fail "output = reports/cov.json not written beside hwt.cfg"
[ ! -e reports ] || fail "the output went under the current directory"
grep -q 'the trace stopped at --max-trace-size (1 bytes)' run.err ||
	fail "max-trace-size = 1 not applied: $(cat run.err)"
grep -q '^hwt-cov: lines\.\.\.\.\.\.: ' run.err || fail "no totals: $(cat run.err)"
! grep -q '^File  *Lines' run.out run.err || fail "summary-only = yes not applied: $(cat run.err)"
echo "ok: keys applied from $proj/hwt.cfg (found from sub/dir)"

# The command line wins for single values and adds to lists.
rm -f "$proj/reports/cov.json"
"$cov" -q --fail-under-branches 0 --max-trace-size 1G -o cli.info -- "$loops" >run.out 2>run.err
status=$?
[ $status = 0 ] || fail "overrides: exit $status, want 0: $(cat run.err)"
[ -s cli.info ] && [ -s "$proj/reports/cov.json" ] || fail "-o does not add to the file's output"
! grep -q 'max-trace-size' run.err || fail "--max-trace-size 1G does not override: $(cat run.err)"
! grep -q 'options from' run.err || fail "-q does not quiet the config line"
echo "ok: the command line overrides values and adds to lists"

# --no-config: none of it.
rm -f "$proj/reports/cov.json"
"$cov" --no-config --trace-all --unit $unit -o none.info -- "$loops" >run.out 2>run.err
status=$?
[ $status = 0 ] || fail "--no-config: exit $status: $(cat run.err)"
[ ! -e "$proj/reports/cov.json" ] && ! grep -q 'options from' run.err ||
	fail "--no-config read the file"
echo "ok: --no-config"

# --config FILE instead of the project's.
printf 'unit = %s\ntrace-all = yes\nfail-under-lines = 100\noutput = other.info\n' $unit \
	>"$work/other.cfg"
"$cov" --config "$work/other.cfg" -- "$loops" >run.out 2>run.err
status=$?
[ $status = 0 ] || fail "--config: exit $status: $(cat run.err)"
grep -qx "hwt-cov: options from $work/other.cfg" run.err && [ -s "$work/other.info" ] ||
	fail "--config FILE not used: $(cat run.err)"
echo "ok: --config FILE"

# Errors: FILE:LINE, exit 2, nothing run.
check_error() { # TEXT LINE SAYS
	printf '%b' "$1" >"$proj/hwt.cfg"
	rm -f ran
	"$cov" -- sh -c 'touch ran' >run.out 2>run.err
	status=$?
	[ $status = 2 ] || fail "'$1': exit $status, want 2: $(cat run.err)"
	grep -q "$proj/hwt.cfg:$2: .*$3" run.err || fail "'$1': not said at line $2: $(cat run.err)"
	[ ! -e ran ] || fail "'$1': the command ran"
}
check_error 'unit = valgrind\n# fine\nfail-under-line = 90\n' 3 "unknown key 'fail-under-line'"
check_error 'jobs = many\n' 1 "bad -j value 'many'"
check_error 'trace-all = sometimes\n' 1 'trace-all wants yes or no'
check_error '\n\ninclude */src/*\n' 3 "'=' expected"
check_error 'max-trace-size = 12X\n' 1 'max-trace-size wants a size'
check_error 'keep = k.hwt\n' 1 'command line alone'
check_error 'fail-under-lines = 120\n' 1 ''
echo "ok: errors name FILE:LINE, exit 2"
# A broken file keeps no one from --help, and --no-config from running.
"$cov" --help >/dev/null 2>&1 || fail "--help fails on a broken hwt.cfg"
"$cov" --no-config --trace-all --unit $unit -o none.info -- "$loops" >/dev/null 2>run.err ||
	fail "--no-config with a broken hwt.cfg: $(cat run.err)"
echo "ok: --help and --no-config with a broken file"
