/* Lines of a little "calculator session": trimmed, counted, evaluated. */
#include "minicalc.h"
#include "mini_test.h"

int main(void)
{
	static const char *const session[] = {
		"  1 + 1  ", "\t(2 * 21)\n", " 7 / 0 ", "", "  6 * 7 - (2 + 3) ",
		"12 % 5", "  ( 1 ", "100 - 99 - 1",
	};
	static const int expect_err[] = { 0, 0, MC_ERR_DIV_ZERO, MC_ERR_SYNTAX, 0,
					  0, MC_ERR_SYNTAX, 0 };
	static const long expect_val[] = { 2, 42, 0, 0, 37, 2, 0, 0 };
	char line[64];
	long total = 0;

	for (int round = 0; round < 20; round++) {
		for (size_t i = 0; i < sizeof session / sizeof session[0]; i++) {
			char *text;
			long v;
			int err;

			snprintf(line, sizeof line, "%s", session[i]);
			text = mc_trim(line);
			err = mc_eval(text, &v);
			MT_CHECK(err == expect_err[i]);
			if (err == MC_OK) {
				MT_CHECK(v == expect_val[i]);
				MT_CHECK(mc_add(total, v, &total) == MC_OK);
			}
			MT_CHECK(mc_count_words(text) <= 7);
		}
	}
	MT_CHECK(total == 20 * (2 + 42 + 37 + 2));
	return mt_done("test_mixed");
}
