/*
 * What every producer of the control flow (hwt_flow.h) shares: the names
 * of kinds and events, and where a thread's trace is expected back after
 * it went off.
 */
#include <stdlib.h>

#include "hwt_flow.h"

const char *hwt_flow_kind_name(enum hwt_flow_kind kind)
{
	switch (kind) {
	case hwt_flow_next: return "next";
	case hwt_flow_cond_taken: return "cond-taken";
	case hwt_flow_cond_not_taken: return "cond-not-taken";
	case hwt_flow_jump: return "jump";
	case hwt_flow_call: return "call";
	case hwt_flow_return: return "return";
	case hwt_flow_indirect_jump: return "indirect-jump";
	case hwt_flow_indirect_call: return "indirect-call";
	case hwt_flow_far: return "far";
	case hwt_flow_unknown: return "unknown";
	case hwt_flow_start: return "start";
	case hwt_flow_syscall: return "syscall";
	case hwt_flow_signal: return "signal";
	case hwt_flow_sigreturn: return "sigreturn";
	case hwt_flow_enabled: return "enabled";
	case hwt_flow_kind_count: break;
	}
	return NULL;
}

const char *hwt_flow_event_name(enum hwt_flow_event_type type)
{
	switch (type) {
	case hwt_flow_ev_disabled: return "disabled";
	case hwt_flow_ev_enabled: return "enabled";
	case hwt_flow_ev_overflow: return "overflow";
	case hwt_flow_ev_error: return "error";
	case hwt_flow_ev_lost: return "lost";
	case hwt_flow_ev_space: return "space";
	case hwt_flow_ev_time: return "time";
	case hwt_flow_ev_count: break;
	}
	return NULL;
}

void hwt_flow_resume_off(struct hwt_flow_resume *r, uint64_t ip)
{
	r->expected = ip;
}

int hwt_flow_resume_on(struct hwt_flow_resume *r, uint64_t ip)
{
	uint64_t expected = r->expected;

	r->expected = 0;
	if (expected && ip == expected)
		return hwt_flow_syscall;
	/* Innermost first: a handler returns to the context it interrupted. */
	for (size_t i = r->count; i-- > 0;) {
		if (r->saved[i] == ip) {
			r->count = i;
			return hwt_flow_sigreturn;
		}
	}
	if (!expected)
		return hwt_flow_enabled;
	if (r->count == r->capacity) {
		size_t capacity = r->capacity ? 2 * r->capacity : 8;
		void *p = realloc(r->saved, capacity * sizeof(*r->saved));

		if (!p)
			return -1;
		r->saved = p;
		r->capacity = capacity;
	}
	r->saved[r->count++] = expected;
	return hwt_flow_signal;
}

void hwt_flow_resume_reset(struct hwt_flow_resume *r)
{
	r->expected = 0;
	r->count = 0;
}

void hwt_flow_resume_fini(struct hwt_flow_resume *r)
{
	free(r->saved);
	r->saved = NULL;
	r->count = r->capacity = 0;
	r->expected = 0;
}
