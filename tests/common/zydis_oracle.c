/* Maps Zydis' categories, branch types and attributes onto hwt's classes. */
#include "zydis_oracle.h"

#include <stdio.h>
#include <string.h>
#include <Zydis/Zydis.h>

#include "x86_insn.h"

static ZydisDecoder decoder;
static ZydisFormatter formatter;

int oracle_init(void)
{
	/*
	 * 64-bit mode with Zydis' default modes: Intel branches (66 does not
	 * shrink rel32 of near branches), MPX and CET prefixes recognised.
	 */
	if (!ZYAN_SUCCESS(ZydisDecoderInit(&decoder, ZYDIS_MACHINE_MODE_LONG_64,
					   ZYDIS_STACK_WIDTH_64)))
		return -1;
	if (!ZYAN_SUCCESS(ZydisFormatterInit(&formatter, ZYDIS_FORMATTER_STYLE_INTEL)))
		return -1;
	return 0;
}

/*
 * Control transfers that Zydis files under no branch category but that leave
 * the code stream: they enter or leave a VM, SMM, an enclave or a TD, or
 * raise #UD on purpose.
 */
static int is_far_mnemonic(ZydisMnemonic m)
{
	switch (m) {
	case ZYDIS_MNEMONIC_UD0:
	case ZYDIS_MNEMONIC_UD1:
	case ZYDIS_MNEMONIC_UD2:
	case ZYDIS_MNEMONIC_VMCALL:
	case ZYDIS_MNEMONIC_VMLAUNCH:
	case ZYDIS_MNEMONIC_VMRESUME:
	case ZYDIS_MNEMONIC_VMRUN:
	case ZYDIS_MNEMONIC_VMMCALL:
	case ZYDIS_MNEMONIC_SKINIT:
	case ZYDIS_MNEMONIC_ENCLU:
	case ZYDIS_MNEMONIC_TDCALL:
	case ZYDIS_MNEMONIC_SEAMCALL:
	case ZYDIS_MNEMONIC_SEAMRET:
	case ZYDIS_MNEMONIC_UIRET:
	case ZYDIS_MNEMONIC_RSM:
	case ZYDIS_MNEMONIC_SYSCALL:
	case ZYDIS_MNEMONIC_SYSRET:
	case ZYDIS_MNEMONIC_SYSENTER:
	case ZYDIS_MNEMONIC_SYSEXIT:
	case ZYDIS_MNEMONIC_IRET:
	case ZYDIS_MNEMONIC_IRETD:
	case ZYDIS_MNEMONIC_IRETQ:
		return 1;
	default:
		return 0;
	}
}

static int map_branch(const ZydisDecodedInstruction *in)
{
	int far = in->meta.branch_type == ZYDIS_BRANCH_TYPE_FAR;
	/* Not ZYDIS_ATTRIB_IS_RELATIVE: that is also set by RIP-relative memory. */
	int rel = in->raw.imm[0].is_relative;

	if (is_far_mnemonic(in->mnemonic))
		return HWT_X86_FAR;
	/*
	 * XBEGIN is a COND_BR to Zydis, but it only names the abort handler:
	 * the flow goes on to the next instruction, and an abort is an
	 * asynchronous event to a tracer. hwt calls it OTHER. XABORT (an
	 * UNCOND_BR to Zydis) is a NOP outside a transaction and an abort
	 * inside, and XEND (a COND_BR to Zydis) commits and goes on: OTHER too.
	 */
	if (in->mnemonic == ZYDIS_MNEMONIC_XBEGIN || in->mnemonic == ZYDIS_MNEMONIC_XABORT ||
	    in->mnemonic == ZYDIS_MNEMONIC_XEND)
		return HWT_X86_OTHER;
	switch (in->meta.category) {
	case ZYDIS_CATEGORY_COND_BR:
		return HWT_X86_COND;
	case ZYDIS_CATEGORY_UNCOND_BR:
		return far ? HWT_X86_FAR : rel ? HWT_X86_JUMP : HWT_X86_JUMP_INDIRECT;
	case ZYDIS_CATEGORY_CALL:
		return far ? HWT_X86_FAR : rel ? HWT_X86_CALL : HWT_X86_CALL_INDIRECT;
	case ZYDIS_CATEGORY_RET:
		return far ? HWT_X86_FAR : HWT_X86_RETURN;
	case ZYDIS_CATEGORY_INTERRUPT:
	case ZYDIS_CATEGORY_SYSCALL:
	case ZYDIS_CATEGORY_SYSRET:
		return HWT_X86_FAR;
	default:
		return HWT_X86_OTHER;
	}
}

/*
 * The allow-list: encodings where Zydis and the SDM part, each with the
 * reason. hwt follows the hardware; the tests count these separately.
 */
static const char *allowed(const ZydisDecodedInstruction *in)
{
	/*
	 * Knights Corner (first Xeon Phi) instructions: Zydis decodes them even
	 * with its KNC mode off, but they are #UD on every CPU that has VEX or
	 * EVEX. hwt rejects both encodings below as invalid.
	 */
	if (in->encoding == ZYDIS_INSTRUCTION_ENCODING_MVEX)
		return "MVEX (KNC): 62 with P1 bit 2 clear";
	if (in->mnemonic == ZYDIS_MNEMONIC_JKZD || in->mnemonic == ZYDIS_MNEMONIC_JKNZD)
		return "VEX.0F 84/85 (KNC JKZD/JKNZD)";
	return NULL;
}

int oracle_decode(const uint8_t *bytes, size_t size, uint64_t ip, struct oracle_insn *o)
{
	ZydisDecodedInstruction in;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	const ZyanU64 rep = ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE | ZYDIS_ATTRIB_HAS_REPNE;

	memset(o, 0, sizeof(*o));
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&decoder, bytes, size, &in, ops)))
		return -1;
	o->length = in.length;
	o->allowed = allowed(&in);
	o->branch = map_branch(&in);
	o->rep = (in.attributes & rep) != 0;
	if (o->branch != HWT_X86_OTHER && in.raw.imm[0].is_relative) {
		o->has_target = 1;
		o->displacement = in.raw.imm[0].value.s;
	}
	if (!ZYAN_SUCCESS(ZydisFormatterFormatInstruction(&formatter, &in, ops,
			in.operand_count_visible, o->text, sizeof(o->text), ip, NULL)))
		snprintf(o->text, sizeof(o->text), "?");
	return in.length;
}
