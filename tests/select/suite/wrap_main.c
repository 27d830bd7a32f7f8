/* Calls libcalc.so only through libwrap.so. */
#include <stdio.h>

int wrap_gcd(int a, int b);

int main(void)
{
	int ok = wrap_gcd(12, 18) == 6;

	printf("wrap %s\n", ok ? "ok" : "FAIL");
	return !ok;
}
