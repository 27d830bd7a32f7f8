/* Diagnostics: the warnings a bundle collects while it is read. */
#include "bundle_int.h"

#include <stdlib.h>
#include <string.h>

static int has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s == 0x7f)
			return 1;
	return 0;
}

int hwt_bundle_diag_addv(struct hwt_bundle *bundle, enum hwt_diag_kind kind,
			 const char *path, int64_t offset, const char *fmt, va_list ap)
{
	struct hwt_bundle_diag *diag;
	char *text, *message, *copy;
	int err;

	if (!bundle || !fmt)
		return -hbe_invalid;
	if (!path)
		path = bundle->dir ? bundle->dir : "";

	if (vasprintf(&text, fmt, ap) < 0)
		return -hbe_nomem;
	if (has_control(path)) {
		/* Keep a message on one line whatever the file is called. */
		size_t size = strlen(path) * 4 + 4;
		char *shown = malloc(size);

		if (shown)
			hwt_escape(shown, size, path, strlen(path));
		message = shown ? hwt_strdup_printf("%s: %s", shown, text) : NULL;
		free(shown);
	} else {
		message = hwt_strdup_printf("%s: %s", path, text);
	}
	free(text);
	copy = strdup(path);
	err = hwt_grow((void **)&bundle->diags, &bundle->cap_diags, bundle->ndiags + 1,
		       sizeof(*bundle->diags));
	if (!message || !copy || err) {
		free(message);
		free(copy);
		return -hbe_nomem;
	}

	diag = &bundle->diags[bundle->ndiags++];
	diag->kind = kind;
	diag->path = copy;
	diag->offset = offset;
	diag->message = message;
	return 0;
}

int hwt_bundle_diag_add(struct hwt_bundle *bundle, enum hwt_diag_kind kind,
			const char *path, int64_t offset, const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = hwt_bundle_diag_addv(bundle, kind, path, offset, fmt, ap);
	va_end(ap);
	return err;
}

size_t hwt_bundle_diag_count(const struct hwt_bundle *bundle)
{
	return bundle ? bundle->ndiags : 0;
}

const struct hwt_bundle_diag *hwt_bundle_diag_at(const struct hwt_bundle *bundle, size_t i)
{
	if (!bundle || i >= bundle->ndiags)
		return NULL;
	return &bundle->diags[i];
}

size_t hwt_bundle_warning_count(const struct hwt_bundle *bundle)
{
	size_t i, n = 0;

	if (!bundle)
		return 0;
	for (i = 0; i < bundle->ndiags; i++)
		if (bundle->diags[i].kind != hwt_diag_fatal)
			n++;
	return n;
}
