/*
 * cov_stack_protector: built with -fstack-protector-strong (the default of
 * some distributions' gcc, and cJSON's own flags). gcc gives the canary's
 * load a row of its own on the opening brace, and its check one on the
 * closing brace; gcov counts neither line.
 */
#include <stdio.h>
#include <string.h>

static int copy_len(const char *s)
{
	char buf[32];

	strncpy(buf, s, sizeof(buf) - 1);
	buf[sizeof(buf) - 1] = 0;
	return (int)strlen(buf);
}

static void show(const char *s, int n)
{
	char line[64];

	if (n > 3)
		snprintf(line, sizeof(line), "%s: long (%d)", s, n);
	else
		snprintf(line, sizeof(line), "%s: short", s);
	puts(line);
}

static int plain(int x)
{
	return x + 1;
}

int main(int argc, char **argv)
{
	const char *words[3] = { "ab", "hello", "stack" };
	int i, total = 0;

	(void)argv;
	for (i = 0; i < 3; i++) {
		int n = copy_len(words[i]);

		show(words[i], n);
		total += plain(n);
	}
	return total == argc + 14 ? 0 : 1;
}
