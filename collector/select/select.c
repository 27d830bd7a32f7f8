/*
 * The selection rule (docs/select.md): trace an executable unless a
 * --no-trace glob matches it; trace it when a --trace glob matches; else
 * trace it when it is not a system binary and its debug information names
 * a source under the project's root (project.c), or when a shared library
 * it will load is selected by the same rule.
 * setuid/setgid executables and files that are not ELF always run natively.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <stdint.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hwt_select_rule.h"
#include "needed.h"
#include "project.h"
#include "elf_note.h"
#include "select.h"

void hwt_select_config_init(struct hwt_select_config *cfg, const char *trace,
			    const char *no_trace, const char *unit_lib, const char *unit)
{
	static char exe[PATH_MAX];
	size_t n;

	memset(cfg, 0, sizeof(*cfg));
	cfg->trace = trace;
	cfg->no_trace = no_trace;
	cfg->unit_lib = unit_lib;
	if (unit) {
		n = strcspn(unit, "\n");
		if (n < sizeof(exe)) {
			char given[PATH_MAX];

			memcpy(given, unit, n);
			given[n] = '\0';
			if (realpath(given, exe))
				cfg->unit_exe = exe;
		}
	}
}

int hwt_select_match(const char *globs, const char *path)
{
	return globs && hwt_rule_globs(globs, strlen(globs), path);
}

static int is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

static int read_at(void *fd, uint64_t off, void *buf, size_t len)
{
	return pread(*(int *)fd, buf, len, (off_t)off) == (ssize_t)len;
}

/* A GNU build-id note among the program headers: is its debug file installed (into path)? */
static int has_build_id_debug_file(int fd, char *path)
{
	uint8_t id[64];
	uint32_t id_size = hwt_elf_file_build_id(read_at, &fd, id, sizeof(id));
	int at;

	if (id_size < 2)
		return 0;
	at = snprintf(path, 200, "/usr/lib/debug/.build-id/%02x/", id[0]);
	for (unsigned k = 1; k < id_size; k++)
		at += snprintf(path + at, 200 - (size_t)at, "%02x", id[k]);
	snprintf(path + at, 200 - (size_t)at, ".debug");
	return is_file(path);
}

/*
 * a, dir_len bytes of dir, b and name into path (PATH_MAX bytes). -1 when
 * that does not fit, which is no file: stat would refuse the name.
 */
static int join(char *path, const char *a, const char *dir, size_t dir_len, const char *b,
		const char *name)
{
	size_t al = strlen(a), bl = strlen(b), nl = strlen(name);

	if (al + dir_len + bl + nl >= PATH_MAX)
		return -1;
	memcpy(path, a, al);
	memcpy(path + al, dir, dir_len);
	memcpy(path + al + dir_len, b, bl);
	memcpy(path + al + dir_len + bl, name, nl + 1);
	return 0;
}

/* .gnu_debuglink names a file looked for where gdb looks (into path, PATH_MAX bytes). */
static int has_debuglink_file(int fd, const Elf64_Shdr *sh, const char *real, char *path)
{
	char name[256];
	size_t n = sh->sh_size < sizeof(name) - 1 ? sh->sh_size : sizeof(name) - 1, dir_len;
	const char *slash;

	if (pread(fd, name, n, (off_t)sh->sh_offset) != (ssize_t)n)
		return 0;
	name[n] = '\0';
	if (!name[0] || strchr(name, '/'))
		return 0;
	slash = strrchr(real, '/');
	if (!slash)
		return 0;
	dir_len = (size_t)(slash - real);
	if (join(path, "", real, dir_len, "/", name) == 0 && strcmp(path, real) != 0 && is_file(path))
		return 1;
	if (join(path, "", real, dir_len, "/.debug/", name) == 0 && is_file(path))
		return 1;
	return join(path, "/usr/lib/debug", real, dir_len, "/", name) == 0 && is_file(path);
}

/*
 * The section names (.shstrtab) through a window of its bytes: the names
 * that matter are short, and most tables fit the window whole.
 */
#define NAME_WINDOW 512
#define NAME_LONGEST 16 /* ".gnu_debuglink" and its NUL, and one more byte */

struct names {
	int fd;
	uint64_t off, len;   /* the table in the file: the first len bytes (< 8 KiB) count */
	char buf[NAME_WINDOW];
	uint64_t at;         /* table offset of buf[0] */
	size_t got;
};

/* 1 when the name at table offset at is want (the table ends a name, too). */
static int name_is(struct names *t, uint64_t at, const char *want)
{
	size_t n = strlen(want) + 1, have;

	/* Read again unless the window holds NAME_LONGEST bytes from at, or all up to the end. */
	if (at < t->at || at - t->at >= t->got ||
	    (at - t->at + NAME_LONGEST > t->got && t->at + t->got < t->len)) {
		/* The window as far back as it can go and still hold at: the whole table if it fits. */
		uint64_t start = t->len - at < sizeof(t->buf) ?
					 (t->len > sizeof(t->buf) ? t->len - sizeof(t->buf) : 0) : at;
		uint64_t len = t->len - start < sizeof(t->buf) ? t->len - start : sizeof(t->buf);
		ssize_t got = pread(t->fd, t->buf, len, (off_t)(t->off + start));

		t->at = start;
		t->got = got > 0 ? (size_t)got : 0;
	}
	if (at < t->at || at - t->at >= t->got)
		return 0;
	have = t->got - (size_t)(at - t->at); /* bytes of the table from at in the window */
	if (have >= n)
		return memcmp(t->buf + (at - t->at), want, n) == 0;
	/* The name runs to the end of the table (or of what was read). */
	return t->at + t->got == t->len && have == n - 1 &&
	       memcmp(t->buf + (at - t->at), want, have) == 0;
}

/*
 * Where the DWARF of the ELF file at fd is: 1 in it, 2 in the separate
 * debug file at path (PATH_MAX bytes), 0 nowhere.
 */
static int debug_where(int fd, const char *real, char *path)
{
	Elf64_Ehdr eh;
	Elf64_Shdr shstr;
	struct names names = { .fd = fd };
	char last;

	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shstrndx >= eh.e_shnum)
		return 0;
	if (pread(fd, &shstr, sizeof(shstr), (off_t)(eh.e_shoff + eh.e_shstrndx * sizeof(shstr))) !=
	    (ssize_t)sizeof(shstr))
		return 0;
	/* The first 8 KiB - 1 bytes of the table count; all of them must be there. */
	names.off = shstr.sh_offset;
	names.len = shstr.sh_size < 8191 ? shstr.sh_size : 8191;
	if (names.len > 0 && pread(fd, &last, 1, (off_t)(names.off + names.len - 1)) != 1)
		return 0;
	for (unsigned i = 0; i < eh.e_shnum && i < 1024; i += 8) {
		Elf64_Shdr sh[8];
		ssize_t got = pread(fd, sh, sizeof(sh), (off_t)(eh.e_shoff + i * sizeof(sh[0])));
		unsigned k = got > 0 ? (unsigned)((size_t)got / sizeof(sh[0])) : 0;

		if (k > eh.e_shnum - i)
			k = eh.e_shnum - i;
		if (k > 1024 - i)
			k = 1024 - i;
		for (unsigned j = 0; j < k; j++) {
			if (sh[j].sh_name >= names.len)
				continue;
			if (name_is(&names, sh[j].sh_name, ".debug_info") ||
			    name_is(&names, sh[j].sh_name, ".zdebug_info"))
				return sh[j].sh_type != SHT_NOBITS;
			if (name_is(&names, sh[j].sh_name, ".gnu_debuglink") &&
			    has_debuglink_file(fd, &sh[j], real, path))
				return 2;
		}
		if (k < 8)
			break; /* the rest is not in the file (or the table ends) */
	}
	return has_build_id_debug_file(fd, path) ? 2 : 0;
}

int hwt_select_has_debug_info(int fd, const char *real)
{
	char path[PATH_MAX];

	return debug_where(fd, real, path) != 0;
}

int hwt_select_project(const struct hwt_select_config *cfg, int fd, const char *real)
{
	char path[PATH_MAX];
	int where, kept, debug_fd;
	enum hwt_project_verdict v = HWT_PROJECT_OUTSIDE;

	if (!cfg->root)
		return hwt_select_has_debug_info(fd, real) ? HWT_PROJECT_IN : HWT_PROJECT_NO_DEBUG;
	kept = hwt_select_project_cached(cfg->cache_dir, fd);
	if (kept >= 0)
		return kept;
	where = debug_where(fd, real, path);
	if (where == 0) {
		v = HWT_PROJECT_NO_DEBUG;
	} else if (where == 1) {
		v = hwt_select_project_file(fd, cfg->root);
	} else if ((debug_fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		v = hwt_select_project_file(debug_fd, cfg->root);
		close(debug_fd);
	}
	hwt_select_project_keep(cfg->cache_dir, fd, v);
	return v;
}

/* The facts debug_info and outside_project from the project test. */
static void project_facts(const struct hwt_select_config *cfg, int fd, const char *real,
			  struct hwt_rule_facts *facts)
{
	int v = hwt_select_project(cfg, fd, real);

	facts->debug_info = v != HWT_PROJECT_NO_DEBUG;
	facts->outside_project = v == HWT_PROJECT_OUTSIDE     ? HWT_RULE_OUTSIDE :
				 v == HWT_PROJECT_UNREADABLE ? HWT_RULE_UNREADABLE : 0;
}

static int is_static_elf(int fd, const Elf64_Ehdr *eh)
{
	for (unsigned i = 0; i < eh->e_phnum && i < 64; i++) {
		Elf64_Phdr ph;

		if (pread(fd, &ph, sizeof(ph), (off_t)(eh->e_phoff + i * sizeof(ph))) !=
		    (ssize_t)sizeof(ph))
			return 0;
		if (ph.p_type == PT_INTERP)
			return 0;
	}
	return 1;
}

/*
 * A library is weighed like an executable that is ELF and has no set-ID bit
 * (ld.so maps it whatever its mode): --no-trace, --trace, system
 * directory, debug information.
 */
int hwt_select_library(const struct hwt_select_config *cfg, const char *real, int fd)
{
	struct hwt_rule_facts facts = { .elf = 1, .debug_info = -1, .outside_project = -1 };
	enum hwt_rule_verdict v;
	const char *why;
	int own_fd = -1;

	if (cfg->unit_lib && under(real, cfg->unit_lib))
		return 0;
	facts.no_trace = hwt_select_match(cfg->no_trace, real);
	facts.trace = hwt_select_match(cfg->trace, real);
	facts.system_dir = hwt_rule_system_dir(real);
	v = hwt_rule_decide(&facts, &why);
	if (v == HWT_RULE_NEED_DEBUG_INFO) {
		if (fd < 0 && (fd = own_fd = open(real, O_RDONLY | O_CLOEXEC)) < 0)
			return 0;
		project_facts(cfg, fd, real, &facts);
		if (own_fd >= 0)
			close(own_fd);
		v = hwt_rule_decide(&facts, &why);
	}
	return v == HWT_RULE_TRACE;
}

static int library_selected(void *cfg, const char *real, int fd)
{
	return hwt_select_library(cfg, real, fd);
}

/* 1 when fd starts with an x86-64 ELF64 header (into eh). */
/*
 * A tool of another Valgrind (memcheck-amd64-linux, ...), as a suite that runs
 * its tests under memcheck starts it: the program it runs is loaded by the
 * tool, not exec'ed, so it is never judged, and one Valgrind cannot run
 * inside another. Not silent: its own reason.
 */
static int is_valgrind_tool(const char *real)
{
	const char *base = strrchr(real, '/');
	size_t n = base ? strlen(base) : 0;

	return base && base - real >= 9 && memcmp(base - 9, "/valgrind", 9) == 0 &&
	       n > 6 && strcmp(base + n - 6, "-linux") == 0;
}

/* 1 when fd starts with the ELF64 header (into eh) of an x86-64 or aarch64 executable. */
static int read_elf_header(int fd, Elf64_Ehdr *eh)
{
	if (pread(fd, eh, sizeof(*eh), 0) != (ssize_t)sizeof(*eh))
		return 0;
	if (hwt_elf_header_is_x86_64(eh))
		return 1;
	return memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 && eh->e_ident[EI_CLASS] == ELFCLASS64 &&
	       eh->e_ident[EI_DATA] == ELFDATA2LSB && eh->e_machine == EM_AARCH64;
}

/*
 * The facts about the file go to the rule (hwt_rule_decide, as in hwt.ko);
 * this adds what only the preloaded library has: the trace unit's own
 * files pass, a file it cannot read runs natively, and a program the rule
 * does not select for itself may be for a library it loads.
 */
enum hwt_select_verdict hwt_select_decide(const struct hwt_select_config *cfg, const char *path,
					  char *const envp[], char *real, const char **reason,
					  int *static_exe)
{
	unsigned machine;
	enum hwt_select_verdict v =
		hwt_select_decide_machine(cfg, path, envp, real, reason, static_exe, &machine);

	/* Callers of this one run programs natively: an aarch64 one is not ELF to them. */
	if (machine == EM_AARCH64 && v == HWT_SELECT_TRACE) {
		*reason = HWT_RULE_WHY_NOT_ELF;
		*static_exe = 0;
		return HWT_SELECT_NATIVE;
	}
	return v;
}

enum hwt_select_verdict hwt_select_decide_machine(const struct hwt_select_config *cfg,
						  const char *path, char *const envp[], char *real,
						  const char **reason, int *static_exe,
						  unsigned *machine)
{
	struct hwt_rule_facts facts = { .debug_info = -1, .outside_project = -1 }, with_library;
	enum hwt_rule_verdict v;
	struct stat st;
	Elf64_Ehdr eh;
	const char *why;
	int fd;

	*reason = NULL;
	*static_exe = 0;
	*machine = 0;
	if (!realpath(path, real) || stat(real, &st) != 0 || !S_ISREG(st.st_mode))
		return HWT_SELECT_PASS; /* the exec fails by itself */
	if ((cfg->unit_lib && under(real, cfg->unit_lib)) ||
	    (cfg->unit_exe && strcmp(real, cfg->unit_exe) == 0))
		return HWT_SELECT_PASS;
	facts.no_trace = hwt_select_match(cfg->no_trace, real);
	facts.set_id = (st.st_mode & (S_ISUID | S_ISGID)) != 0;
	facts.trace = hwt_select_match(cfg->trace, real);
	facts.system_dir = hwt_rule_system_dir(real);
	fd = open(real, O_RDONLY | O_CLOEXEC);
	facts.elf = fd >= 0 && read_elf_header(fd, &eh);
	if (facts.elf)
		*machine = eh.e_machine;
	v = hwt_rule_decide(&facts, reason);
	if (fd < 0) {
		/* Judged as a file that is not ELF, under its own reason. */
		if (*reason && strcmp(*reason, HWT_RULE_WHY_NOT_ELF) == 0)
			*reason = "not readable";
		return HWT_SELECT_NATIVE;
	}
	if (v == HWT_RULE_NEED_DEBUG_INFO) {
		project_facts(cfg, fd, real, &facts);
		v = hwt_rule_decide(&facts, reason);
	}
	/*
	 * Not selected itself: a library it loads may be, in the place of its own
	 * debug information (which the rule would then take, out of a system
	 * directory). The reason stays the executable's when no library is.
	 */
	with_library = facts;
	with_library.system_dir = 0;
	with_library.debug_info = 1;
	with_library.outside_project = 0;
	if (v == HWT_RULE_NATIVE && !cfg->executable_only && *machine != EM_AARCH64 &&
	    hwt_rule_decide(&with_library, &why) == HWT_RULE_TRACE &&
	    hwt_needed_find(fd, real, envp, library_selected, (void *)cfg, NULL, 0)) {
		*reason = NULL;
		v = HWT_RULE_TRACE;
	}
	if (v == HWT_RULE_TRACE)
		*static_exe = is_static_elf(fd, &eh);
	else if (is_valgrind_tool(real))
		*reason = HWT_SELECT_WHY_VALGRIND_TOOL;
	close(fd);
	return v == HWT_RULE_TRACE ? HWT_SELECT_TRACE : HWT_SELECT_NATIVE;
}
