/* Expressions that evaluate. */
#include "minicalc.h"
#include "mini_test.h"

static long eval(const char *text)
{
	long v = -999999;

	MT_CHECK(mc_eval(text, &v) == MC_OK);
	return v;
}

int main(void)
{
	MT_CHECK(eval("1") == 1);
	MT_CHECK(eval("  42 ") == 42);
	MT_CHECK(eval("1 + 2 * 3") == 7);
	MT_CHECK(eval("(1 + 2) * 3") == 9);
	MT_CHECK(eval("10 - 4 - 3") == 3);
	MT_CHECK(eval("100 / 7") == 14);
	MT_CHECK(eval("100 % 7") == 2);
	MT_CHECK(eval("-5 + 3") == -2);
	MT_CHECK(eval("--5") == 5);
	MT_CHECK(eval("2 * (3 + (4 - (5 * (6 - 7))))") == 24);
	MT_CHECK(eval("-(8 / -2)") == 4);
	for (int i = 0; i < 200; i++) {
		char buf[64];

		snprintf(buf, sizeof buf, "(%d * %d + %d) %% 97", i, i + 3, i / 2);
		MT_CHECK(eval(buf) == ((long)i * (i + 3) + i / 2) % 97);
	}
	return mt_done("test_expr_basic");
}
