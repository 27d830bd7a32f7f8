/* longjmp: setjmp()/longjmp() out of nested calls of varying depth, so that
 * many frames are left without returning. */
#include <setjmp.h>
#include <stdio.h>

static jmp_buf env;
static volatile long work;
static volatile int jump_value;

static int descend(int depth, int jump_at)
{
	work += depth;
	if (depth == jump_at) {
		jump_value = depth + 1;
		longjmp(env, 1);
	}
	if (depth == 0)
		return 0;
	return descend(depth - 1, jump_at) + 1;
}

int main(void)
{
	volatile int jumps = 0, returns = 0, value_sum = 0;

	for (volatile int round = 0; round < 40; round++) {
		if (setjmp(env) == 0) {
			/* every fourth round returns normally (jump_at is -1) */
			int jump_at = round % 4 == 3 ? -1 : round % 9;

			descend(10 + round % 5, jump_at);
			returns++;
		} else {
			jumps++;
			value_sum += jump_value;
		}
	}
	printf("jumps %d returns %d values %d work %ld\n", jumps, returns,
	       value_sum, work);
	return jumps == 30 && returns == 10 ? 0 : 1;
}
