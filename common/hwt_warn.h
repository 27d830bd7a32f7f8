/*
 * The one way a library hands warnings to its caller: a function and its
 * context, called once per warning with a complete message (no newline,
 * no "warning:" prefix: the caller's command adds its own). The library
 * goes on after a warning; what it could not do is in the message. A sink
 * whose fn is NULL drops warnings.
 *
 * The bundle's diagnostics are not warnings of this kind: they are data
 * read from (and written to) the bundle, which every reader lists.
 * Libc-free.
 */
#ifndef HWT_WARN_H
#define HWT_WARN_H

struct hwt_warn_sink {
	void (*fn)(void *context, const char *message);
	void *context;
};

/* Hands message to sink (which may be NULL). */
static inline void hwt_warn_say(const struct hwt_warn_sink *sink, const char *message)
{
	if (sink && sink->fn)
		sink->fn(sink->context, message);
}

#endif /* HWT_WARN_H */
