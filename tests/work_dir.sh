# Sourced by the tests' shell scripts (POSIX sh): a test's work paths,
# removed when the test starts and again when it passes, so that a whole
# ctest run does not keep gigabytes of traces, bundles and folded stacks
# (several tests write hundreds of megabytes each). A failing or skipped
# test keeps them for a look; HWT_TEST_KEEP=1 keeps every test's.
#
#   . "$(dirname "$0")/../work_dir.sh"
#   hwt_test_work_dir "$work" ["$work.*" ...]
# The paths are files or folders the test writes (it makes them itself);
# a pattern, quoted, stands for the files a test writes beside its folder.
# The script's EXIT trap is taken.

hwt_test_work_dir() {
	_hwt_test_work=
	for _hwt_path in "$@"; do
		case $_hwt_path in
		/*) ;;
		*) _hwt_path=$PWD/$_hwt_path ;;
		esac
		_hwt_test_work="$_hwt_test_work$_hwt_path
"
	done
	_hwt_test_work_remove
	trap '_hwt_test_work_exit $?' EXIT
}

_hwt_test_work_exit() {
	[ "$1" -eq 0 ] && [ -z "${HWT_TEST_KEEP:-}" ] || return 0
	# Out of the folders first: several tests run in theirs.
	cd / && _hwt_test_work_remove
}

# One path or pattern per line, expanded here and nowhere else.
_hwt_test_work_remove() {
	_hwt_ifs=$IFS
	IFS='
'
	# shellcheck disable=SC2086
	rm -rf $_hwt_test_work
	IFS=$_hwt_ifs
}
