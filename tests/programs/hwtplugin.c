/* libhwtplugin.so: loaded by dlopen_lib with dlopen(), never linked.
 * Its constructor and destructor run on each load and unload. */
#include <stdio.h>
#include <string.h>

/* Exported for dlsym(); declared here for -Wmissing-prototypes. */
int plugin_compute(int n);
int plugin_loads(void);

static int loads;	/* starts at 0 again after a real unload */
static char text[64];

__attribute__((constructor)) static void plugin_init(void)
{
	loads++;
	memset(text, 'a', sizeof text - 1);
}

__attribute__((destructor)) static void plugin_fini(void)
{
	fflush(stdout);
}

int plugin_compute(int n)
{
	int acc = 0;

	for (int i = 0; i < n; i++) {
		if (i % 5 == 0)
			acc += (int)strlen(text + (i % 32));
		else if (i & 1)
			acc ^= i * 31;
		else
			acc -= i;
	}
	return acc;
}

int plugin_loads(void)
{
	return loads;
}
