/* Instructions of either architecture (insn.h). */
#include "insn.h"

#include "a64_insn.h"
#include "x86_insn.h"

_Static_assert(HWT_INSN_OTHER == (int)HWT_X86_OTHER && HWT_INSN_COND == (int)HWT_X86_COND &&
	       HWT_INSN_JUMP == (int)HWT_X86_JUMP && HWT_INSN_CALL == (int)HWT_X86_CALL &&
	       HWT_INSN_JUMP_INDIRECT == (int)HWT_X86_JUMP_INDIRECT &&
	       HWT_INSN_CALL_INDIRECT == (int)HWT_X86_CALL_INDIRECT &&
	       HWT_INSN_RETURN == (int)HWT_X86_RETURN && HWT_INSN_FAR == (int)HWT_X86_FAR,
	       "insn.h's kinds are x86_insn.h's branch classes");
_Static_assert(HWT_INSN_REP == HWT_X86_REP && HWT_INSN_HAS_TARGET == HWT_X86_HAS_TARGET,
	       "insn.h's flags are x86_insn.h's");

static uint8_t a64_kind(enum hwt_a64_branch b)
{
	switch (b) {
	case HWT_A64_OTHER:
		return HWT_INSN_OTHER;
	case HWT_A64_COND:
		return HWT_INSN_COND;
	case HWT_A64_JUMP:
		return HWT_INSN_JUMP;
	case HWT_A64_CALL:
		return HWT_INSN_CALL;
	case HWT_A64_JUMP_INDIRECT:
		return HWT_INSN_JUMP_INDIRECT;
	case HWT_A64_CALL_INDIRECT:
		return HWT_INSN_CALL_INDIRECT;
	case HWT_A64_RETURN:
		return HWT_INSN_RETURN;
	case HWT_A64_EXCEPTION_RETURN:
	case HWT_A64_EXCEPTION:
		return HWT_INSN_FAR;
	}
	return HWT_INSN_OTHER;
}

int hwt_insn_decode(unsigned int machine, const uint8_t *bytes, size_t size,
		    struct hwt_insn *insn)
{
	if (machine == HWT_INSN_X86_64) {
		struct hwt_x86_insn x;
		int len = hwt_x86_insn_decode(bytes, size, &x);

		if (len < 0)
			return len == HWT_X86_ERR_TRUNCATED ? HWT_INSN_ERR_TRUNCATED : HWT_INSN_ERR_INVALID;
		insn->length = x.length;
		insn->kind = x.branch;
		insn->flags = x.flags & (HWT_INSN_REP | HWT_INSN_HAS_TARGET);
		insn->displacement = (int64_t)x.length + x.displacement;
		return len;
	}
	if (machine == HWT_INSN_AARCH64) {
		struct hwt_a64_insn a;

		if (size < HWT_A64_INSN_SIZE)
			return HWT_INSN_ERR_TRUNCATED;
		hwt_a64_insn_decode(hwt_a64_insn_word(bytes), &a);
		insn->length = HWT_A64_INSN_SIZE;
		insn->kind = a64_kind((enum hwt_a64_branch)a.branch);
		insn->flags = (a.flags & HWT_A64_HAS_TARGET) ? HWT_INSN_HAS_TARGET : 0;
		insn->displacement = a.offset;
		return HWT_A64_INSN_SIZE;
	}
	return HWT_INSN_ERR_MACHINE;
}

int hwt_insn_machine_known(unsigned int machine)
{
	return machine == HWT_INSN_X86_64 || machine == HWT_INSN_AARCH64;
}
