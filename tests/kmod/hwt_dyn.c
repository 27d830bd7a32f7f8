/*
 * Dynamically linked target for the hwt.ko tests: its exec maps ld.so and
 * libc, and "dlopen" maps and unmaps a real shared library.
 *   hwt_dyn exit | dlopen | marker PATH | wait PATH
 * (wait: creates PATH once its libraries are mapped, then sleeps until killed)
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "dlopen") == 0) {
		void *h = dlopen("/lib/libhwtt.so", RTLD_NOW);
		int (*fn)(void);

		if (!h) {
			fprintf(stderr, "hwt_dyn: %s\n", dlerror());
			return 2;
		}
		fn = (int (*)(void))dlsym(h, "hwtt_value");
		if (!fn || fn() != 42)
			return 3;
		dlclose(h);
		return 0;
	}
	if (argc > 2 && strcmp(argv[1], "wait") == 0) {
		int fd = open(argv[2], O_CREAT | O_WRONLY, 0644);

		if (fd < 0)
			return 4;
		close(fd);
		for (;;)
			pause();
	}
	if (argc > 2 && strcmp(argv[1], "marker") == 0) {
		int fd = open(argv[2], O_CREAT | O_WRONLY, 0644);

		if (fd < 0)
			return 4;
		close(fd);
		return 0;
	}
	return 0;
}
