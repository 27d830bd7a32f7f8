/*
 * Small things the stacks library's files share: error strings, weight
 * names, number formatting and escaping for the writers.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "stacks_int.h"

const char *hwt_stacks_errstr(int code)
{
	switch ((enum hwt_stacks_error)(code < 0 ? -code : code)) {
	case hse_ok: return "success";
	case hse_internal: return "internal error";
	case hse_invalid: return "invalid argument";
	case hse_nomem: return "out of memory";
	case hse_io: return "input/output error";
	case hse_format: return "not folded stacks";
	case hse_regex: return "bad regular expression";
	}
	return "unknown error";
}

/* "insns", "calls", "time"; or NULL. */
static const char *hwt_stacks_weight_name(enum hwt_stacks_weight weight)
{
	switch (weight) {
	case hwt_weight_insns: return "insns";
	case hwt_weight_calls: return "calls";
	case hwt_weight_time: return "time";
	case hwt_weight_count: break;
	}
	return NULL;
}

int hwt_stacks_weight_parse(const char *name)
{
	for (int w = 0; w < hwt_weight_count; w++)
		if (!strcmp(name, hwt_stacks_weight_name((enum hwt_stacks_weight)w)))
			return w;
	return -1;
}

char *hwt_stacks_u64(char out[24], uint64_t v)
{
	char *p = out + 23;

	*p = '\0';
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	memmove(out, p, (size_t)(out + 24 - p));
	return out;
}

void hwt_stacks_put_escaped(FILE *out, const char *s, int json)
{
	static const char hex[] = "0123456789abcdef";

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (json) {
			if (c == '"' || c == '\\') {
				fputc('\\', out);
				fputc(c, out);
			} else if (c < 0x20) {
				fputs("\\u00", out);
				fputc(hex[c >> 4], out);
				fputc(hex[c & 15], out);
			} else {
				fputc(c, out);
			}
		} else if (c == '<') {
			fputs("&lt;", out);
		} else if (c == '>') {
			fputs("&gt;", out);
		} else if (c == '&') {
			fputs("&amp;", out);
		} else if (c == '"') {
			fputs("&quot;", out);
		} else if (c < 0x20) {
			fputc('?', out);
		} else {
			fputc(c, out);
		}
	}
}

/*
 * libstdc++'s demangler (the Itanium C++ ABI's, with C linkage), loaded the
 * first time a name needs it: linked, libstdc++ was loaded and relocated
 * at the start of every hwt command (docs/flame.md says what it cost),
 * though only flame graphs of C++ programs demangle.
 */
typedef char *cxa_demangle_fn(const char *mangled, char *out, size_t *length, int *status);
static cxa_demangle_fn *cxa_demangle;
static pthread_once_t demangler_once = PTHREAD_ONCE_INIT;

static void demangler_load(void)
{
	/* Never closed: its strings are freed with free(). */
	void *library = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL);
	void *symbol = library ? dlsym(library, "__cxa_demangle") : NULL;

	memcpy(&cxa_demangle, &symbol, sizeof(symbol)); /* (as POSIX gives dlsym's functions) */
}

char *hwt_stacks_demangle(const char *name)
{
	/* A suffix after '@' (a PLT entry's "@plt", a version) is kept as it
	   is: mangled names have no '@', and the demangler takes none. */
	const char *at = strchr(name, '@');
	char *mangled = NULL, *d = NULL, *out;
	int status = -1;

	if (name[0] != '_' || name[1] != 'Z')
		return strdup(name);
	if (at && !(mangled = strndup(name, (size_t)(at - name))))
		return NULL;
	pthread_once(&demangler_once, demangler_load);
	if (cxa_demangle) /* else the names stay mangled */
		d = cxa_demangle(mangled ? mangled : name, NULL, NULL, &status);
	free(mangled);
	if (!d || status != 0) {
		free(d);
		return strdup(name);
	}
	if (!at)
		return d;
	if (asprintf(&out, "%s%s", d, at) < 0)
		out = NULL;
	free(d);
	return out;
}
