/* A command's configuration file: see config_file.h. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config_file.h"
#include "grow.h"
#include "hwt_command.h"
#include "root.h"

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static int is_key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

/* Cuts a trailing "# comment" (a '#' after a blank: not one inside a word) and blanks. */
static void cut_comment(char *value)
{
	char *end;

	for (char *p = value; *p; p++)
		if (*p == '#' && (p == value || is_blank(p[-1]))) {
			*p = '\0';
			break;
		}
	end = value + strlen(value);
	while (end > value && is_blank(end[-1]))
		*--end = '\0';
}

/* One line (no newline): 0 blank or a comment, 1 an entry (*key, *value), -1 not one (*why). */
static int parse_line(char *line, char **key, char **value, const char **why)
{
	char *p = line, *k;

	while (is_blank(*p))
		p++;
	if (!*p || *p == '#')
		return 0;
	k = p;
	while (is_key_char(*p))
		p++;
	if (p == k) {
		*why = "a key (a long option without \"--\") must start the line";
		return -1;
	}
	if (*p && !is_blank(*p) && *p != '=') {
		*why = "a key is letters, digits and '-'";
		return -1;
	}
	*key = k;
	while (is_blank(*p)) {
		*p = '\0';
		p++;
	}
	if (*p != '=') {
		*why = "'=' expected after the key (key = value)";
		return -1;
	}
	*p++ = '\0';
	while (is_blank(*p))
		p++;
	cut_comment(p);
	*value = p;
	return 1;
}

void hwt_config_fini(struct hwt_config *cfg)
{
	for (size_t i = 0; i < cfg->nowned; i++)
		free(cfg->owned[i]);
	free(cfg->owned);
	free(cfg->entries);
	free(cfg->text);
	free(cfg->path);
	free(cfg->dir);
	memset(cfg, 0, sizeof(*cfg));
}

static int read_text(const char *path, char **text)
{
	FILE *f = fopen(path, "re");
	size_t size = 0, len = 0, n;
	char *buf = NULL, *bigger;
	int err;

	if (!f)
		return -1;
	do {
		bigger = hwt_grow_array(buf, &size, len + 4096 + 1, 1);
		if (!bigger) {
			free(buf);
			fclose(f);
			errno = ENOMEM;
			return -1;
		}
		buf = bigger;
		n = fread(buf + len, 1, size - len - 1, f);
		len += n;
	} while (n > 0);
	err = ferror(f) ? (errno ? errno : EIO) : 0;
	fclose(f);
	if (err) {
		free(buf);
		errno = err;
		return -1;
	}
	if (memchr(buf, '\0', len)) {
		free(buf);
		errno = EINVAL;  /* not text */
		return -1;
	}
	buf[len] = '\0';
	*text = buf;
	return 0;
}

int hwt_config_read(struct hwt_config *cfg, const char *path, unsigned *bad_line,
		    const char **why)
{
	char *line, *next, *key, *value, *slash;
	size_t lines = 1;
	unsigned number = 0;
	struct stat st;

	memset(cfg, 0, sizeof(*cfg));
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		return -1;
	}
	if (read_text(path, &cfg->text) < 0)
		return -1;
	for (const char *p = cfg->text; *p; p++)
		lines += *p == '\n';
	cfg->path = strdup(path);
	slash = cfg->path ? strrchr(cfg->path, '/') : NULL;
	cfg->dir = slash ? strndup(cfg->path, (size_t)(slash - cfg->path) + (slash == cfg->path))
			 : strdup(".");
	cfg->entries = calloc(lines, sizeof(*cfg->entries));
	if (!cfg->path || !cfg->dir || !cfg->entries) {
		hwt_config_fini(cfg);
		errno = ENOMEM;
		return -1;
	}
	for (line = cfg->text; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		number++;
		switch (parse_line(line, &key, &value, why)) {
		case 0:
			break;
		case 1:
			cfg->entries[cfg->nentries++] = (struct hwt_config_entry){ key, value, number };
			break;
		default:
			*bad_line = number;
			hwt_config_fini(cfg);
			return -2;
		}
	}
	return 0;
}

static int is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* dir/hwt.cfg into path when it is a file. */
static int config_in(const char *dir, char *path)
{
	if (snprintf(path, PATH_MAX, "%s%s" HWT_CONFIG_NAME, dir,
		     dir[strlen(dir) - 1] == '/' ? "" : "/") >= PATH_MAX)
		return 0;
	return is_file(path);
}

int hwt_config_find(const char *root, char *path)
{
	char dir[PATH_MAX], git[PATH_MAX + 8], *slash;
	enum hwt_root_source from;
	struct stat st;

	if (root && config_in(root, path))
		return 1;
	if (getcwd(dir, sizeof(dir))) {
		for (;;) {
			if (config_in(dir, path))
				return 1;
			/* The top of the work tree: a file above it is not the project's. */
			snprintf(git, sizeof(git), "%s/.git", strcmp(dir, "/") ? dir : "");
			if (stat(git, &st) == 0)
				break;
			slash = strrchr(dir, '/');
			if (!slash || slash == dir)
				break;
			*slash = '\0';
		}
	}
	/* A build directory outside its source tree: the source's root. */
	if (!root && hwt_select_root_find(NULL, dir, &from) == 0 && config_in(dir, path))
		return 1;
	return 0;
}

static const struct option *long_option(const struct option *options, const char *name)
{
	for (; options->name; options++)
		if (!strcmp(options->name, name))
			return options;
	return NULL;
}

static const struct hwt_config_key *config_key(const struct hwt_config_key *keys,
					       const char *name)
{
	for (; keys->name; keys++)
		if (!strcmp(keys->name, name))
			return keys;
	return NULL;
}

/* "yes"/"no" of a key without a value: 1, 0, or -1 when neither. */
static int yes_no(const char *value)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!strcasecmp(value, yes[i]))
			return 1;
		if (!strcasecmp(value, no[i]))
			return 0;
	}
	return -1;
}

/* value joined to cfg's directory when it is relative; NULL when out of memory. */
static const char *from_dir(struct hwt_config *cfg, const char *value)
{
	char **owned, *joined;

	if (value[0] == '/' || !strcmp(value, "-") || !strcmp(cfg->dir, "."))
		return value;
	owned = realloc(cfg->owned, (cfg->nowned + 1) * sizeof(*owned));
	if (!owned)
		return NULL;
	cfg->owned = owned;
	if (asprintf(&joined, "%s/%s", cfg->dir, value) < 0)
		return NULL;
	return cfg->owned[cfg->nowned++] = joined;
}

int hwt_config_apply(struct hwt_config *cfg, const struct hwt_config_key *keys,
		     const struct option *long_options,
		     int (*take)(int opt, const char *arg, void *context, const char *where),
		     void *context, FILE *err, const char *prefix)
{
	for (size_t i = 0; i < cfg->nentries; i++) {
		const struct hwt_config_entry *e = &cfg->entries[i];
		const struct hwt_config_key *key = config_key(keys, e->key);
		const struct option *opt = key ? long_option(long_options, e->key) : NULL;
		const char *arg = e->value;
		char *where = NULL;
		int rc = -1;

		if (asprintf(&where, "%s: %s:%u", prefix, cfg->path, e->line) < 0) {
			fprintf(err, "%s: out of memory\n", prefix);
			return -1;
		}
		if (!opt) {
			fprintf(err, "%s: unknown key '%s'%s\n", where, e->key,
				long_option(long_options, e->key)
					? " (an option of the command line alone)"
					: "");
		} else if (opt->has_arg == no_argument) {
			int on = yes_no(arg);

			if (on < 0)
				fprintf(err, "%s: %s wants yes or no, not '%s'\n", where, e->key, arg);
			else
				rc = on ? take(opt->val, NULL, context, where) : 1;
		} else if (!*arg) {
			fprintf(err, "%s: %s wants a value\n", where, e->key);
		} else {
			if (key->flags & HWT_CONFIG_PATH)
				arg = from_dir(cfg, arg);
			if (!arg)
				fprintf(err, "%s: out of memory\n", where);
			else
				rc = take(opt->val, arg, context, where);
		}
		free(where);
		if (rc < 0)
			return -1;
	}
	return 0;
}

void hwt_config_scan(int argc, char **argv, const char *short_options,
		     const struct option *long_options, int config_opt, int no_config_opt,
		     int root_opt, const char **file, int *none, const char **root)
{
	int opt;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, short_options, long_options, NULL)) != -1) {
		if (opt == 'h' || opt == HWT_OPT_VERSION || opt == no_config_opt)
			*none = 1; /* a broken file keeps no one from the help */
		else if (opt == config_opt)
			*file = optarg;
		else if (opt == root_opt)
			*root = optarg;
	}
	optind = 0; /* the real parse starts again */
}

int hwt_config_load(struct hwt_config *cfg, const char *file, int none, const char *root,
		    const char *prefix)
{
	char found[PATH_MAX];
	const char *why = "";
	unsigned line = 0;
	int rc;

	memset(cfg, 0, sizeof(*cfg));
	if (none)
		return 0;
	if (!file) {
		if (!hwt_config_find(root, found))
			return 0;
		file = found;
	}
	rc = hwt_config_read(cfg, file, &line, &why);
	if (rc == -2) {
		fprintf(stderr, "%s: %s:%u: %s\n", prefix, file, line, why);
		return HWT_EXIT_USAGE;
	}
	if (rc < 0) {
		fprintf(stderr, "%s: cannot read the configuration file %s: %s\n", prefix, file,
			strerror(errno));
		return HWT_EXIT_USAGE;
	}
	return 0;
}
