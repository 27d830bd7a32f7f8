/*
 * A command's configuration file (hwt.cfg, docs/hwt-cov.md): lines
 * "key = value" as gcovr.cfg has them, keys named as the command's long
 * options without "--", applied in order before the command line, which
 * therefore wins for a single value and adds to a list (as gcovr does).
 * The command says which keys it takes, one table row each.
 */
#ifndef HWT_CONFIG_FILE_H
#define HWT_CONFIG_FILE_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

/* The configuration file's name, looked for by hwt_config_find. */
#define HWT_CONFIG_NAME "hwt.cfg"

struct hwt_config_entry {
	const char *key;      /* as written: [a-z0-9-]+ */
	const char *value;    /* blanks around it and a trailing "# comment" removed; may be "" */
	unsigned line;        /* 1-based */
};

struct hwt_config {
	char *path;           /* the file, as given or found */
	char *dir;            /* its directory: relative paths of path keys are from there */
	struct hwt_config_entry *entries;
	size_t nentries;
	char *text;           /* the file's text, cut into keys and values */
	char **owned;         /* values made by hwt_config_apply (paths joined to dir) */
	size_t nowned;
};

/* A key the command takes: its long option's name, and how its value is read. */
enum hwt_config_key_flags {
	HWT_CONFIG_PATH = 1,  /* a file or directory: relative to the file's directory */
};
struct hwt_config_key {
	const char *name;
	unsigned flags;
};

/*
 * Reads path into cfg (zeroed first). Returns 0; -1 when the file cannot
 * be read (errno set); -2 on a line that is not "key = value", a comment
 * or blank: *bad_line names it and why says what is wrong.
 */
int hwt_config_read(struct hwt_config *cfg, const char *path, unsigned *bad_line,
		    const char **why);

/* Frees what cfg holds. */
void hwt_config_fini(struct hwt_config *cfg);

/*
 * The configuration file of a run in the current directory, into path
 * (PATH_MAX bytes): root's hwt.cfg when root (--root) is given and has
 * one; else the first hwt.cfg walking up from the current directory to
 * the top of its git work tree (the first directory with .git), as git
 * looks for .git; else the one in the project's root as the selection
 * finds it (collector/select/root.h: a build directory's source
 * directory). Returns 1 found, 0 none.
 */
int hwt_config_find(const char *root, char *path);

/*
 * Calls take(opt, arg, context, where) for each entry of cfg in order:
 * opt the getopt_long value of the long option keys names (arg NULL for
 * one without a value: "yes" takes it, "no" skips it), where "PATH:LINE"
 * of the entry for messages. take returns 1 (taken), or -1 (a bad value,
 * said by take, prefixed with where). Returns 0, or -1 after an unknown
 * key, a bad value or a missing one (said on err: "prefix: PATH:LINE: ...").
 */
int hwt_config_apply(struct hwt_config *cfg, const struct hwt_config_key *keys,
		     const struct option *long_options,
		     int (*take)(int opt, const char *arg, void *context, const char *where),
		     void *context, FILE *err, const char *prefix);

/*
 * The options of argv that say which file to read, before the rest is
 * parsed (after the file's keys): *file the last config_opt's value,
 * *none after no_config_opt (or -h, --version: a broken file keeps no one
 * from the help), *root root_opt's. Quiet; getopt is reset for the real
 * parse.
 */
void hwt_config_scan(int argc, char **argv, const char *short_options,
		     const struct option *long_options, int config_opt, int no_config_opt,
		     int root_opt, const char **file, int *none, const char **root);

/*
 * Reads file, else (NULL) the project's hwt.cfg (hwt_config_find), into
 * cfg; none: no file (cfg->path NULL, as when none is found). Returns 0,
 * or the exit status (2) after a message naming the file (and its line).
 */
int hwt_config_load(struct hwt_config *cfg, const char *file, int none, const char *root,
		    const char *prefix);

#endif /* HWT_CONFIG_FILE_H */
