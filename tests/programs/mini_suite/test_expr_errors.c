/* Expressions that must be rejected, each with the right error. */
#include "minicalc.h"
#include "mini_test.h"

static int err_of(const char *text)
{
	long v;

	return mc_eval(text, &v);
}

int main(void)
{
	MT_CHECK(err_of("") == MC_ERR_SYNTAX);
	MT_CHECK(err_of("1 +") == MC_ERR_SYNTAX);
	MT_CHECK(err_of("(1 + 2") == MC_ERR_SYNTAX);
	MT_CHECK(err_of("1 + 2)") == MC_ERR_SYNTAX);
	MT_CHECK(err_of("abc") == MC_ERR_SYNTAX);
	MT_CHECK(err_of("3 $ 4") == MC_ERR_SYNTAX);
	MT_CHECK(err_of("1 / 0") == MC_ERR_DIV_ZERO);
	MT_CHECK(err_of("5 % (2 - 2)") == MC_ERR_DIV_ZERO);
	MT_CHECK(err_of("99999999999999999999") == MC_ERR_OVERFLOW);
	MT_CHECK(err_of("9223372036854775807 + 1") == MC_ERR_OVERFLOW);
	MT_CHECK(err_of("3037000500 * 3037000500") == MC_ERR_OVERFLOW);
	MT_CHECK(strcmp(mc_strerror(MC_ERR_DIV_ZERO), "division by zero") == 0);
	MT_CHECK(strcmp(mc_strerror(MC_ERR_SYNTAX), "syntax error") == 0);
	MT_CHECK(strcmp(mc_strerror(12345), "unknown error") == 0);
	return mt_done("test_expr_errors");
}
