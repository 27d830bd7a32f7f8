/*
 * Unit test of the configuration file reader (integrations/command/
 * config_file.c): the key = value lines, comments and blanks, errors with
 * their line, the walk up to the project's hwt.cfg, and the application of
 * keys as options (values, yes/no, paths relative to the file, unknown
 * keys and keys of the command line alone).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config_file.h"
#include "unit_check.h"


static char work[PATH_MAX];

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CHECK(f && fputs(text, f) >= 0);
	if (f)
		fclose(f);
}

static void test_read(void)
{
	char path[PATH_MAX + 16];
	struct hwt_config cfg;
	const char *why = NULL;
	unsigned line = 0;

	snprintf(path, sizeof(path), "%s/a.cfg", work);
	write_text(path, "# a comment\n"
			 "\n"
			 "include = */src/*   # trailing comment\n"
			 "  exclude=*/test/*\n"
			 "output = cov#1.info\n"
			 "html =\n"
			 "trace-all = yes\r\n");
	CHECK(hwt_config_read(&cfg, path, &line, &why) == 0);
	CHECK(cfg.nentries == 5);
	if (cfg.nentries == 5) {
		CHECK(!strcmp(cfg.entries[0].key, "include") &&
		      !strcmp(cfg.entries[0].value, "*/src/*") && cfg.entries[0].line == 3);
		CHECK(!strcmp(cfg.entries[1].key, "exclude") &&
		      !strcmp(cfg.entries[1].value, "*/test/*") && cfg.entries[1].line == 4);
		/* '#' inside a word is no comment (gcovr's rule). */
		CHECK(!strcmp(cfg.entries[2].value, "cov#1.info"));
		CHECK(!strcmp(cfg.entries[3].key, "html") && !strcmp(cfg.entries[3].value, ""));
		CHECK(!strcmp(cfg.entries[4].value, "yes") && cfg.entries[4].line == 7);
	}
	CHECK(!strcmp(cfg.dir, work));
	hwt_config_fini(&cfg);

	/* Lines that are not key = value: the line named, the file not kept. */
	write_text(path, "include = a\njust words\n");
	CHECK(hwt_config_read(&cfg, path, &line, &why) == -2 && line == 2 && why && *why);
	write_text(path, "\n\n= value\n");
	CHECK(hwt_config_read(&cfg, path, &line, &why) == -2 && line == 3);
	write_text(path, "Include = a\n");
	CHECK(hwt_config_read(&cfg, path, &line, &why) == -2 && line == 1);
	write_text(path, "include:a\n");
	CHECK(hwt_config_read(&cfg, path, &line, &why) == -2 && line == 1);

	snprintf(path, sizeof(path), "%s/missing.cfg", work);
	CHECK(hwt_config_read(&cfg, path, &line, &why) == -1 && errno == ENOENT);
	CHECK(hwt_config_read(&cfg, work, &line, &why) == -1 && errno == EISDIR);
}

static void test_find(void)
{
	char old[PATH_MAX], path[PATH_MAX], dir[PATH_MAX + 32], want[PATH_MAX + 32];
	char cmd[3 * PATH_MAX];

	CHECK(getcwd(old, sizeof(old)) != NULL);
	/* work/proj/.git, work/proj/hwt.cfg, the walk from work/proj/a/b. */
	snprintf(dir, sizeof(dir), "%s/proj/a/b", work);
	CHECK(system(NULL) != 0);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s' '%s/proj/.git'", dir, work);
	CHECK(system(cmd) == 0);
	snprintf(want, sizeof(want), "%s/proj/" HWT_CONFIG_NAME, work);
	write_text(want, "unit = qemu\n");
	CHECK(chdir(dir) == 0);
	CHECK(hwt_config_find(NULL, path) == 1 && !strcmp(path, want));
	/* A nearer one wins. */
	snprintf(want, sizeof(want), "%s/proj/a/" HWT_CONFIG_NAME, work);
	write_text(want, "unit = valgrind\n");
	CHECK(hwt_config_find(NULL, path) == 1 && !strcmp(path, want));
	unlink(want);
	/* Not above the work tree's top. */
	snprintf(want, sizeof(want), "%s/proj/" HWT_CONFIG_NAME, work);
	unlink(want);
	snprintf(want, sizeof(want), "%s/" HWT_CONFIG_NAME, work);
	write_text(want, "unit = qemu\n");
	CHECK(hwt_config_find(NULL, path) == 0);
	/* --root's own. */
	snprintf(dir, sizeof(dir), "%s", work);
	CHECK(hwt_config_find(dir, path) == 1 && !strcmp(path, want));
	unlink(want);
	CHECK(chdir(old) == 0);
}

struct taken {
	int opt[8];
	const char *arg[8];
	char where[8][PATH_MAX + 64];
	int n;
	int refuse;   /* opt that take refuses */
};

static int take(int opt, const char *arg, void *context, const char *where)
{
	struct taken *t = context;

	if (t->n < 8) {
		t->opt[t->n] = opt;
		t->arg[t->n] = arg;
		snprintf(t->where[t->n], sizeof(t->where[0]), "%s", where);
		t->n++;
	}
	return opt == t->refuse ? -1 : 1;
}

static void test_apply(void)
{
	static const struct option options[] = {
		{ "include", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "trace-all", no_argument, NULL, 'T' },
		{ "keep", required_argument, NULL, 'k' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct hwt_config_key keys[] = {
		{ "include", 0 },
		{ "output", HWT_CONFIG_PATH },
		{ "trace-all", 0 },
		{ NULL, 0 },
	};
	char path[PATH_MAX + 16], want[PATH_MAX + 64], *text = NULL;
	struct hwt_config cfg;
	struct taken t;
	const char *why;
	unsigned line;
	size_t size = 0;
	FILE *err;

	snprintf(path, sizeof(path), "%s/b.cfg", work);
	write_text(path, "include = */src/*\noutput = out/cov.info\ntrace-all = no\n"
			 "output = /abs.info\ntrace-all = yes\n");
	CHECK(hwt_config_read(&cfg, path, &line, &why) == 0);
	memset(&t, 0, sizeof(t));
	err = open_memstream(&text, &size);
	CHECK(hwt_config_apply(&cfg, keys, options, take, &t, err, "cmd") == 0);
	fclose(err);
	CHECK(size == 0);
	free(text);
	CHECK(t.n == 4);  /* trace-all = no takes nothing */
	if (t.n == 4) {
		CHECK(t.opt[0] == 'i' && !strcmp(t.arg[0], "*/src/*"));
		snprintf(want, sizeof(want), "%s/out/cov.info", work);
		CHECK(t.opt[1] == 'o' && !strcmp(t.arg[1], want));   /* from the file's directory */
		CHECK(t.opt[2] == 'o' && !strcmp(t.arg[2], "/abs.info"));
		CHECK(t.opt[3] == 'T' && t.arg[3] == NULL);
		snprintf(want, sizeof(want), "cmd: %s:2", path);
		CHECK(!strcmp(t.where[1], want));
	}
	hwt_config_fini(&cfg);

	/* Errors name file:line: an unknown key, a key of the command line alone,
	   a flag that is not yes or no, a value missing, a value refused. */
	{
		static const struct {
			const char *text, *says;
			unsigned line;
		} bad[] = {
			{ "include = a\nincludes = b\n", "unknown key 'includes'", 2 },
			{ "keep = x\n", "(an option of the command line alone)", 1 },
			{ "\ntrace-all = maybe\n", "trace-all wants yes or no", 2 },
			{ "output =\n", "output wants a value", 1 },
		};

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			write_text(path, bad[i].text);
			CHECK(hwt_config_read(&cfg, path, &line, &why) == 0);
			memset(&t, 0, sizeof(t));
			text = NULL;
			err = open_memstream(&text, &size);
			CHECK(hwt_config_apply(&cfg, keys, options, take, &t, err, "cmd") == -1);
			fclose(err);
			snprintf(want, sizeof(want), "cmd: %s:%u: ", path, bad[i].line);
			CHECK(text && !strncmp(text, want, strlen(want)) && strstr(text, bad[i].says));
			if (!text || !strstr(text, bad[i].says))
				fprintf(stderr, "  said: %s", text ? text : "(nothing)\n");
			free(text);
			hwt_config_fini(&cfg);
		}
	}
	/* take refuses: apply stops there. */
	write_text(path, "include = a\noutput = b\ninclude = c\n");
	CHECK(hwt_config_read(&cfg, path, &line, &why) == 0);
	memset(&t, 0, sizeof(t));
	t.refuse = 'o';
	text = NULL;
	err = open_memstream(&text, &size);
	CHECK(hwt_config_apply(&cfg, keys, options, take, &t, err, "cmd") == -1 && t.n == 2);
	fclose(err);
	free(text);
	hwt_config_fini(&cfg);
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(work, sizeof(work), "%s/hwt-config-unit.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(work)) {
		perror("mkdtemp");
		return 1;
	}
	/* Canonical: getcwd gives that form. */
	{
		char real[PATH_MAX];

		if (realpath(work, real))
			snprintf(work, sizeof(work), "%s", real);
	}
	test_read();
	test_find();
	test_apply();
	{
		char cmd[PATH_MAX + 16];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", work);
		if (system(cmd) != 0)
			fprintf(stderr, "cannot remove %s\n", work);
	}
	return unit_exit("config_unit");
}
