/* hello.c - the smallest C program: a dynamically linked (or, built with
 * -static, a static) hello world. */
#include <stdio.h>

int main(void)
{
	printf("hello, world\n");
	return 0;
}
