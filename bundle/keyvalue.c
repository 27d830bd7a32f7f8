/* key=value lists: the text format of hwt-bundle and summary. */
#include "bundle_int.h"

#include <stdlib.h>
#include <string.h>

int hwt_kv_add(struct hwt_kv_list *list, const char *key, size_t key_len,
	       const char *value, size_t value_len)
{
	struct hwt_kv *kv;

	if (hwt_grow((void **)&list->items, &list->cap, list->count + 1, sizeof(*list->items)))
		return -hbe_nomem;
	kv = &list->items[list->count];
	kv->key = strndup(key, key_len);
	kv->value = strndup(value, value_len);
	if (!kv->key || !kv->value) {
		free(kv->key);
		free(kv->value);
		return -hbe_nomem;
	}
	list->count++;
	return 0;
}

/* The last occurrence wins, as when a file is read top to bottom. */
const char *hwt_kv_get(const struct hwt_kv_list *list, const char *key)
{
	size_t i;

	if (!key)
		return NULL;
	for (i = list->count; i-- > 0;)
		if (!strcmp(list->items[i].key, key))
			return list->items[i].value;
	return NULL;
}

void hwt_kv_clear(struct hwt_kv_list *list)
{
	size_t i;

	for (i = 0; i < list->count; i++) {
		free(list->items[i].key);
		free(list->items[i].value);
	}
	free(list->items);
	list->items = NULL;
	list->count = 0;
	list->cap = 0;
}

int hwt_kv_parse(struct hwt_bundle *bundle, struct hwt_kv_list *list, const char *path,
		 const char *text, size_t len, unsigned first_line)
{
	const char *p = text, *end = text + len;
	unsigned line = first_line;
	int err;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *stop = eol ? eol : end;
		const char *eq = memchr(p, '=', (size_t)(stop - p));
		size_t n = (size_t)(stop - p);

		if (n && p[n - 1] == '\r')
			n--;
		if (n == 0) {
			/* blank line */
		} else if (!eq || eq == p || memchr(p, '\0', n)) {
			char shown[64];

			hwt_escape(shown, sizeof(shown), p, n);
			err = hwt_bundle_diag_add(bundle, hwt_diag_header, path, -1,
						  "line %u is not key=value, ignored: \"%s\"",
						  line, shown);
			if (err)
				return err;
		} else {
			err = hwt_kv_add(list, p, (size_t)(eq - p), eq + 1,
					 n - (size_t)(eq + 1 - p));
			if (err)
				return err;
		}
		line++;
		p = eol ? eol + 1 : end;
	}
	return 0;
}
