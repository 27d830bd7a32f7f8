#!/bin/sh
# hwt-cov's and hwt-pgo's default record-time filter to the selected images
# (docs/select.md, "Filtering to the selected images"), under one software
# unit: a suite of the test programs (calls into libc and back, a linked and
# a dlopen'ed project library, C++ exceptions through the unwinder, signals,
# threads, longjmp, fork and exec) is recorded by hwt-cov with the filter
# (the default under QEMU, --record-filter under Valgrind) and with
# --no-record-filter. Required:
#  - the filtered bundle says so (record_filter=selected) and marks libc and
#    ld.so filtered in its MMAP records; the other bundle has neither;
#  - hwt-cov says what it left out ("trace filtered at record time ...
#    libc.so.6 ... not traced");
#  - the filtered trace is smaller;
#  - hwt record still traces every image, and so does hwt-cov under the
#    Valgrind unit without --record-filter;
#  - the lcov reports are byte for byte the same, and so are the sample
#    profiles (hwt report afdo --binary, as hwt-pgo writes the trained
#    binary's) of every program and library of the suite.
# usage: run_record_filter.sh BUILD_DIR WORK_DIR UNIT
# Exits 77 (skipped) when the unit cannot run here.
set -u
build=$1 work=$2 unit=$3
hwt=$build/bin/hwt
cov=$build/bin/hwt-cov
programs=$build/tests/programs
case $unit in
qemu) command -v qemu-x86_64 >/dev/null || { echo "SKIP: qemu-x86_64 not found"; exit 77; } ;;
valgrind) command -v valgrind >/dev/null || { echo "SKIP: valgrind not found"; exit 77; } ;;
esac
. "$(dirname "$0")/../work_dir.sh"
hwt_test_work_dir "$work"
mkdir -p "$work" || exit 1

fail() {
	echo "FAIL: $*"
	exit 1
}

suite="plt_calls function_pointers_o2 cxx_exceptions signal_handler_o2 threads longjmp fork_exec_o2"
cat >"$work/suite.sh" <<EOS
#!/bin/sh
set -e
for p in $suite; do "$programs/\$p"; done
"$programs/dlopen_lib" "$programs/libhwtplugin.so"
EOS
chmod +x "$work/suite.sh"

# From the build tree: the root is the git work tree (or source directory)
# around it, whose sources the programs' debug information names.
cd "$programs" || exit 1
for run in filtered all; do
	opts=
	[ $run = all ] && opts=--no-record-filter
	# The Valgrind unit filters only when asked (its filter costs CPU).
	[ $run = filtered ] && [ "$unit" = valgrind ] && opts=--record-filter
	"$cov" --unit "$unit" $opts --keep "$work/$run" -o "$work/$run.info" -- "$work/suite.sh" \
		>"$work/$run.out" 2>"$work/$run.err" ||
		fail "hwt-cov $opts: status $? ($(tail -5 "$work/$run.err"))"
	"$hwt" dump "$work/$run" >"$work/$run.dump" 2>&1 || fail "hwt dump of the $run run"
	binaries=
	for p in $suite dlopen_lib libhwtprobe.so libhwtplugin.so loops_o2; do
		binaries="$binaries --binary $programs/$p"
	done
	"$hwt" report afdo -q $binaries -o "$work/$run.afdo" "$work/$run" \
		2>"$work/$run.afdo.err" || fail "hwt report afdo of the $run run: $(cat "$work/$run.afdo.err")"
done

grep -q '^record_filter=selected$' "$work/filtered/hwt-bundle" ||
	fail "the filtered bundle's header has no record_filter=selected"
grep -q '^record_filter=' "$work/all/hwt-bundle" &&
	fail "the --no-record-filter bundle's header has record_filter="
grep -q 'trace filtered at record time to [0-9]* images; .*libc\.so\.6.* not traced' "$work/filtered.err" ||
	fail "hwt-cov did not say what the filter left out: $(cat "$work/filtered.err")"
grep -q 'trace filtered at record time' "$work/all.err" &&
	fail "hwt-cov --no-record-filter says the trace was filtered"
grep ' mmap ' "$work/filtered.dump" | grep 'libc\.so\.6' | grep -q ' filtered ' ||
	fail "libc.so.6 is not marked filtered in the filtered bundle: $(grep MMAP "$work/filtered.dump" | head -5)"
grep ' mmap ' "$work/all.dump" | grep -q ' filtered ' &&
	fail "an image is marked filtered without the filter"
grep ' mmap ' "$work/filtered.dump" | grep 'plt_calls' | grep -q ' filtered ' &&
	fail "plt_calls (the project's) is marked filtered"

# hwt record (and hwt flame, which records as it does) traces every image.
if [ "$unit" = valgrind ]; then
	"$cov" -q --unit valgrind --keep "$work/default" -o "$work/default.info" -- "$programs/plt_calls" \
		>/dev/null 2>"$work/default.err" || fail "hwt-cov --unit valgrind: $(cat "$work/default.err")"
	grep -q '^record_filter=' "$work/default/hwt-bundle" &&
		fail "hwt-cov filtered under the valgrind unit without --record-filter"
fi
"$hwt" record -q --unit "$unit" -o "$work/record" -- "$programs/plt_calls" >/dev/null 2>"$work/record.err" ||
	fail "hwt record: $(cat "$work/record.err")"
grep -q '^record_filter=' "$work/record/hwt-bundle" && fail "hwt record filtered its trace"
"$hwt" dump "$work/record" | grep ' mmap ' | grep -q ' filtered ' &&
	fail "hwt record marked an image filtered"

cmp "$work/filtered.info" "$work/all.info" >/dev/null ||
	fail "the lcov reports differ: $(diff "$work/all.info" "$work/filtered.info" | head -10)"
[ -s "$work/filtered.afdo" ] || fail "empty sample profile"
cmp "$work/filtered.afdo" "$work/all.afdo" >/dev/null ||
	fail "the sample profiles differ: $(diff "$work/all.afdo" "$work/filtered.afdo" | head -10)"

all=$(cat "$work/all/streams/"* | wc -c)
filtered=$(cat "$work/filtered/streams/"* | wc -c)
[ "$filtered" -lt "$all" ] || fail "the filtered trace is not smaller: $filtered bytes, $all unfiltered"
echo "$unit: lcov ($(wc -l <"$work/all.info") lines) and sample profiles the same;" \
	"trace bytes $all unfiltered, $filtered filtered"
echo PASS
