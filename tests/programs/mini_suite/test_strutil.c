/* String utilities. */
#include "minicalc.h"
#include "mini_test.h"

int main(void)
{
	char buf[64];

	strcpy(buf, "   padded words \t\n");
	MT_CHECK(strcmp(mc_trim(buf), "padded words") == 0);
	strcpy(buf, "    ");
	MT_CHECK(strcmp(mc_trim(buf), "") == 0);
	strcpy(buf, "x");
	MT_CHECK(strcmp(mc_trim(buf), "x") == 0);

	strcpy(buf, "abcdef");
	mc_reverse(buf);
	MT_CHECK(strcmp(buf, "fedcba") == 0);
	strcpy(buf, "abc");
	mc_reverse(buf);
	MT_CHECK(strcmp(buf, "cba") == 0);

	MT_CHECK(mc_count_words("") == 0);
	MT_CHECK(mc_count_words("one") == 1);
	MT_CHECK(mc_count_words("  two  words ") == 2);
	MT_CHECK(mc_count_words("a b\tc\nd") == 4);

	MT_CHECK(mc_is_palindrome("A man, a plan, a canal: Panama"));
	MT_CHECK(mc_is_palindrome(""));
	MT_CHECK(!mc_is_palindrome("palindrome"));

	strcpy(buf, "Mixed Case 123");
	mc_to_upper(buf);
	MT_CHECK(strcmp(buf, "MIXED CASE 123") == 0);
	return mt_done("test_strutil");
}
