/* dlopen_lib: dlopen()s libhwtplugin.so, calls it through dlsym(),
 * dlclose()s it (so it is unmapped), then loads and calls it again.
 * The plugin path is argv[1], or HWT_PLUGIN_PATH given at build time. */
#include <dlfcn.h>
#include <stdio.h>

#ifndef HWT_PLUGIN_PATH
#define HWT_PLUGIN_PATH "libhwtplugin.so"
#endif

static int run_once(const char *path, int mode, int round)
{
	void *handle = dlopen(path, mode);
	int (*compute)(int);
	int (*loads)(void);

	if (handle == NULL) {
		fprintf(stderr, "dlopen_lib: %s\n", dlerror());
		return -1;
	}
	compute = (int (*)(int))dlsym(handle, "plugin_compute");
	loads = (int (*)(void))dlsym(handle, "plugin_loads");
	if (compute == NULL || loads == NULL) {
		fprintf(stderr, "dlopen_lib: missing symbol: %s\n", dlerror());
		dlclose(handle);
		return -1;
	}
	printf("round %d: compute %d loads %d\n", round, compute(300 + round),
	       loads());
	if (dlclose(handle) != 0) {
		fprintf(stderr, "dlopen_lib: dlclose: %s\n", dlerror());
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : HWT_PLUGIN_PATH;

	if (run_once(path, RTLD_NOW, 0) != 0)
		return 1;
	if (run_once(path, RTLD_LAZY, 1) != 0)
		return 1;
	return 0;
}
