/* Statically linked, with debug info: traced, but what it starts is not followed. */
#include <stdlib.h>

int main(void)
{
	return system("exec true") == 0 ? 0 : 1;
}
