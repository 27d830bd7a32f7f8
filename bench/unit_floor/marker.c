/* marker.c - a preload library that says where it was loaded: used to see
 * whether LD_PRELOAD given to qemu-x86_64 lands in QEMU itself, in the
 * guest, or both. */
#include <stdio.h>
#include <unistd.h>

__attribute__((constructor)) static void marker(void)
{
	char exe[512];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = 0;
	dprintf(2, "marker: loaded in pid %d, /proc/self/exe=%s\n",
		(int)getpid(), exe);
}
