/* loop.c N - runs a counted loop N times; used to check the plugin's block
 * log: built -O0, each iteration is one translation block ending in one
 * conditional branch, so executed blocks and TNT bits both grow by N. */
#include <stdlib.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0;
	volatile long s = 0;
	for (long i = 0; i < n; i++)
		s += i;
	return (int)(s & 0);
}
