#!/bin/sh
# What selection by project costs (docs/select.md), in a temporary project
# (a git work tree) and a driver built with -g outside it:
#  1. per process: a shell loop of N runs of a -g program outside the root
#     under `hwt record`, which judges it by its debug info (read once,
#     then the verdict kept by build-id in the bundle), against the same
#     with `--no-trace` naming it (judged by the glob alone) and natively;
#  2. once per image: `hwt record -- python3 -c pass` against the same with
#     `--no-trace 'python3*'`: the first judgement of an interpreter's
#     debug info (a pyenv or conda python3 with -g has hundreds of compile
#     units; a system one is judged by its directory alone);
#  3. a suite: the driver running M test processes of the project under
#     hwt-cov, against the same with the driver excluded by --no-trace
#     (which is what the project test does for it by itself).
# Medians of RUNS.
# usage: bench/select/project_cost.sh BUILD_DIR [N] [M] [RUNS]
set -eu
build=$(cd "$1" && pwd) n=${2:-200} m=${3:-20} runs=${4:-5}
hwt=$build/bin/hwt cov=$build/bin/hwt-cov
here=$(cd "$(dirname "$0")" && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/hwt-bench-project.XXXXXX")
trap 'rm -rf "$W"' EXIT
suite=$here/../../tests/select/suite

mkdir -p "$W/tools" "$W/proj/src"
cat >"$W/tools/hello.c" <<'EOF'
int main(void) { return 0; }
EOF
cat >"$W/tools/driver.c" <<'EOF'
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	int failed = 0, st;
	for (int i = 1; i < argc; i++) {
		pid_t pid = fork();
		if (pid == 0) {
			execl("/bin/sh", "sh", "-c", argv[i], (char *)0);
			_exit(127);
		}
		failed += waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0;
	}
	return failed != 0;
}
EOF
cc -g -O0 "$W/tools/hello.c" -o "$W/tools/hello"
cc -g -O0 "$W/tools/driver.c" -o "$W/tools/driver"
cp "$suite/calc.c" "$suite/calc.h" "$suite/test_calc.c" "$W/proj/src/"
mkdir "$W/proj/.git"
cc -g -O0 -I"$W/proj/src" "$W/proj/src/calc.c" "$W/proj/src/test_calc.c" -o "$W/proj/test_calc"
cat >"$W/loop.sh" <<'LOOP'
n=$1 i=0
shift
while [ $i -lt $n ]; do "$@"; i=$((i + 1)); done
LOOP
now() { date +%s%N; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
cd "$W/proj"
# the interpreter itself, not a pyenv shim (a shell script)
py=$(pyenv which python3 2>/dev/null || command -v python3 || echo python3)
py=$(readlink -f "$py")

# time_of FILE CMD...: appends CMD's wall time in microseconds to FILE, and
# its CPU time (user + system, of it and its children) to FILE.cpu: on a
# loaded machine the wall time of short processes is mostly waiting.
time_of() {
	f=$1
	shift
	rm -rf "$W/b"
	t0=$(now)
	/usr/bin/time -f "%U %S" -o "$W/cpu" "$@" >/dev/null 2>&1
	t1=$(now)
	echo $(((t1 - t0) / 1000)) >>"$f"
	awk '{ printf "%d\n", ($1 + $2) * 1000000 }' "$W/cpu" >>"$f.cpu"
}

: >"$W/native" && : >"$W/judged" && : >"$W/glob"
: >"$W/py" && : >"$W/py-glob" && : >"$W/suite" && : >"$W/suite-glob"
for f in native judged glob py py-glob suite suite-glob; do : >"$W/$f.cpu"; done
# the suite's tests, one argument each
set --
i=0
while [ $i -lt "$m" ]; do set -- "$@" "./test_calc gcd $((i + 3))"; i=$((i + 1)); done
r=0
while [ $r -lt "$runs" ]; do
	time_of "$W/native" sh "$W/loop.sh" "$n" "$W/tools/hello"
	time_of "$W/judged" "$hwt" record -q -o "$W/b" -- sh "$W/loop.sh" "$n" "$W/tools/hello"
	time_of "$W/glob" "$hwt" record -q -o "$W/b" --no-trace hello -- sh "$W/loop.sh" "$n" "$W/tools/hello"
	time_of "$W/py" "$hwt" record -q -o "$W/b" -- "$py" -c pass
	time_of "$W/py-glob" "$hwt" record -q -o "$W/b" --no-trace 'python3*' -- "$py" -c pass
	time_of "$W/suite" "$cov" -q --keep "$W/b" -o "$W/s.info" -- "$W/tools/driver" "$@"
	time_of "$W/suite-glob" "$cov" -q --keep "$W/b" -o "$W/s.info" --no-trace driver -- \
		"$W/tools/driver" "$@"
	r=$((r + 1))
done
echo "selection by project, medians of $runs runs; $(nproc) CPUs; hwt from $build"
nat=$(median <"$W/native") jud=$(median <"$W/judged") glo=$(median <"$W/glob")
echo "1. $n runs of a -g program outside the root: natively $((nat / n)) us a process;"
echo "   under hwt record, judged by its debug info $((jud / n)) us, by --no-trace $((glo / n)) us:"
echo "   the project test costs $(((jud - glo) / n)) us a process (verdict kept by build-id)"
nat=$(median <"$W/native.cpu") jud=$(median <"$W/judged.cpu") glo=$(median <"$W/glob.cpu")
echo "   CPU time: natively $((nat / n)) us a process, judged $((jud / n)) us, --no-trace $((glo / n)) us:"
echo "   $(((jud - glo) / n)) us a process"
echo "2. hwt record -- python3 -c pass ($py): $(median <"$W/py") us, with"
echo "   --no-trace 'python3*' $(median <"$W/py-glob") us (first judgement of its debug info)"
check=$build/tests/select/project_check
if [ -x "$check" ]; then
	echo "   CPU time of one judgement, without the cache (project_check):"
	"$check" "$W/proj" "$py" time 20 | sed 's/^/     /'
	for lib in $(ldd "$py" 2>/dev/null | awk '$3 ~ /^\// && $3 !~ /^\/(usr|lib)/ { print $3 }'); do
		"$check" "$W/proj" "$(readlink -f "$lib")" time 5 | sed 's/^/     /'
	done
fi
s=$(median <"$W/suite") g=$(median <"$W/suite-glob")
echo "3. hwt-cov, the driver running $m test processes: $s us; with --no-trace driver $g us"
echo "   ($(awk -v s="$s" -v g="$g" 'BEGIN { printf "%+.1f%%", (s - g) * 100 / g }'));" \
	"CPU time $(median <"$W/suite.cpu") us and $(median <"$W/suite-glob.cpu") us"
