/*
 * The selection rule (docs/select.md): trace an executable unless a
 * --no-trace glob matches it; trace it when a --trace glob matches; else
 * trace it when it is not a system binary and has debug information, or
 * when a shared library it will load is selected by the same rule.
 * setuid/setgid executables and files that are not ELF always run natively.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hwt_select_rule.h"
#include "needed.h"
#include "select.h"

void hwt_select_config_from_env(struct hwt_select_config *cfg)
{
	static char exe[PATH_MAX];
	const char *unit = getenv(HWT_SELECT_ENV_UNIT);
	size_t n;

	memset(cfg, 0, sizeof(*cfg));
	cfg->trace = getenv(HWT_SELECT_ENV_TRACE);
	cfg->no_trace = getenv(HWT_SELECT_ENV_NO_TRACE);
	cfg->unit_lib = getenv(HWT_SELECT_ENV_UNIT_LIB);
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

/* The rule's system directories, and the trace unit's own installation. */
static int is_system_path(const char *real)
{
	return hwt_rule_system_dir(real) || under(real, "/opt/valgrind");
}

/* A GNU build-id note among the program headers: is its debug file installed? */
static int has_build_id_debug_file(int fd, const Elf64_Ehdr *eh)
{
	for (unsigned i = 0; i < eh->e_phnum && i < 64; i++) {
		Elf64_Phdr ph;
		unsigned char notes[512];
		size_t pos = 0, len;

		if (pread(fd, &ph, sizeof(ph), (off_t)(eh->e_phoff + i * sizeof(ph))) !=
			    (ssize_t)sizeof(ph) || ph.p_type != PT_NOTE)
			continue;
		len = ph.p_filesz < sizeof(notes) ? ph.p_filesz : sizeof(notes);
		if (pread(fd, notes, len, (off_t)ph.p_offset) != (ssize_t)len)
			continue;
		while (pos + 12 <= len) {
			Elf64_Nhdr nh;
			size_t name_at = pos + 12, desc_at;

			memcpy(&nh, notes + pos, sizeof(nh));
			desc_at = name_at + ((nh.n_namesz + 3) & ~3u);
			if (desc_at + nh.n_descsz > len)
				break;
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    memcmp(notes + name_at, "GNU", 4) == 0 && nh.n_descsz >= 2 &&
			    nh.n_descsz <= 64) {
				char path[200];
				int at = snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%02x/",
						  notes[desc_at]);

				for (unsigned k = 1; k < nh.n_descsz; k++)
					at += snprintf(path + at, sizeof(path) - (size_t)at, "%02x",
						       notes[desc_at + k]);
				snprintf(path + at, sizeof(path) - (size_t)at, ".debug");
				return is_file(path);
			}
			pos = desc_at + ((nh.n_descsz + 3) & ~3u);
		}
	}
	return 0;
}

/* .gnu_debuglink names a file looked for where gdb looks. */
static int has_debuglink_file(int fd, const Elf64_Shdr *sh, const char *real)
{
	char name[256], dir[PATH_MAX], path[PATH_MAX + 300];
	size_t n = sh->sh_size < sizeof(name) - 1 ? sh->sh_size : sizeof(name) - 1;
	char *slash;

	if (pread(fd, name, n, (off_t)sh->sh_offset) != (ssize_t)n)
		return 0;
	name[n] = '\0';
	if (!name[0] || strchr(name, '/'))
		return 0;
	snprintf(dir, sizeof(dir), "%s", real);
	slash = strrchr(dir, '/');
	if (!slash)
		return 0;
	*slash = '\0';
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (strcmp(path, real) != 0 && is_file(path))
		return 1;
	snprintf(path, sizeof(path), "%s/.debug/%s", dir, name);
	if (is_file(path))
		return 1;
	snprintf(path, sizeof(path), "/usr/lib/debug%s/%s", dir, name);
	return is_file(path);
}

int hwt_select_has_debug_info(int fd, const char *real)
{
	Elf64_Ehdr eh;
	Elf64_Shdr shstr;
	char names[8192];
	size_t names_len;

	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shstrndx >= eh.e_shnum)
		return 0;
	if (pread(fd, &shstr, sizeof(shstr), (off_t)(eh.e_shoff + eh.e_shstrndx * sizeof(shstr))) !=
	    (ssize_t)sizeof(shstr))
		return 0;
	names_len = shstr.sh_size < sizeof(names) - 1 ? shstr.sh_size : sizeof(names) - 1;
	if (pread(fd, names, names_len, (off_t)shstr.sh_offset) != (ssize_t)names_len)
		return 0;
	names[names_len] = '\0';
	for (unsigned i = 0; i < eh.e_shnum && i < 1024; i++) {
		Elf64_Shdr sh;
		const char *name;

		if (pread(fd, &sh, sizeof(sh), (off_t)(eh.e_shoff + i * sizeof(sh))) !=
		    (ssize_t)sizeof(sh) || sh.sh_name >= names_len)
			continue;
		name = names + sh.sh_name;
		if (strcmp(name, ".debug_info") == 0 || strcmp(name, ".zdebug_info") == 0)
			return sh.sh_type != SHT_NOBITS;
		if (strcmp(name, ".gnu_debuglink") == 0 && has_debuglink_file(fd, &sh, real))
			return 1;
	}
	return has_build_id_debug_file(fd, &eh);
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

int hwt_select_library(const struct hwt_select_config *cfg, const char *real, int fd)
{
	int own_fd = -1, selected;

	if ((cfg->unit_lib && under(real, cfg->unit_lib)) || hwt_select_match(cfg->no_trace, real))
		return 0;
	if (hwt_select_match(cfg->trace, real))
		return 1;
	if (is_system_path(real))
		return 0;
	if (fd < 0 && (fd = own_fd = open(real, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	selected = hwt_select_has_debug_info(fd, real);
	if (own_fd >= 0)
		close(own_fd);
	return selected;
}

static int library_selected(void *cfg, const char *real, int fd)
{
	return hwt_select_library(cfg, real, fd);
}

enum hwt_select_verdict hwt_select_decide(const struct hwt_select_config *cfg, const char *path,
					  char *const envp[], char *real, const char **reason,
					  int *static_exe)
{
	struct stat st;
	Elf64_Ehdr eh;
	int fd, forced, elf;
	enum hwt_select_verdict verdict;

	*reason = NULL;
	*static_exe = 0;
	if (!realpath(path, real) || stat(real, &st) != 0 || !S_ISREG(st.st_mode))
		return HWT_SELECT_PASS; /* the exec fails by itself */
	if ((cfg->unit_lib && under(real, cfg->unit_lib)) ||
	    (cfg->unit_exe && strcmp(real, cfg->unit_exe) == 0))
		return HWT_SELECT_PASS;
	if (hwt_select_match(cfg->no_trace, real)) {
		*reason = "--no-trace";
		return HWT_SELECT_NATIVE;
	}
	forced = hwt_select_match(cfg->trace, real);
	if (st.st_mode & (S_ISUID | S_ISGID)) {
		*reason = "setuid or setgid: the trace unit cannot run it with its privileges";
		return HWT_SELECT_NATIVE;
	}
	fd = open(real, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		*reason = "not readable";
		return HWT_SELECT_NATIVE;
	}
	elf = pread(fd, &eh, sizeof(eh), 0) == (ssize_t)sizeof(eh) &&
	      memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 && eh.e_ident[EI_CLASS] == ELFCLASS64 &&
	      eh.e_machine == EM_X86_64 && eh.e_phentsize == sizeof(Elf64_Phdr);
	if (!elf) {
		*reason = "not an x86-64 ELF executable (a script's interpreter is judged when it runs)";
		verdict = HWT_SELECT_NATIVE;
	} else if (forced) {
		verdict = HWT_SELECT_TRACE;
	} else if (is_system_path(real)) {
		*reason = "system binary";
		verdict = HWT_SELECT_NATIVE;
	} else if (!hwt_select_has_debug_info(fd, real)) {
		*reason = "no debug info";
		verdict = HWT_SELECT_NATIVE;
	} else {
		verdict = HWT_SELECT_TRACE;
	}
	/* Not selected itself: a library it loads may be (the reason stays the executable's
	   when none is). */
	if (verdict == HWT_SELECT_NATIVE && elf && !cfg->executable_only &&
	    hwt_needed_find(fd, real, envp, library_selected, (void *)cfg, NULL, 0)) {
		*reason = NULL;
		verdict = HWT_SELECT_TRACE;
	}
	if (elf)
		*static_exe = is_static_elf(fd, &eh);
	close(fd);
	return verdict;
}
