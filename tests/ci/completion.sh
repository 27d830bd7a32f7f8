#!/usr/bin/env bash
# Bash completion (integrations/completion/hwt.bash) of hwt, hwt-cov and
# hwt-pgo, run in bash as completion runs it: COMP_WORDS and COMP_CWORD
# set, the function called, COMPREPLY read. Subcommands, formats and
# options come from the commands' --help, so each case checks that a name
# the command takes is offered and that one it does not take is not.
#   completion.sh COMPLETION_SCRIPT BIN_DIR
set -u
script=$1
PATH=$2:$PATH
. "$script"
failures=0
cases=0

# expect "WANT" "UNWANTED" WORD...: completing the last word offers WANT, not UNWANTED.
expect()
{
	local want=$1 unwanted=$2
	shift 2
	COMP_WORDS=("$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	case $1 in
	hwt) _hwt hwt ;;
	hwt-cov) _hwt_cov hwt-cov ;;
	hwt-pgo) _hwt_pgo hwt-pgo ;;
	esac
	cases=$((cases + 1))
	local got=" ${COMPREPLY[*]} "
	for w in $want; do
		if [[ $got != *" $w "* ]]; then
			echo "FAIL: '$*': no $w in:$got"
			failures=$((failures + 1))
		fi
	done
	for w in $unwanted; do
		if [[ $got == *" $w "* ]]; then
			echo "FAIL: '$*': $w offered:$got"
			failures=$((failures + 1))
		fi
	done
}

expect "record report merge dump help" "lcov" hwt ""
expect "report" "record" hwt rep
expect "lcov diff afdo afdo-text profile" "record" hwt report ""
expect "--base --fail-under-diff --format" "--html" hwt report diff --
expect "text markdown json" "cobertura" hwt report diff --format ""
expect "cobertura" "text" hwt report lcov --format c
expect "--html --fail-under-lines --diff --diff-output" "--base" hwt report lcov --
expect "--unit --trace-all --force" "--html" hwt record --
expect "--fail-under-lines --fail-under-functions --fail-under-branches --fail-under-diff" \
	"--base" hwt-cov --fail
expect "valgrind qemu auto" "" hwt-cov --unit ""
expect "sonarqube" "" hwt-cov -o x.xml --format so
expect "HEAD" "" hwt-cov --diff HE
expect "ls" "--html" hwt-cov -o x.info ls
expect "ls" "--html" hwt-cov -q -- ls
expect "--no-markers" "--system" hwt-cov --no-m
expect "--no-markers" "" hwt report lcov --no
expect "--train --measure --cflags" "--html" hwt-pgo --
expect "" "--train" hwt-pgo -o p -- --
echo "completion: $cases completions, $failures wrong"
[ "$failures" -eq 0 ]
