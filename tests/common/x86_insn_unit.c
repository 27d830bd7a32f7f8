/*
 * Hand-picked encodings with the length and class the SDM gives them: every
 * branch class, every prefix kind, the 64-bit immediate rules, truncation
 * and opcodes that are invalid in 64-bit mode.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "x86_insn.h"

#define T	HWT_X86_HAS_TARGET
#define R	HWT_X86_REP
#define TRUNC	HWT_X86_ERR_TRUNCATED
#define INVAL	HWT_X86_ERR_INVALID

struct ucase {
	const char *what;
	unsigned int n;
	uint8_t b[20];
	int ret;		/* length, or HWT_X86_ERR_* */
	int branch;
	unsigned int flags;
	int64_t disp;
};

#define C(what, ret, branch, flags, disp, ...) \
	{ what, sizeof((uint8_t[]){ __VA_ARGS__ }), { __VA_ARGS__ }, ret, branch, flags, disp }

enum { O = HWT_X86_OTHER, J = HWT_X86_COND, JMP = HWT_X86_JUMP, CALL = HWT_X86_CALL,
       JI = HWT_X86_JUMP_INDIRECT, CI = HWT_X86_CALL_INDIRECT, RET = HWT_X86_RETURN,
       FAR = HWT_X86_FAR };

static const struct ucase cases[] = {
	/* Direct branches and their displacements. */
	C("jz rel8", 2, J, T, -2, 0x74, 0xfe),
	C("jnz rel8 forward", 2, J, T, 0x10, 0x75, 0x10),
	C("jg rel32", 6, J, T, 0x12345678, 0x0f, 0x8f, 0x78, 0x56, 0x34, 0x12),
	C("jb rel32 backward", 6, J, T, -0x100, 0x0f, 0x82, 0x00, 0xff, 0xff, 0xff),
	C("jrcxz", 2, J, T, 5, 0xe3, 0x05),
	C("jecxz (67)", 3, J, T, 5, 0x67, 0xe3, 0x05),
	C("loop", 2, J, T, -3, 0xe2, 0xfd),
	C("loope", 2, J, T, 1, 0xe1, 0x01),
	C("loopne", 2, J, T, 1, 0xe0, 0x01),
	C("jmp rel8", 2, JMP, T, -128, 0xeb, 0x80),
	C("jmp rel32", 5, JMP, T, 0x7fffffff, 0xe9, 0xff, 0xff, 0xff, 0x7f),
	C("call rel32", 5, CALL, T, -5, 0xe8, 0xfb, 0xff, 0xff, 0xff),
	/* Intel ignores 66 on near branches in 64-bit mode: rel32 stays. */
	C("66 call rel32", 6, CALL, T, 0x10, 0x66, 0xe8, 0x10, 0x00, 0x00, 0x00),
	C("66 jmp rel32", 6, JMP, T, 0x10, 0x66, 0xe9, 0x10, 0x00, 0x00, 0x00),
	C("66 jz rel32", 7, J, T, 0x10, 0x66, 0x0f, 0x84, 0x10, 0x00, 0x00, 0x00),
	C("bnd jmp rel32", 6, JMP, T, 0, 0xf2, 0xe9, 0, 0, 0, 0),
	C("bnd call rel32", 6, CALL, T, 0, 0xf2, 0xe8, 0, 0, 0, 0),
	C("bnd jz rel8", 3, J, T, 2, 0xf2, 0x74, 0x02),
	C("branch-hint jz (3e)", 3, J, T, 2, 0x3e, 0x74, 0x02),

	/* Indirect branches. */
	C("call *%rax", 2, CI, 0, 0, 0xff, 0xd0),
	C("call *(%rax)", 2, CI, 0, 0, 0xff, 0x10),
	C("call *disp32(%rip)", 6, CI, 0, 0, 0xff, 0x15, 1, 2, 3, 4),
	C("call *%r11", 3, CI, 0, 0, 0x41, 0xff, 0xd3),
	C("jmp *%rax", 2, JI, 0, 0, 0xff, 0xe0),
	C("jmp *(%rax,%rbx,8)", 3, JI, 0, 0, 0xff, 0x24, 0xd8),
	C("jmp *disp32(,%rcx,8)", 7, JI, 0, 0, 0xff, 0x24, 0xcd, 1, 2, 3, 4),
	C("jmp *disp8(%rsp)", 4, JI, 0, 0, 0xff, 0x64, 0x24, 0x08),
	C("notrack jmp *%rax", 3, JI, 0, 0, 0x3e, 0xff, 0xe0),
	C("notrack call *(%rdx)", 3, CI, 0, 0, 0x3e, 0xff, 0x12),
	C("bnd jmp *%rax", 3, JI, 0, 0, 0xf2, 0xff, 0xe0),
	C("66 rex.w call *%rax", 4, CI, 0, 0, 0x66, 0x48, 0xff, 0xd0),

	/* Returns. */
	C("ret", 1, RET, 0, 0, 0xc3),
	C("ret imm16", 3, RET, 0, 0, 0xc2, 0x08, 0x00),
	C("rep ret", 2, RET, 0, 0, 0xf3, 0xc3),
	C("bnd ret", 2, RET, 0, 0, 0xf2, 0xc3),
	C("66 ret imm16", 4, RET, 0, 0, 0x66, 0xc2, 0x08, 0x00),

	/* Far transfers. */
	C("lret", 1, FAR, 0, 0, 0xcb),
	C("lret imm16", 3, FAR, 0, 0, 0xca, 0x08, 0x00),
	C("rex.w lret", 2, FAR, 0, 0, 0x48, 0xcb),
	C("iretq", 2, FAR, 0, 0, 0x48, 0xcf),
	C("iret", 1, FAR, 0, 0, 0xcf),
	C("int3", 1, FAR, 0, 0, 0xcc),
	C("int 0x80", 2, FAR, 0, 0, 0xcd, 0x80),
	C("int1", 1, FAR, 0, 0, 0xf1),
	C("ljmp *(%rax)", 2, FAR, 0, 0, 0xff, 0x28),
	C("lcall *(%rax)", 2, FAR, 0, 0, 0xff, 0x18),
	C("rex.w ljmp *disp8(%rax)", 4, FAR, 0, 0, 0x48, 0xff, 0x68, 0x10),
	C("syscall", 2, FAR, 0, 0, 0x0f, 0x05),
	C("sysret", 3, FAR, 0, 0, 0x48, 0x0f, 0x07),
	C("sysenter", 2, FAR, 0, 0, 0x0f, 0x34),
	C("sysexit", 2, FAR, 0, 0, 0x0f, 0x35),
	C("ud2", 2, FAR, 0, 0, 0x0f, 0x0b),
	C("ud1 %eax, %eax", 3, FAR, 0, 0, 0x0f, 0xb9, 0xc0),
	C("ud1 disp8(%rax)", 4, FAR, 0, 0, 0x0f, 0xb9, 0x48, 0x10),
	C("ud0 (with ModRM, as Intel)", 3, FAR, 0, 0, 0x0f, 0xff, 0xc0),
	C("vmcall", 3, FAR, 0, 0, 0x0f, 0x01, 0xc1),
	C("vmlaunch", 3, FAR, 0, 0, 0x0f, 0x01, 0xc2),
	C("vmresume", 3, FAR, 0, 0, 0x0f, 0x01, 0xc3),
	C("vmrun", 3, FAR, 0, 0, 0x0f, 0x01, 0xd8),
	C("vmmcall", 3, FAR, 0, 0, 0x0f, 0x01, 0xd9),
	C("vmgexit", 4, FAR, 0, 0, 0xf3, 0x0f, 0x01, 0xd9),
	C("skinit", 3, FAR, 0, 0, 0x0f, 0x01, 0xde),
	C("enclu", 3, FAR, 0, 0, 0x0f, 0x01, 0xd7),
	C("tdcall", 4, FAR, 0, 0, 0x66, 0x0f, 0x01, 0xcc),
	C("seamcall", 4, FAR, 0, 0, 0x66, 0x0f, 0x01, 0xcf),
	C("uiret", 4, FAR, 0, 0, 0xf3, 0x0f, 0x01, 0xec),
	C("rsm", 2, FAR, 0, 0, 0x0f, 0xaa),
	C("encls is not far", 3, O, 0, 0, 0x0f, 0x01, 0xcf),
	C("vmxoff is not far", 3, O, 0, 0, 0x0f, 0x01, 0xc4),
	C("sgdt (mem form of 0f 01 /0)", 7, O, 0, 0, 0x0f, 0x01, 0x05, 1, 2, 3, 4),

	/* Transactions are not branches. */
	C("xbegin rel32", 6, O, 0, 0, 0xc7, 0xf8, 0, 0, 0, 0),
	C("66 xbegin rel16", 5, O, 0, 0, 0x66, 0xc7, 0xf8, 0, 0),
	C("xabort", 3, O, 0, 0, 0xc6, 0xf8, 0x01),
	C("xend", 3, O, 0, 0, 0x0f, 0x01, 0xd5),

	/* String instructions. */
	C("movsb", 1, O, 0, 0, 0xa4),
	C("rep movsb", 2, O, R, 0, 0xf3, 0xa4),
	C("rep movsq", 3, O, R, 0, 0xf3, 0x48, 0xa5),
	C("rep stosb", 2, O, R, 0, 0xf3, 0xaa),
	C("repne scasb", 2, O, R, 0, 0xf2, 0xae),
	C("repe cmpsb", 2, O, R, 0, 0xf3, 0xa6),
	C("rep lodsq", 3, O, R, 0, 0xf3, 0x48, 0xad),
	C("rep insb", 2, O, R, 0, 0xf3, 0x6c),
	C("rep outsl", 2, O, R, 0, 0xf3, 0x6f),
	C("F2 movs repeats too", 2, O, R, 0, 0xf2, 0xa4),
	C("67 rep movsb", 3, O, R, 0, 0x67, 0xf3, 0xa4),
	C("rep xstore (PadLock)", 4, O, R, 0, 0xf3, 0x0f, 0xa7, 0xc0),
	C("pause is not a string", 2, O, 0, 0, 0xf3, 0x90),

	/* Immediates and operand sizes. */
	C("movabs imm64", 10, O, 0, 0, 0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8),
	C("movabs imm64 r15", 10, O, 0, 0, 0x49, 0xbf, 1, 2, 3, 4, 5, 6, 7, 8),
	C("mov imm32", 5, O, 0, 0, 0xb8, 1, 2, 3, 4),
	C("mov imm16", 4, O, 0, 0, 0x66, 0xb8, 1, 2),
	C("rex.w wins over 66: imm64", 11, O, 0, 0, 0x66, 0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8),
	C("rex before 66 is ignored: imm16", 5, O, 0, 0, 0x48, 0x66, 0xb8, 1, 2),
	C("mov imm8", 2, O, 0, 0, 0xb4, 1),
	C("moffs load al, 8-byte address", 9, O, 0, 0, 0xa0, 1, 2, 3, 4, 5, 6, 7, 8),
	C("moffs store rax", 10, O, 0, 0, 0x48, 0xa3, 1, 2, 3, 4, 5, 6, 7, 8),
	C("67 moffs: 4-byte address", 6, O, 0, 0, 0x67, 0xa1, 1, 2, 3, 4),
	C("66 moffs: still 8-byte address", 10, O, 0, 0, 0x66, 0xa1, 1, 2, 3, 4, 5, 6, 7, 8),
	C("test r/m8, imm8 (f6 /0)", 3, O, 0, 0, 0xf6, 0x00, 0x01),
	C("test r/m8, imm8 (f6 /1 alias)", 3, O, 0, 0, 0xf6, 0x08, 0x01),
	C("not r/m8 (f6 /2): no imm", 2, O, 0, 0, 0xf6, 0x10),
	C("test r/m32, imm32 (f7 /0)", 7, O, 0, 0, 0xf7, 0x40, 0x08, 1, 2, 3, 4),
	C("test r/m16, imm16", 5, O, 0, 0, 0x66, 0xf7, 0x00, 1, 2),
	C("test r/m64, imm32", 7, O, 0, 0, 0x48, 0xf7, 0x00, 1, 2, 3, 4),
	C("idiv (f7 /7): no imm", 2, O, 0, 0, 0xf7, 0x38),
	C("enter imm16, imm8", 4, O, 0, 0, 0xc8, 0x10, 0x00, 0x01),
	C("push imm32", 5, O, 0, 0, 0x68, 1, 2, 3, 4),
	C("push imm16", 4, O, 0, 0, 0x66, 0x68, 1, 2),
	C("push imm8", 2, O, 0, 0, 0x6a, 1),
	C("imul r, r/m, imm32", 6, O, 0, 0, 0x69, 0xc0, 1, 2, 3, 4),
	C("imul r, r/m, imm8", 3, O, 0, 0, 0x6b, 0xc0, 1),
	C("add r/m16, imm16", 5, O, 0, 0, 0x66, 0x81, 0xc0, 1, 2),
	C("add rax, imm32", 6, O, 0, 0, 0x48, 0x05, 1, 2, 3, 4),
	C("add ax, imm16", 4, O, 0, 0, 0x66, 0x05, 1, 2),
	C("mov r/m64, imm32 rip-relative", 11, O, 0, 0, 0x48, 0xc7, 0x05, 1, 2, 3, 4, 5, 6, 7, 8),
	C("mov r/m16, imm16 rip-relative", 9, O, 0, 0, 0x66, 0xc7, 0x05, 1, 2, 3, 4, 5, 6),
	C("shl r/m, imm8", 3, O, 0, 0, 0xc1, 0xe0, 3),
	C("in al, imm8", 2, O, 0, 0, 0xe4, 0x60),

	/* ModRM, SIB and displacements. */
	C("mov (%rax), %eax", 2, O, 0, 0, 0x8b, 0x00),
	C("mov disp32(%rip)", 6, O, 0, 0, 0x8b, 0x05, 1, 2, 3, 4),
	C("mov (%rsp): SIB", 3, O, 0, 0, 0x8b, 0x04, 0x24),
	C("mov disp32(,%rbx,4): SIB no base", 7, O, 0, 0, 0x8b, 0x04, 0x9d, 1, 2, 3, 4),
	C("mov disp8(%rbp)", 3, O, 0, 0, 0x8b, 0x45, 0x08),
	C("mov disp8(%r13) (rex.b, base 101 with mod 01)", 4, O, 0, 0, 0x41, 0x8b, 0x45, 0x00),
	C("mov (%r12) needs SIB", 4, O, 0, 0, 0x41, 0x8b, 0x04, 0x24),
	C("mov disp8(%rsp,%rcx,2)", 4, O, 0, 0, 0x8b, 0x44, 0x4c, 0x08),
	C("mov disp32(%rax)", 6, O, 0, 0, 0x8b, 0x80, 1, 2, 3, 4),
	C("mov disp32(%rax,%rbx)", 7, O, 0, 0, 0x8b, 0x84, 0x18, 1, 2, 3, 4),
	C("mov reg, reg", 2, O, 0, 0, 0x89, 0xc0),
	C("67 lea (%eax,%ebx,2): same layout", 4, O, 0, 0, 0x67, 0x8d, 0x0c, 0x58),
	C("67 mov disp32: no 16-bit addressing", 7, O, 0, 0, 0x67, 0x8b, 0x05, 1, 2, 3, 4),
	C("mov %cr0: mod ignored, no disp", 3, O, 0, 0, 0x0f, 0x20, 0x00),
	C("mov %cr: mod 01 without disp8", 3, O, 0, 0, 0x0f, 0x22, 0x45),
	C("mov %dr: mod 10 without SIB, disp32", 3, O, 0, 0, 0x0f, 0x21, 0x84),

	/* Prefixes. */
	C("lock add", 4, O, 0, 0, 0xf0, 0x83, 0x00, 0x01),
	C("fs mov", 9, O, 0, 0, 0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0, 0, 0),
	C("gs", 3, O, 0, 0, 0x65, 0x8b, 0x00),
	C("every segment prefix", 6, O, 0, 0, 0x26, 0x2e, 0x36, 0x3e, 0x64, 0x90),
	C("redundant 66", 11, O, 0, 0, 0x66, 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0, 0, 0, 0),
	C("15 bytes: 66 x6 nopw", 15, O, 0, 0, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x2e, 0x0f,
	  0x1f, 0x84, 0x00, 0, 0, 0, 0),
	C("16 bytes is invalid", INVAL, O, 0, 0, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x2e,
	  0x0f, 0x1f, 0x84, 0x00, 0, 0, 0, 0),
	C("15 prefixes is invalid", INVAL, O, 0, 0, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66,
	  0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x90),
	C("two REX, last counts", 3, O, 0, 0, 0x40, 0x41, 0x90),
	C("REX.W alone on nop", 2, O, 0, 0, 0x48, 0x90),
	C("last of F2/F3 is mandatory: popcnt", 5, O, 0, 0, 0xf2, 0xf3, 0x0f, 0xb8, 0xc0),
	C("F3 then F2: 0f b8 invalid", INVAL, O, 0, 0, 0xf3, 0xf2, 0x0f, 0xb8, 0xc0),
	C("plain 0f b8 (jmpe) invalid", INVAL, O, 0, 0, 0x0f, 0xb8, 0xc0),
	C("endbr64", 4, O, 0, 0, 0xf3, 0x0f, 0x1e, 0xfa),

	/* Legacy escape maps. */
	C("0f 38 pshufb", 5, O, 0, 0, 0x66, 0x0f, 0x38, 0x00, 0xc1),
	C("0f 38 crc32 mem disp8", 6, O, 0, 0, 0xf2, 0x0f, 0x38, 0xf1, 0x40, 0x08),
	C("0f 3a palignr imm8", 6, O, 0, 0, 0x66, 0x0f, 0x3a, 0x0f, 0xc1, 3),
	C("0f 3a with disp32", 10, O, 0, 0, 0x66, 0x0f, 0x3a, 0x0e, 0x05, 1, 2, 3, 4, 0xf0),
	C("pshufd imm8", 5, O, 0, 0, 0x66, 0x0f, 0x70, 0xc1, 0x1b),
	C("psrlw imm8 (group 12)", 4, O, 0, 0, 0x0f, 0x71, 0xd0, 3),
	C("bt imm8 (group 8)", 4, O, 0, 0, 0x0f, 0xba, 0xe0, 3),
	C("shld imm8", 4, O, 0, 0, 0x0f, 0xa4, 0xc3, 3),
	C("cmpps imm8", 4, O, 0, 0, 0x0f, 0xc2, 0xc1, 1),
	C("extrq imm8, imm8 (66 0f 78)", 6, O, 0, 0, 0x66, 0x0f, 0x78, 0xc0, 4, 8),
	C("insertq imm8, imm8 (f2 0f 78)", 6, O, 0, 0, 0xf2, 0x0f, 0x78, 0xc1, 4, 8),
	C("vmread (0f 78, no imm)", 3, O, 0, 0, 0x0f, 0x78, 0xc3),
	C("extrq xmm (66 0f 79)", 4, O, 0, 0, 0x66, 0x0f, 0x79, 0xc1),
	C("3dnow pfadd", 4, O, 0, 0, 0x0f, 0x0f, 0xc1, 0x9e),
	C("3dnow pfmul disp8", 5, O, 0, 0, 0x0f, 0x0f, 0x40, 0x10, 0xb4),
	C("femms", 2, O, 0, 0, 0x0f, 0x0e),
	C("nopl disp32(%rax,%rax)", 8, O, 0, 0, 0x0f, 0x1f, 0x84, 0x00, 0, 0, 0, 0),
	C("bswap", 2, O, 0, 0, 0x0f, 0xc8),
	C("cpuid", 2, O, 0, 0, 0x0f, 0xa2),

	/* VEX, EVEX, XOP. */
	C("vzeroupper (C5, no ModRM)", 3, O, 0, 0, 0xc5, 0xf8, 0x77),
	C("vzeroall", 3, O, 0, 0, 0xc5, 0xfc, 0x77),
	C("vaddps ymm (C5)", 4, O, 0, 0, 0xc5, 0xec, 0x58, 0xd9),
	C("vaddpd (C4) mem disp8", 6, O, 0, 0, 0xc4, 0xc1, 0x6d, 0x58, 0x58, 0x10),
	C("vpshufd imm8 (C5 0f 70)", 5, O, 0, 0, 0xc5, 0xfd, 0x70, 0xc1, 0x1b),
	C("vpermq imm8 (C4 map 3)", 6, O, 0, 0, 0xc4, 0xe3, 0xfd, 0x00, 0xc1, 0x1b),
	C("vblendvps is4 (C4 map 3)", 6, O, 0, 0, 0xc4, 0xe3, 0x6d, 0x4a, 0xc1, 0x30),
	C("vfmadd231ps (C4 map 2)", 5, O, 0, 0, 0xc4, 0xe2, 0x6d, 0xb8, 0xc1),
	C("vpgatherdd (C4 map 2, SIB)", 6, O, 0, 0, 0xc4, 0xe2, 0x6d, 0x90, 0x04, 0x88),
	C("VEX map 0 invalid", INVAL, O, 0, 0, 0xc4, 0xe0, 0x7c, 0x58, 0xc1),
	C("VEX map 4 invalid", INVAL, O, 0, 0, 0xc4, 0xe4, 0x7c, 0x58, 0xc1),
	C("66 before VEX invalid", INVAL, O, 0, 0, 0x66, 0xc5, 0xf8, 0x77),
	C("REX before VEX invalid", INVAL, O, 0, 0, 0x40, 0xc5, 0xf8, 0x77),
	C("vaddps zmm (EVEX)", 6, O, 0, 0, 0x62, 0xf1, 0x6c, 0x48, 0x58, 0xd9),
	C("vaddps zmm mem disp8*N", 7, O, 0, 0, 0x62, 0xf1, 0x6c, 0x48, 0x58, 0x58, 0x01),
	C("vmovdqu64 disp32 SIB", 11, O, 0, 0, 0x62, 0x01, 0xfe, 0x48, 0x7f, 0xb4, 0xf7,
	  0x00, 0x10, 0x00, 0x00),
	C("vpternlogd imm8 (EVEX map 3)", 7, O, 0, 0, 0x62, 0xf3, 0x6d, 0x48, 0x25, 0xd9, 0xff),
	C("vpshufd imm8 (EVEX 0f 70)", 7, O, 0, 0, 0x62, 0xf1, 0x7d, 0x48, 0x70, 0xc1, 0x1b),
	C("vaddph (EVEX map 5)", 6, O, 0, 0, 0x62, 0xf5, 0x6c, 0x48, 0x58, 0xd9),
	C("vfmadd132ph (EVEX map 6)", 6, O, 0, 0, 0x62, 0xf6, 0x6d, 0x48, 0x98, 0xd9),
	C("EVEX P1 bit 2 clear (MVEX) invalid", INVAL, O, 0, 0, 0x62, 0xf1, 0x68, 0x48, 0x58,
	  0xd9),
	C("EVEX map 0 invalid", INVAL, O, 0, 0, 0x62, 0xf0, 0x6c, 0x48, 0x58, 0xd9),
	C("F2 before EVEX invalid", INVAL, O, 0, 0, 0xf2, 0x62, 0xf1, 0x6c, 0x48, 0x58, 0xd9),
	C("vprotd imm8 (XOP map 8)", 6, O, 0, 0, 0x8f, 0xe8, 0x78, 0xc2, 0xca, 0x03),
	C("vphaddbd (XOP map 9)", 5, O, 0, 0, 0x8f, 0xe9, 0x78, 0xc2, 0xca),
	C("bextr imm32 (XOP map A)", 9, O, 0, 0, 0x8f, 0xea, 0x78, 0x10, 0xd8, 1, 2, 3, 4),
	C("pop r/m (8f /0)", 2, O, 0, 0, 0x8f, 0xc0),
	C("pop disp32(%rip)", 6, O, 0, 0, 0x8f, 0x05, 1, 2, 3, 4),
	C("8f /4 invalid (not XOP: map < 8)", INVAL, O, 0, 0, 0x8f, 0xe0),

	/* Invalid in 64-bit mode. */
	C("06 push es", INVAL, O, 0, 0, 0x06),
	C("07 pop es", INVAL, O, 0, 0, 0x07),
	C("0e push cs", INVAL, O, 0, 0, 0x0e),
	C("16 push ss", INVAL, O, 0, 0, 0x16),
	C("17 pop ss", INVAL, O, 0, 0, 0x17),
	C("1e push ds", INVAL, O, 0, 0, 0x1e),
	C("1f pop ds", INVAL, O, 0, 0, 0x1f),
	C("27 daa", INVAL, O, 0, 0, 0x27),
	C("2f das", INVAL, O, 0, 0, 0x2f),
	C("37 aaa", INVAL, O, 0, 0, 0x37),
	C("3f aas", INVAL, O, 0, 0, 0x3f),
	C("60 pusha", INVAL, O, 0, 0, 0x60),
	C("61 popa", INVAL, O, 0, 0, 0x61),
	C("82 alias of 80", INVAL, O, 0, 0, 0x82, 0xc0, 0x01),
	C("9a call far ptr", INVAL, O, 0, 0, 0x9a, 1, 2, 3, 4, 5, 6),
	C("ce into", INVAL, O, 0, 0, 0xce),
	C("d4 aam", INVAL, O, 0, 0, 0xd4, 0x0a),
	C("d5 aad", INVAL, O, 0, 0, 0xd5, 0x0a),
	C("d6 salc", INVAL, O, 0, 0, 0xd6),
	C("ea jmp far ptr", INVAL, O, 0, 0, 0xea, 1, 2, 3, 4, 5, 6),
	C("ff /7", INVAL, O, 0, 0, 0xff, 0xf8),
	C("fe /2", INVAL, O, 0, 0, 0xfe, 0x10),
	C("ljmp to a register", INVAL, O, 0, 0, 0xff, 0xe8),
	C("0f 04", INVAL, O, 0, 0, 0x0f, 0x04),
	C("mov %tr (0f 24)", INVAL, O, 0, 0, 0x0f, 0x24, 0xc0),
	C("c7 /1", INVAL, O, 0, 0, 0xc7, 0xc8, 1, 2, 3, 4),

	/* Truncation. */
	C("empty", TRUNC, O, 0, 0),
	C("prefix only", TRUNC, O, 0, 0, 0x66),
	C("REX only", TRUNC, O, 0, 0, 0x48),
	C("0f only", TRUNC, O, 0, 0, 0x0f),
	C("0f 38 only", TRUNC, O, 0, 0, 0x0f, 0x38),
	C("missing ModRM", TRUNC, O, 0, 0, 0x8b),
	C("missing SIB", TRUNC, O, 0, 0, 0x8b, 0x04),
	C("missing disp32 byte", TRUNC, O, 0, 0, 0x8b, 0x05, 1, 2, 3),
	C("rel32 cut", TRUNC, O, 0, 0, 0xe8, 1, 2, 3),
	C("rel8 cut", TRUNC, O, 0, 0, 0x74),
	C("imm64 cut", TRUNC, O, 0, 0, 0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7),
	C("moffs cut", TRUNC, O, 0, 0, 0xa1, 1, 2, 3, 4),
	C("enter cut", TRUNC, O, 0, 0, 0xc8, 1, 2),
	C("VEX cut", TRUNC, O, 0, 0, 0xc4, 0xe2),
	C("EVEX cut", TRUNC, O, 0, 0, 0x62, 0xf1, 0x6c, 0x48, 0x58),
	C("XOP imm32 cut", TRUNC, O, 0, 0, 0x8f, 0xea, 0x78, 0x10, 0xd8, 1, 2, 3),
	C("test imm cut", TRUNC, O, 0, 0, 0xf7, 0xc0, 1),
	C("3dnow suffix cut", TRUNC, O, 0, 0, 0x0f, 0x0f, 0xc1),
};

static void hexdump(const struct ucase *c)
{
	unsigned int i;

	for (i = 0; i < c->n; i++)
		fprintf(stderr, " %02x", c->b[i]);
}

int main(void)
{
	unsigned int i, fails = 0, n = sizeof(cases) / sizeof(cases[0]);

	for (i = 0; i < n; i++) {
		const struct ucase *c = &cases[i];
		struct hwt_x86_insn insn;
		uint8_t *buf = NULL;
		int ret, bad;

		/* An exact-size copy lets ASan catch any read past the end. */
		if (c->n) {
			buf = malloc(c->n);
			if (!buf)
				return 2;
			memcpy(buf, c->b, c->n);
		}
		ret = hwt_x86_insn_decode(buf, c->n, &insn);
		bad = ret != c->ret;
		if (!bad && ret > 0)
			bad = insn.length != ret || insn.branch != c->branch ||
			      insn.flags != c->flags ||
			      ((c->flags & T) && insn.displacement != c->disp);
		/* Every valid instruction must come out truncated when cut short. */
		if (!bad && ret > 0) {
			int cut;

			for (cut = 0; cut < ret; cut++)
				if (hwt_x86_insn_decode(buf, (size_t)cut, &insn) != TRUNC)
					bad = 1;
		}
		if (bad) {
			fails++;
			fprintf(stderr, "FAIL %s:", c->what);
			hexdump(c);
			fprintf(stderr, ": want %d %s flags %#x disp %lld, got %d",
				c->ret, hwt_x86_branch_name(c->branch), c->flags,
				(long long)c->disp, ret);
			if (ret > 0)
				fprintf(stderr, " %s flags %#x disp %lld",
					hwt_x86_branch_name(insn.branch), insn.flags,
					(long long)insn.displacement);
			fprintf(stderr, "\n");
		}
		free(buf);
	}
	if (strcmp(hwt_x86_branch_name(HWT_X86_JUMP_INDIRECT), "jump-indirect") ||
	    strcmp(hwt_x86_branch_name((enum hwt_x86_branch)99), "unknown")) {
		fprintf(stderr, "FAIL hwt_x86_branch_name\n");
		fails++;
	}
	printf("x86_insn_unit: %u cases, %u failures\n", n, fails);
	return fails ? 1 : 0;
}
