# Bash completion for hwt, hwt-cov and hwt-pgo. Subcommands, report
# formats and options are read from the commands' own --help, so they
# stay what the installed hwt takes. Installed as
# share/bash-completion/completions/{hwt,hwt-cov,hwt-pgo}; or source it.

# The options (-x, --name) a --help text lists in its option column.
_hwt_options()
{
	"$@" --help 2>/dev/null | sed -nE 's/^ +(-)/\1/p' | sed -E 's/  .*//' |
		grep -oE -- '(^|, )--?[A-Za-z][A-Za-z0-9-]*' | sed -E 's/^, //'
}

# The names a --help lists under its "commands:" or "formats:" heading.
_hwt_names()
{
	"$@" --help 2>/dev/null | sed -nE '/^(commands|formats):/,/^$/s/^  ([a-z][a-z0-9-]*) .*/\1/p'
}

# Values of an option's argument; 1 when the option takes none known here.
_hwt_value()
{
	local cmd=$1 prev=$2 cur=$3
	case $prev in
	-o|--output|--html|--keep|--root|--diff-output|--work|--profile|--binary|--llvm-profdata|--llvm-bolt)
		COMPREPLY=($(compgen -f -- "$cur")) ;;
	--unit)
		COMPREPLY=($(compgen -W "valgrind qemu auto" -- "$cur")) ;;
	--format)
		case $cmd in
		diff) COMPREPLY=($(compgen -W "text markdown json" -- "$cur")) ;;
		afdo) COMPREPLY=($(compgen -W "text extbinary binary" -- "$cur")) ;;
		*) COMPREPLY=($(compgen -W "lcov cobertura sonarqube json" -- "$cur")) ;;
		esac ;;
	--diff|--base)
		COMPREPLY=($(compgen -W "HEAD $(git for-each-ref --format='%(refname:short)' 2>/dev/null)" -- "$cur")) ;;
	--cc)
		COMPREPLY=($(compgen -c -- "$cur")) ;;
	-j|--jobs|--test-name|--trace|--no-trace|--filter|--train|--cflags|--measure|--runs|--psb-period|--pid|--fail-under-*|--include|--exclude)
		COMPREPLY=() ;;
	*)
		return 1 ;;
	esac
	return 0
}

# After COMMAND (the first word that is not an option or an option's value):
# the command's name, then files.
_hwt_command_words()
{
	local first=$1 cur=$2
	if [ "$first" -eq "$COMP_CWORD" ]; then
		COMPREPLY=($(compgen -c -- "$cur"))
	else
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}

# Index of the first word from $1 on that is neither an option nor an option's value.
_hwt_first_operand()
{
	local i=$1 w
	while [ "$i" -lt "$COMP_CWORD" ]; do
		w=${COMP_WORDS[i]}
		case $w in
		--bolt|--sample) ;; # hwt-pgo's options without a value
		--) echo $((i + 1)); return ;;
		--*=*|--help|--quiet|--verbose|--system|--no-markers|--per-test|--trace-all|--no-preload|--no-record-filter|--record-filter|--force|--progress|--stats|--sideband-only|--packets|--debug-blocks|-q|-v|-f|-h) ;;
		-*) i=$((i + 1)) ;; # an option with a value
		*) echo "$i"; return ;;
		esac
		i=$((i + 1))
	done
	echo "$i"
}

_hwt_cov()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} first
	COMPREPLY=()
	first=$(_hwt_first_operand 1)
	if [ "$COMP_CWORD" -ge "$first" ] && [ "$first" -lt "$COMP_CWORD" -o "${cur#-}" = "$cur" ]; then
		_hwt_command_words "$first" "$cur"
		return
	fi
	_hwt_value cov "$prev" "$cur" && return
	COMPREPLY=($(compgen -W "$(_hwt_options "$1")" -- "$cur"))
}

_hwt_pgo()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} i
	COMPREPLY=()
	for ((i = 1; i < COMP_CWORD; i++)); do
		if [ "${COMP_WORDS[i]}" = "--" ]; then
			COMPREPLY=($(compgen -f -- "$cur"))
			return
		fi
	done
	_hwt_value pgo "$prev" "$cur" && return
	COMPREPLY=($(compgen -W "$(_hwt_options "$1")" -- "$cur"))
}

_hwt()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} hwt=$1 sub first
	COMPREPLY=()
	if [ "$COMP_CWORD" -eq 1 ]; then
		COMPREPLY=($(compgen -W "$(_hwt_names "$hwt") help --help --version" -- "$cur"))
		return
	fi
	sub=${COMP_WORDS[1]}
	case $sub in
	help)
		[ "$COMP_CWORD" -eq 2 ] && COMPREPLY=($(compgen -W "$(_hwt_names "$hwt")" -- "$cur"))
		return ;;
	report)
		if [ "$COMP_CWORD" -eq 2 ]; then
			COMPREPLY=($(compgen -W "$(_hwt_names "$hwt" report) --help" -- "$cur"))
			return
		fi
		_hwt_value "${COMP_WORDS[2]}" "$prev" "$cur" && return
		if [ "${cur#-}" != "$cur" ]; then
			COMPREPLY=($(compgen -W "$(_hwt_options "$hwt" report "${COMP_WORDS[2]}")" -- "$cur"))
		else
			COMPREPLY=($(compgen -f -- "$cur"))
		fi
		return ;;
	record)
		first=$(_hwt_first_operand 2)
		if [ "$COMP_CWORD" -ge "$first" ] && [ "$first" -lt "$COMP_CWORD" -o "${cur#-}" = "$cur" ]; then
			_hwt_command_words "$first" "$cur"
			return
		fi ;;
	esac
	_hwt_value "$sub" "$prev" "$cur" && return
	if [ "${cur#-}" != "$cur" ]; then
		COMPREPLY=($(compgen -W "$(_hwt_options "$hwt" "$sub")" -- "$cur"))
	else
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}

complete -F _hwt hwt
complete -F _hwt_cov hwt-cov
complete -F _hwt_pgo hwt-pgo
