/* String utilities for libminicalc. */
#include "minicalc.h"

#include <ctype.h>
#include <string.h>

char *mc_trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	if (*s == '\0')
		return s;
	end = s + strlen(s) - 1;
	while (end > s && isspace((unsigned char)*end))
		end--;
	end[1] = '\0';
	return s;
}

void mc_reverse(char *s)
{
	size_t n = strlen(s);

	for (size_t i = 0; i < n / 2; i++) {
		char c = s[i];

		s[i] = s[n - 1 - i];
		s[n - 1 - i] = c;
	}
}

size_t mc_count_words(const char *s)
{
	size_t words = 0;
	int in_word = 0;

	for (; *s; s++) {
		if (isspace((unsigned char)*s))
			in_word = 0;
		else if (!in_word) {
			in_word = 1;
			words++;
		}
	}
	return words;
}

/* Letters and digits only, case ignored. */
int mc_is_palindrome(const char *s)
{
	const char *end = s + strlen(s);

	while (s < end) {
		if (!isalnum((unsigned char)*s)) {
			s++;
			continue;
		}
		if (!isalnum((unsigned char)end[-1])) {
			end--;
			continue;
		}
		if (tolower((unsigned char)*s) != tolower((unsigned char)end[-1]))
			return 0;
		s++;
		end--;
	}
	return 1;
}

void mc_to_upper(char *s)
{
	for (; *s; s++)
		if (*s >= 'a' && *s <= 'z')
			*s = (char)(*s - 'a' + 'A');
}
