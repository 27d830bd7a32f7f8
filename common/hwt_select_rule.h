/*
 * The selection rule (docs/select.md), its pure part: the glob matcher, the
 * system-directory test and the order of the decision. Libc-free: compiled
 * into hwt.ko, which applies the rule at each exec of a followed thread,
 * and into the preloaded selection library (collector/preload), which does
 * the same in user space. The callers read the facts about the file (mode,
 * ELF header, debug information); this code only weighs them.
 */
#ifndef HWT_SELECT_RULE_H
#define HWT_SELECT_RULE_H

#include "hwt_types.h"

/*
 * fnmatch(3) with flags 0 on a counted pattern, in the C locale: '*' and
 * '?' match any byte, '/' and a leading '.' included; '[...]' with '!' or
 * '^' negation, ranges, a leading ']' literal, "[:class:]" (alpha, digit,
 * alnum, upper, lower, space, blank, punct, print, graph, cntrl, xdigit),
 * one-character "[.c.]" and "[=c=]"; '\' quotes the next character, also
 * inside brackets. An unterminated '[' is an ordinary character. Patterns
 * that fnmatch reports as errors (a trailing '\', an unknown class) match
 * nothing. Bytes compare unsigned. Returns 1 on a match. Differs from
 * glibc only on malformed brackets that glibc reads its own way (an
 * unclosed "[." or "[=", a class or "[=c=]" as a range end, "[:" inside a
 * class name, an unterminated bracket ending in '-').
 */
int hwt_rule_glob(const char *pat, size_t plen, const char *str, size_t slen);

/*
 * 1 when a glob of the list matches @path (NUL-terminated): @len bytes of
 * newline-separated globs, empty lines skipped; a glob without '/' is also
 * tried on the base name.
 */
int hwt_rule_globs(const char *globs, size_t len, const char *path);

/* 1 when @path is under /usr /bin /sbin /lib /lib32 /lib64 /libx32 or /etc. */
int hwt_rule_system_dir(const char *path);

/* What the caller found out about the executable. */
struct hwt_rule_facts {
	int no_trace;		/* a --no-trace glob matches */
	int set_id;		/* set-user-ID or set-group-ID bit */
	int elf;		/* an x86-64 ELF64 file */
	int trace;		/* a --trace glob matches */
	int system_dir;		/* hwt_rule_system_dir() */
	int debug_info;		/* .debug_info or a separate debug file; -1: not read yet */
	/*
	 * Whose debug information it is, against the project's root (user space
	 * only; hwt.ko leaves it 0): 0 a compile unit's source is under the root,
	 * or no root is set; HWT_RULE_OUTSIDE (none is) or HWT_RULE_UNREADABLE
	 * (compressed, not read); -1: not read yet.
	 */
	int outside_project;
};

#define HWT_RULE_OUTSIDE	1
#define HWT_RULE_UNREADABLE	2

enum hwt_rule_verdict {
	HWT_RULE_TRACE = 1,
	HWT_RULE_NATIVE = 2,
	HWT_RULE_NEED_DEBUG_INFO = 3,	/* debug_info is -1 and decides: read it, ask again */
	HWT_RULE_NEED_PROJECT = 4,	/* outside_project is -1 and decides: read it, ask again */
};

/* Reasons of NATIVE verdicts (the text of UNTRACED records). */
#define HWT_RULE_WHY_NO_TRACE	"--no-trace"
#define HWT_RULE_WHY_SET_ID	"setuid or setgid: the trace unit cannot run it with its privileges"
#define HWT_RULE_WHY_NOT_ELF	"not an x86-64 ELF executable (a script's interpreter is judged when it runs)"
#define HWT_RULE_WHY_SYSTEM	"system binary"
#define HWT_RULE_WHY_NO_DEBUG	"no debug info"
#define HWT_RULE_WHY_OUTSIDE	"not the project's: its debug info names no source under the root"
#define HWT_RULE_WHY_UNREADABLE	"compressed debug info (not read): not known to be the project's"

/*
 * The decision, in the rule's order: --no-trace, set-ID, not ELF, --trace,
 * system directory, no debug information, debug information of no source
 * under the project's root, else traced. @reason gets the
 * text of a NATIVE verdict (static storage), NULL otherwise. Facts later in
 * the order than the deciding one are not looked at, so a caller may leave
 * debug_info and outside_project at -1 until the verdict asks for them.
 */
enum hwt_rule_verdict hwt_rule_decide(const struct hwt_rule_facts *f, const char **reason);

#endif /* HWT_SELECT_RULE_H */
