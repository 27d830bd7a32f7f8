#!/usr/bin/env bash
# End-to-end coverage time on real C projects' own test suites, taken as
# Debian bookworm source packages (fetched at run time, never stored in the
# repository): the native run, hwt-cov (default selection), hwt-cov
# --trace-all, and the gcov flow (full: configure and build with --coverage,
# run, lcov --capture; incremental: touch one library source, rebuild, zero
# the counters, run, capture). Also compares the library lines executed
# according to hwt-cov and to gcov. See bench/select/README.md.
#
# usage: bench/select/real_suites.sh [-n RUNS] [-b HWT_BUILD_DIR] [-k KEEP_DIR] [SUITE...]
set -euo pipefail
shopt -s inherit_errexit

prog=real_suites
here=$(cd "$(dirname "$0")" && pwd)
runs=3
hwt_build=$here/../../build
keep=
all_suites="cjson libtasn1 jansson expat"
default_suites="cjson libtasn1 jansson"

usage() {
	cat <<EOF
usage: bench/select/real_suites.sh [-n RUNS] [-b HWT_BUILD_DIR] [-k KEEP_DIR] [-s] [SUITE...]

Times each suite RUNS times (default 3) and prints the medians:
native, hwt-cov, hwt-cov --trace-all, gcov flow (full and incremental).
  -n RUNS   runs per measurement (median reported) [3]
  -b DIR    hwt build directory holding bin/hwt-cov [the repository's build/]
  -k DIR    keep logs, lcov files and the coverage differences in DIR
  -s        skip hwt-cov --trace-all (the slowest column: 100 s a run)
  -f        only fetch the suites' sources into the cache, print their
            directories and exit (scripts/setup.sh --tests fetches cJSON's:
            its copy of Unity serves lcov.per_test_function.unity)
SUITEs: $all_suites [default: $default_suites]
  cjson     CMake + ctest, 22 test binaries                     (ctest shape)
  libtasn1  autotools + libtool + gnulib, make check, 40 tests  (make shape)
  jansson   autotools, make check, shell scripts running a test
            binary per case: ~1100 processes                    (shell shape)
  expat     autotools, make check, 2 long-running test binaries (compute
            shape; slow under the software trace unit: minutes per run)
Sources are cached in \${XDG_CACHE_HOME:-\$HOME/.cache}/hwt-bench.
EOF
}

skip_all= fetch_only=
while getopts n:b:k:sfh opt; do
	case $opt in
	n) runs=$OPTARG ;;
	s) skip_all=1 ;;
	f) fetch_only=1 ;;
	b) hwt_build=$OPTARG ;;
	k) keep=$OPTARG ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
suites=${*:-$default_suites}
case $runs in '' | *[!0-9]* | 0) echo "$prog: -n wants a positive number, not '$runs'" >&2; exit 2 ;; esac
for s in $suites; do
	case " $all_suites " in *" $s "*) ;; *) echo "$prog: no suite '$s' (have: $all_suites)" >&2; exit 2 ;; esac
done

say() { echo "$prog: $*" >&2; }
set -E
trap 'echo "$prog: error: line $LINENO: command failed with status $?: $BASH_COMMAND" >&2' ERR
die() { echo "$prog: error: $*" >&2; exit 1; }

# ---------------------------------------------------------------- tools
if [ -z "$fetch_only" ]; then
	cov=$(cd "$hwt_build" 2>/dev/null && pwd)/bin/hwt-cov ||
		die "no hwt build directory '$hwt_build' (build hwt first: bash scripts/build.sh)"
	[ -x "$cov" ] || die "no $cov (build hwt first: bash scripts/build.sh)"
fi

need_tools() {
	local missing= cmd pkg
	# command:package
	for cp in curl:curl xz:xz-utils sha256sum:coreutils gpgv:gpgv dpkg-source:dpkg-dev \
		make:make gcc:gcc lcov:lcov awk:mawk realpath:coreutils "$@"; do
		cmd=${cp%%:*} pkg=${cp#*:}
		command -v "$cmd" >/dev/null 2>&1 || case " $missing " in
			*" $pkg "*) ;;
			*) missing="$missing $pkg" ;;
			esac
	done
	if [ -n "$missing" ]; then
		die "missing tools; install them with:
    apt-get install --no-install-recommends$missing"
	fi
}
extra_tools=
for s in $suites; do
	case $s in
	cjson) extra_tools="$extra_tools cmake:cmake ctest:cmake" ;;
	libtasn1) ;;
	jansson) extra_tools="$extra_tools autoreconf:autoconf automake:automake libtoolize:libtool" ;;
	expat) extra_tools="$extra_tools autoreconf:autoconf automake:automake libtoolize:libtool g++:g++" ;;
	esac
done
need_tools $extra_tools
[ -r /usr/share/keyrings/debian-archive-keyring.gpg ] ||
	die "no /usr/share/keyrings/debian-archive-keyring.gpg; install it with:
    apt-get install debian-archive-keyring"

nproc=$(nproc)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/hwt-bench
mkdir -p "$cache" || die "cannot create the cache $cache"
W=$(mktemp -d "${TMPDIR:-/tmp}/hwt-real-suites.XXXXXX")
trap 'rm -rf "$W"' EXIT
trap 'exit 130' INT TERM
if [ -n "$keep" ]; then
	mkdir -p "$keep" || die "cannot create $keep"
	keep=$(cd "$keep" && pwd)
fi

# run_logged LOG WHAT CMD...: runs CMD with its output in LOG; on failure
# says WHAT failed, shows the end of LOG and exits.
run_logged() {
	local log=$1 what=$2
	shift 2
	if ! "$@" >>"$log" 2>&1; then
		echo "$prog: error: $what failed: $*" >&2
		echo "$prog: last lines of $log:" >&2
		tail -n 25 "$log" | sed 's/^/    /' >&2
		[ -z "$keep" ] || cp "$log" "$keep/" 2>/dev/null || true
		exit 1
	fi
}

# ---------------------------------------------------------------- sources
mirror=${HWT_BENCH_MIRROR:-http://deb.debian.org/debian}
dist=bookworm

# Fetches the signed Release of bookworm (InRelease), checks its signature
# with the Debian archive keyring and the SHA256 of main/source/Sources.xz.
# Reuses the cached copy unless asked to refresh.
get_sources_index() { # [refresh]
	local idx=$cache/Sources.xz rel=$cache/InRelease sum
	if [ -s "$idx" ] && [ -s "$rel" ] && [ "${1:-}" != refresh ]; then
		return 0
	fi
	say "fetching $mirror/dists/$dist/InRelease and main/source/Sources.xz"
	curl -fsSL --retry 3 -o "$W/InRelease" "$mirror/dists/$dist/InRelease" ||
		die "cannot download $mirror/dists/$dist/InRelease"
	gpgv --keyring /usr/share/keyrings/debian-archive-keyring.gpg "$W/InRelease" >"$W/gpgv.log" 2>&1 ||
		die "$mirror/dists/$dist/InRelease: bad signature: $(cat "$W/gpgv.log")"
	sum=$(awk '/^SHA256:/ {s = 1; next} /^[^ ]/ {s = 0} s && $3 == "main/source/Sources.xz" {print $1}' "$W/InRelease")
	[ -n "$sum" ] || die "InRelease lists no main/source/Sources.xz"
	curl -fsSL --retry 3 -o "$W/Sources.xz" "$mirror/dists/$dist/main/source/Sources.xz" ||
		die "cannot download $mirror/dists/$dist/main/source/Sources.xz"
	echo "$sum  $W/Sources.xz" | sha256sum -c --quiet - >/dev/null 2>&1 ||
		die "Sources.xz does not match the SHA256 in InRelease"
	mv "$W/InRelease" "$rel"
	mv "$W/Sources.xz" "$idx"
}

# source_stanza PKG VERSION: prints "dir DIRECTORY" and "file SHA256 NAME"
# lines of that version of the source package, nothing when not listed.
source_stanza() {
	xz -dc "$cache/Sources.xz" | awk -v p="$1" -v v="$2" '
		BEGIN { RS = ""; FS = "\n" }
		{
			pkg = ver = dir = ""; sums = 0; n = 0
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^Package: /) pkg = substr($i, 10)
				else if ($i ~ /^Version: /) ver = substr($i, 10)
				else if ($i ~ /^Directory: /) dir = substr($i, 12)
				else if ($i ~ /^Checksums-Sha256:/) { sums = 1; continue }
				if (sums && $i ~ /^ /) { split($i, f, " "); file[++n] = f[1] " " f[3] }
				else if ($i !~ /^ /) sums = 0
			}
			if (pkg == p && ver == v && !found) {
				found = 1
				print "dir " dir
				for (i = 1; i <= n; i++) print "file " file[i]
			}
		}'
}

# versions_listed PKG: the versions Sources lists for PKG.
versions_listed() {
	xz -dc "$cache/Sources.xz" | awk -v p="$1" 'BEGIN { RS = ""; FS = "\n" }
		$1 == "Package: " p { for (i = 1; i <= NF; i++) if ($i ~ /^Version: /) print substr($i, 10) }'
}

# fetch_source PKG VERSION: downloads (once) the .dsc and its files, checks
# their SHA256 against Sources, unpacks with dpkg-source -x (Debian's
# patches applied) and prints the unpacked directory.
fetch_source() {
	local pkg=$1 ver=$2 stanza dir dl sum name up
	up=${ver#*:}
	local src=$cache/src/${pkg}_$up
	if [ -f "$src/.hwt-bench-unpacked" ]; then
		echo "$src"
		return 0
	fi
	get_sources_index
	stanza=$(source_stanza "$pkg" "$ver")
	if [ -z "$stanza" ]; then
		get_sources_index refresh
		stanza=$(source_stanza "$pkg" "$ver")
	fi
	[ -n "$stanza" ] || die "Debian $dist does not list $pkg $ver any more (it lists: $(versions_listed "$pkg" | tr '\n' ' '));
    update the version pinned for it in $0"
	dir=$(echo "$stanza" | sed -n 's/^dir //p')
	dl=$cache/pool/$pkg
	mkdir -p "$dl"
	echo "$stanza" | sed -n 's/^file //p' | while read -r sum name; do
		if ! [ -f "$dl/$name" ] || ! echo "$sum  $dl/$name" | sha256sum -c --quiet - >/dev/null 2>&1; then
			say "fetching $mirror/$dir/$name"
			curl -fsSL --retry 3 -o "$dl/$name.part" "$mirror/$dir/$name" ||
				die "cannot download $mirror/$dir/$name"
			echo "$sum  $dl/$name.part" | sha256sum -c --quiet - >/dev/null 2>&1 ||
				die "$mirror/$dir/$name does not match its SHA256 in Sources ($sum)"
			mv "$dl/$name.part" "$dl/$name"
		fi
	done
	name=$(echo "$stanza" | awk '$1 == "file" && $3 ~ /\.dsc$/ {print $3}')
	[ -n "$name" ] || die "$pkg $ver: no .dsc in Sources"
	rm -rf "$src" "$src.tmp"
	mkdir -p "$cache/src"
	run_logged "$W/unpack-$pkg.log" "unpacking $name" dpkg-source --no-copy -x "$dl/$name" "$src.tmp"
	mv "$src.tmp" "$src"
	echo "$src"
}

# ---------------------------------------------------------------- suites
# pinned versions (bookworm main, point releases included)
suite_package() {
	case $1 in
	cjson) echo "cjson 1.7.15-1+deb12u4" ;;
	libtasn1) echo "libtasn1-6 4.19.0-2+deb12u1" ;;
	jansson) echo "jansson 2.14-2" ;;
	expat) echo "expat 2.5.0-1+deb12u2" ;;
	esac
}
suite_shape() {
	case $1 in
	cjson) echo ctest ;; libtasn1) echo make ;; jansson) echo shell ;; expat) echo compute ;;
	esac
}

# prepare SUITE SRC: once after unpacking (bootstraps trees shipped without configure)
prepare() {
	case $1 in
	jansson) run_logged "$W/prepare-$1.log" "autoreconf of $1" sh -c "cd '$2' && autoreconf -fi" ;;
	expat) run_logged "$W/prepare-$1.log" "autoreconf of $1" sh -c "cd '$2/expat' && autoreconf -fi" ;;
	*) ;;
	esac
}

# configure SUITE SRC DIR CFLAGS (DIR does not exist)
configure() {
	local s=$1 src=$2 dir=$3 cflags=$4
	mkdir -p "$dir"
	case $s in
	cjson)
		run_logged "$dir.log" "configuring $s" cmake -S "$src" -B "$dir" -DCMAKE_BUILD_TYPE= \
			-DCMAKE_C_FLAGS="$cflags" -DENABLE_CJSON_UTILS=ON -DENABLE_CJSON_TEST=ON ;;
	libtasn1)
		# its tests would run under Valgrind's memcheck otherwise, where
		# nothing can trace them (and natively 10 times slower)
		run_logged "$dir.log" "configuring $s" sh -c "cd '$dir' && '$src/configure' \
			CFLAGS='$cflags' --disable-valgrind-tests" ;;
	jansson)
		run_logged "$dir.log" "configuring $s" sh -c "cd '$dir' && '$src/configure' CFLAGS='$cflags'" ;;
	expat)
		run_logged "$dir.log" "configuring $s" sh -c "cd '$dir' && '$src/expat/configure' \
			CFLAGS='$cflags' CXXFLAGS='$cflags'" ;;
	esac
}

# build SUITE DIR: the library, the programs and the test programs
build() {
	case $1 in
	cjson) run_logged "$2.log" "building $1" cmake --build "$2" -j"$nproc" ;;
	*)
		run_logged "$2.log" "building $1" make -C "$2" -j"$nproc"
		# check programs too, without running the tests (TESTS empty)
		run_logged "$2.log" "building the tests of $1" make -C "$2" -j"$nproc" check TESTS= ;;
	esac
}

# the suite's command, run in its build directory
suite_command() {
	case $1 in
	cjson) echo "ctest" ;;
	*) echo "make check" ;;
	esac
}

# the library source touched by the incremental gcov flow
touched_source() {
	case $1 in
	cjson) echo cJSON.c ;;
	libtasn1) echo lib/decoding.c ;;
	jansson) echo src/value.c ;;
	expat) echo expat/lib/xmlparse.c ;;
	esac
}

# the library's sources (an extended regex on paths relative to the
# source tree), for the coverage comparison
library_sources() {
	case $1 in
	cjson) echo '^cJSON(_Utils)?\.[ch]$' ;;
	libtasn1) echo '^lib/[^/]+\.[chy]$' ;;
	jansson) echo '^src/[^/]+\.[ch]$' ;;
	expat) echo '^expat/lib/[^/]+\.[ch]$' ;;
	esac
}

# ---------------------------------------------------------------- measuring
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
# median of the arguments
median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else printf "%.2f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

# timed LOG CMD...: runs CMD (output to LOG), sets T to its wall time and
# RC to its exit status
timed() {
	local log=$1 t0 t1
	shift
	t0=$(now)
	RC=0
	"$@" >>"$log" 2>&1 || RC=$?
	t1=$(now)
	T=$(elapsed "$t0" "$t1")
}

# run_suite SUITE DIR: the suite in its build directory, as a developer runs it
run_suite() {
	local cmd
	cmd=$(suite_command "$1")
	(cd "$2" && $cmd)
}

# hwt-cov on the suite: run_hwt SUITE DIR BUNDLE INFO [hwt-cov options]
run_hwt() {
	local s=$1 dir=$2 bundle=$3 info=$4 cmd
	shift 4
	cmd=$(suite_command "$s")
	rm -rf "$bundle"
	(cd "$dir" && "$cov" -q "$@" --keep "$bundle" -o "$info" -- $cmd)
}

gcov_full() { # SUITE SRC DIR INFO (DIR does not exist)
	configure "$1" "$2" "$3" "--coverage -g -O0" &&
		build "$1" "$3" &&
		{ run_suite "$1" "$3" || { echo "$prog: the suite failed under gcov" >&2; return 1; }; } &&
		lcov -q --capture --directory "$3" -o "$4"
}

gcov_incremental() { # SUITE SRC DIR INFO
	touch "$2/$(touched_source "$1")" &&
		build "$1" "$3" &&
		lcov -q --zerocounters --directory "$3" &&
		{ run_suite "$1" "$3" || { echo "$prog: the suite failed under gcov" >&2; return 1; }; } &&
		lcov -q --capture --directory "$3" -o "$4"
}

# summary_value BUNDLE KEY
summary_value() { sed -n "s/^$2=//p" "$1/summary" 2>/dev/null || true; }

# lines_hit INFO SRC REGEX: "path<TAB>line<TAB>count" of the library's lines,
# paths relative to SRC (both canonical), counts added up over records
lines_hit() {
	local info=$1 src=$2 re=$3 map=$W/pathmap
	src=$(realpath -m "$src")
	: >"$map"
	sed -n 's/^SF://p' "$info" | sort -u | while IFS= read -r p; do
		printf '%s\t%s\n' "$p" "$(realpath -m "$p")" >>"$map"
	done
	awk -F'\t' -v src="$src/" -v re="$re" '
		FILENAME == ARGV[1] { canon[$1] = $2; next }
		/^SF:/ {
			p = canon[substr($0, 4)]
			rel = (index(p, src) == 1) ? substr(p, length(src) + 1) : ""
			keep = rel != "" && rel ~ re
			next
		}
		keep && /^DA:/ {
			split(substr($0, 4), f, ",")
			c[rel "\t" f[1]] += f[2]
		}
		END { for (k in c) print k "\t" c[k] }' "$map" "$info" | sort
}

# compare SUITE SRC HWT_INFO GCOV_INFO: prints "both/hwt-only/gcov-only"
# (executed library lines) and how many of the gcov-only ones are labels
# (gcov counts a label's line, there is no code there: docs/hwt-cov.md);
# writes the differing lines, with their text, to $W/diff-SUITE
compare() {
	local s=$1 re agree labels
	re=$(library_sources "$s")
	lines_hit "$3" "$2" "$re" >"$W/hwt-lines-$s"
	lines_hit "$4" "$2" "$re" >"$W/gcov-lines-$s"
	agree=$(awk -F'\t' -v out="$W/diff-$s" '
		FILENAME == ARGV[1] { h[$1 "\t" $2] = $3; next }
		{ g[$1 "\t" $2] = $3 }
		END {
			# (k in a) first: reading a[k] would create it
			for (k in h) {
				if (h[k] <= 0) continue
				if ((k in g) && g[k] > 0) both++
				else { ho++; print "only hwt-cov\t" k "\thwt=" h[k] "\tgcov=" ((k in g) ? g[k] : "none") > out }
			}
			for (k in g) {
				if (g[k] <= 0 || ((k in h) && h[k] > 0)) continue
				go++; print "only gcov\t" k "\thwt=" ((k in h) ? h[k] : "none") "\tgcov=" g[k] > out
			}
			# lines of both reports that ran according to one only
			for (k in h)
				if ((k in g) && (h[k] > 0) != (g[k] > 0)) dis++
			printf "%d/%d/%d %d\n", both, ho, go, dis
		}' "$W/hwt-lines-$s" "$W/gcov-lines-$s")
	touch "$W/diff-$s"
	# the source line's text, and the labels among the gcov-only lines
	labels=$(sort "$W/diff-$s" | awk -F'\t' -v src="$(realpath -m "$2")/" -v out="$W/diff-$s.txt" '
		{
			f = src $2
			if (!(f in loaded)) {
				loaded[f] = 1; n = 0
				while ((getline t < f) > 0) text[f, ++n] = t
				close(f)
			}
			t = text[f, $3 + 0]
			gsub(/\t/, " ", t)
			if ($1 == "only gcov" && t ~ /^[ ]*(case[^:]*|default|[A-Za-z_][A-Za-z0-9_]*)[ ]*:[ ]*[{]?[ ]*(\/\*.*\*\/[ ]*)?$/) {
				nl++
				kind = "label"
			} else
				kind = ""
			print $0 "\t" kind "\t" t > out
		}
		END { print nl + 0 }')
	mv "$W/diff-$s.txt" "$W/diff-$s"
	echo "${agree% *} ${agree#* } $labels"
}

# ---------------------------------------------------------------- main
# bench/record/run.sh sources this file for its fetch and build steps alone
[ -z "${HWT_REAL_SUITES_STEPS_ONLY:-}" ] || return 0
if [ -n "$fetch_only" ]; then
	for s in $suites; do
		read -r pkg ver <<<"$(suite_package "$s")"
		src=$(fetch_source "$pkg" "$ver")
		touch "$src/.hwt-bench-unpacked"
		echo "$src"
	done
	exit 0
fi
results=$W/results
: >"$results"
for s in $suites; do
	read -r pkg ver <<<"$(suite_package "$s")"
	say "$s: $pkg $ver ($(suite_shape "$s") shape)"
	src=$(fetch_source "$pkg" "$ver")
	if ! [ -f "$src/.hwt-bench-prepared" ]; then
		prepare "$s" "$src"
		touch "$src/.hwt-bench-prepared"
	fi
	touch "$src/.hwt-bench-unpacked"
	d=$W/$s
	mkdir -p "$d"
	native=$d/native
	say "$s: building the native tree (-g -O0, not timed)"
	configure "$s" "$src" "$native" "-g -O0"
	build "$s" "$native"
	say "$s: a first native run (not timed)"
	run_logged "$d/native-run.log" "the native suite of $s" run_suite "$s" "$native"

	tn=() th=() ta=() tf=() ti=() notes=
	for r in $(seq 1 "$runs"); do
		build "$s" "$native" # the incremental flow touched a source
		timed "$d/native-run.log" run_suite "$s" "$native"
		[ "$RC" = 0 ] || die "$s: the suite failed natively (status $RC); last lines of its log:
$(tail -n 25 "$d/native-run.log")"
		tn+=("$T")
		say "$s: run $r/$runs: native ${T} s"

		timed "$d/hwt.log" run_hwt "$s" "$native" "$d/sel.hwt" "$d/hwt.info"
		th+=("$T")
		if [ "$RC" != 0 ]; then
			notes="$notes hwt-cov:status-$RC"
			say "$s: hwt-cov exited with status $RC (natively 0); last lines of its log:"
			tail -n 15 "$d/hwt.log" | sed 's/^/    /' >&2
		fi
		say "$s: run $r/$runs: hwt-cov ${T} s (status $RC)"

		if [ -n "$skip_all" ]; then
			ta+=(-)
		else
			timed "$d/hwt-all.log" run_hwt "$s" "$native" "$d/all.hwt" "$d/hwt-all.info" --trace-all
			ta+=("$T")
			[ "$RC" = 0 ] || notes="$notes trace-all:status-$RC"
			say "$s: run $r/$runs: hwt-cov --trace-all ${T} s (status $RC)"
			procs_all=$(summary_value "$d/all.hwt" processes)
			rm -rf "$d/all.hwt"
		fi

		rm -rf "$d/gcov"
		timed "$d/gcov-flow.log" gcov_full "$s" "$src" "$d/gcov" "$d/gcov.info"
		[ "$RC" = 0 ] || die "$s: the gcov flow failed (status $RC); last lines of its log:
$(tail -n 25 "$d/gcov-flow.log")"
		tf+=("$T")
		say "$s: run $r/$runs: gcov flow, full ${T} s"

		timed "$d/gcov-flow.log" gcov_incremental "$s" "$src" "$d/gcov" "$d/gcov-incr.info"
		[ "$RC" = 0 ] || die "$s: the incremental gcov flow failed (status $RC); last lines of its log:
$(tail -n 25 "$d/gcov-flow.log")"
		ti+=("$T")
		say "$s: run $r/$runs: gcov flow, incremental ${T} s"
	done
	procs_sel=$(summary_value "$d/sel.hwt" processes)
	if [ -s "$d/hwt.info" ] && [ -s "$d/gcov.info" ]; then
		read -r agree differ labels <<<"$(compare "$s" "$src" "$d/hwt.info" "$d/gcov.info")"
	else
		agree="no-hwt-cov-report" differ=- labels=-
		: >"$W/diff-$s"
	fi
	say "$s: executed library lines, both/only hwt-cov/only gcov: $agree ($labels of the gcov-only are labels); lines of both reports executed according to one only: $differ"
	if [ -s "$W/diff-$s" ]; then
		if [ "$differ" != 0 ] && [ "$differ" != - ]; then
			say "$s: lines of both reports executed according to one only (file, line, counts, text):"
			awk -F'\t' '$4 != "hwt=none" && $5 != "gcov=none"' "$W/diff-$s" | cut -f2- |
				head -n 20 | sed 's/^/    /' >&2
		fi
		awk -F'\t' '($4 == "hwt=none" || $5 == "gcov=none") && $6 != "label"' "$W/diff-$s" \
			>"$W/other-$s"
		if [ -s "$W/other-$s" ]; then
			say "$s: lines of one report only, labels left out (first 10; all with -k):"
			head -n 10 "$W/other-$s" | sed 's/^/    /' >&2
		fi
	fi
	if [ -n "$keep" ]; then
		mkdir -p "$keep/$s"
		cp "$d"/*.log "$d"/*.info "$W/diff-$s" "$W/hwt-lines-$s" "$W/gcov-lines-$s" "$keep/$s/" 2>/dev/null || true
		rm -rf "$keep/$s/sel.hwt"
		cp -r "$d/sel.hwt" "$keep/$s/sel.hwt"
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$s" "$(suite_shape "$s")" \
		"$(median "${tn[@]}")" "$(median "${th[@]}")" "$(median "${ta[@]}")" \
		"$(median "${tf[@]}")" "$(median "${ti[@]}")" "${procs_sel:-?}/${procs_all:-?}" \
		"$agree" "$differ" "${notes# }" >>"$results"
	rm -rf "$d"
done

echo "median wall time of $runs run(s), seconds; $(nproc) CPUs; hwt-cov from $cov"
awk -F'\t' '
	BEGIN {
		fmt = "%-9s %-6s %7s %8s %12s %10s %10s %9s %11s %19s %7s%s\n"
		printf fmt, "suite", "shape", "native", "hwt-cov", "--trace-all", "gcov-full", "gcov-incr", "hwt/gcov", "traced/all", "lines both/hwt/gcov", "differ", ""
	}
	{
		ratio = ($6 > 0) ? sprintf("%.2f", $4 / $6) : "-"
		printf fmt, $1, $2, $3, $4, $5, $6, $7, ratio, $8, $9, $10, ($11 != "" ? "  " $11 : "")
	}' "$results"
cat <<'EOF'
hwt/gcov: hwt-cov's time over the full gcov flow's (target: at most 1).
traced/all: processes traced by hwt-cov / all processes of the run (those of --trace-all).
lines: library lines executed according to both reports / hwt-cov's only / gcov's only
  (mostly lines without code of their own: labels, break, va_end; see the stderr notes);
  differ: lines of both reports that ran according to one only.
EOF
