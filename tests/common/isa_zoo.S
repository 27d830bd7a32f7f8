/*
 * Instructions that compilers rarely emit, assembled by GNU as and never
 * run: the oracle test decodes this object with Zydis and with hwt. Each
 * group names what it exercises.
 */
	.text
	.globl	isa_zoo
isa_zoo:
	/* Direct branches, every form. */
1:	jz	1b
	jrcxz	1b
	jecxz	1b
	loop	1b
	loope	1b
	loopne	1b
	jmp	1b
	jz	2f
	jmp	2f
	.skip	200, 0x90
2:	call	1b
	bnd jmp	1b
	bnd call 1b
	bnd jz	1b
	/* 66 on near branches: Intel ignores it, rel32 stays. */
	.byte	0x66, 0xe8, 0x00, 0x00, 0x00, 0x00
	.byte	0x66, 0xe9, 0x00, 0x00, 0x00, 0x00
	.byte	0x66, 0x0f, 0x84, 0x00, 0x00, 0x00, 0x00
	.byte	0x66, 0x48, 0xe8, 0x00, 0x00, 0x00, 0x00

	/* Indirect branches, returns. */
	call	*%rax
	call	*(%rax)
	call	*0x10(%rip)
	call	*%r11
	jmp	*%rax
	jmp	*(%rax,%rbx,8)
	jmp	*0x12345678(,%rcx,8)
	notrack jmp *%rax
	notrack call *(%rdx)
	bnd jmp	*%rax
	bnd call *%rax
	bnd ret
	ret
	ret	$8
	rep ret

	/* Far transfers and exceptions. */
	ljmp	*(%rax)
	lcall	*(%rax)
	rex.W ljmp *(%rax)
	lretq
	lretq	$8
	lretw	$8
	.byte	0xcb	/* LRET */
	iretq
	iretl
	int3
	int	$0x80
	int1
	syscall
	sysretl
	sysretq
	sysenter
	sysexitl
	ud2
	ud1	%eax, %eax
	ud1	0x10(%rax), %ecx
	ud0	%eax, %eax
	vmcall
	vmlaunch
	vmresume
	vmmcall
	vmrun
	skinit
	enclu
	rsm
	uiret
	tdcall
	seamcall
	seamret

	/* Transactions: not branches to hwt. */
	xbegin	4f
4:	xend
	xabort	$1
	xtest

	/* String instructions with and without REP. */
	movsb
	rep movsb
	rep movsq
	rep stosb
	rep stosl
	repne scasb
	repe cmpsb
	repz cmpsq
	rep lodsb
	rep insb
	rep outsb
	rep insl
	addr32 rep movsb
	lock xchg %eax, (%rdx)
	.byte	0xf2, 0xa4	/* F2 MOVS: repeats like F3 */

	/* Immediates and operand sizes. */
	movabs	$0x123456789abcdef0, %rax
	movabs	$0x123456789abcdef0, %r15
	mov	$0x1234, %ax
	mov	$0x12345678, %eax
	movabs	0x1122334455667788, %al
	movabs	0x1122334455667788, %rax
	movabs	%eax, 0x1122334455667788
	addr32 mov 0x11223344, %eax
	testb	$1, (%rax)
	testw	$0x1234, (%rax)
	testl	$0x12345678, 8(%rax)
	testq	$-1, (%rax,%rcx)
	notl	(%rax)
	negq	%rax
	mulb	%cl
	idivl	(%rsp)
	enter	$16, $1
	leave
	push	$0x12345678
	pushw	$0x1234
	push	$1
	imul	$0x1234, %ax, %dx
	imul	$0x12345678, %rax, %rdx
	imul	$3, %eax, %edx
	addw	$0x1234, (%rax)
	addq	$0x12345678, 0x10(%rip)
	movw	$0x1234, 0x10(%rip)
	movq	$-2, 0x12345678(%rax,%rbx,4)
	mov	%es, %ax
	mov	%ax, %ds
	in	$0x60, %al
	out	%al, $0x80
	in	%dx, %eax
	xlat
	cwtl
	cqto
	wait
	fnstsw	%ax
	fld1
	fldl	0x10(%rip)
	fistpll	(%rax)
	hlt
	cmc
	clc
	std
	pushf
	popfq
	sahf
	nop
	pause
	xchg	%r8, %rax
	bswap	%r9d
	.byte	0x48, 0x66, 0xb8, 0x34, 0x12	/* REX then 66: the REX is ignored, imm16 */

	/* Prefix soup. */
	lock addl $1, %fs:(%rax)
	cs nopw 0x0(%rax,%rax,1)
	.byte	0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00
	.byte	0x26, 0x36, 0x3e, 0x64, 0x65, 0x90
	.byte	0x40, 0x41, 0x90
	.byte	0xf2, 0xf3, 0x0f, 0xb8, 0xc0	/* last of F2/F3 wins: POPCNT */
	mov	%gs:0x28, %rax
	addr32 lea (%eax,%ebx,2), %ecx
	lea	0x12(%r12,%r13,8), %r14
	lea	(%r13), %rax
	lea	(,%rbp,1), %rax

	/* System instructions of the 0F map. */
	mov	%cr0, %rax
	mov	%rax, %cr4
	mov	%cr8, %rax
	mov	%dr7, %rax
	mov	%rax, %dr0
	.byte	0x0f, 0x20, 0x00	/* MOV CR: mod is ignored, no disp */
	.byte	0x0f, 0x22, 0x45	/* ... not even disp8 */
	.byte	0x0f, 0x21, 0x84	/* ... nor SIB, disp32 */
	lgdt	(%rax)
	sgdt	0x10(%rip)
	lidt	(%rax)
	lmsw	%ax
	invlpg	(%rax)
	swapgs
	rdtscp
	monitor
	mwait
	xgetbv
	xsetbv
	clac
	stac
	encls
	wrmsr
	rdmsr
	rdpmc
	rdtsc
	cpuid
	getsec
	clts
	invd
	wbinvd
	sldt	%ax
	ltr	%ax
	verr	%ax
	lar	%ax, %bx
	lsl	(%rax), %ecx
	prefetchnta (%rax)
	prefetchw (%rax)
	nopl	0x0(%rax)
	endbr64
	rdfsbase %rax
	wrgsbase %rbx
	rdrand	%eax
	rdseed	%rax
	rdpid	%rax
	cmpxchg16b (%rax)
	cmpxchg8b (%rax)
	lfence
	mfence
	sfence
	clflush	(%rax)
	clflushopt (%rax)
	clwb	(%rax)
	xsave	(%rax)
	xrstor64 (%rax)
	fxsave	(%rax)
	ldmxcsr	(%rax)
	bt	$3, %eax
	btsq	$60, (%rax)
	shld	$3, %eax, %ebx
	shrd	%cl, %eax, (%rax)
	cmovne	%rax, %rbx
	setg	%al
	movzbl	(%rax), %eax
	movsbq	%al, %rax
	movslq	%eax, %rax
	popcnt	%rax, %rbx
	lzcnt	%eax, %ebx
	tzcnt	%eax, %ebx
	crc32b	%al, %ebx
	crc32q	(%rax), %rbx
	movbe	(%rax), %eax
	adcx	%eax, %ebx
	adox	%rax, %rbx
	vmread	%rax, %rbx
	vmwrite	(%rax), %rbx
	vmptrld	(%rax)
	vmxon	(%rax)
	invept	(%rax), %rax
	sha1rnds4 $1, %xmm1, %xmm2
	sha256rnds2 %xmm0, %xmm1, %xmm2
	aesenc	%xmm1, %xmm2
	aeskeygenassist $1, %xmm1, %xmm2
	pclmulqdq $0x11, %xmm1, %xmm2
	movdir64b (%rax), %rbx
	enqcmd	(%rax), %rbx
	serialize
	tpause	%eax
	umwait	%eax
	umonitor %rax
	wrpkru
	rdpkru
	incsspq	%rax
	rdsspq	%rax
	saveprevssp
	setssbsy
	clrssbsy (%rax)
	wrssq	%rax, (%rbx)
	hreset	$1
	senduipi %rax
	clui
	stui
	testui
	ptwrite	%eax
	cldemote (%rax)
	pconfig
	wbnoinvd
	clzero
	monitorx
	mwaitx
	rdpru
	invlpga
	invlpgb
	tlbsync
	psmash
	pvalidate
	rmpupdate
	rmpadjust
	loadiwkey %xmm1, %xmm2
	encodekey128 %eax, %ebx
	aesenc128kl (%rax), %xmm1

	/* MMX, SSE with mandatory prefixes and imm8. */
	paddb	%mm1, %mm0
	pshufw	$0x1b, %mm1, %mm0
	psrlw	$3, %mm0
	pshufd	$0x1b, %xmm1, %xmm0
	pshufhw	$0x1b, (%rax), %xmm0
	pslldq	$4, %xmm0
	psrad	$4, %xmm0
	cmpps	$1, %xmm1, %xmm0
	cmpsd	$1, %xmm1, %xmm0
	pinsrw	$1, %eax, %xmm0
	pextrw	$1, %xmm0, %eax
	shufpd	$1, %xmm1, %xmm0
	roundss	$1, %xmm1, %xmm0
	pblendw	$0xf0, (%rax), %xmm0
	palignr	$3, %xmm1, %xmm0
	palignr	$3, %mm1, %mm0
	pcmpistri $0x0c, (%rax), %xmm0
	pshufb	%xmm1, %xmm0
	pmaddubsw %mm1, %mm0
	ptest	%xmm1, %xmm0
	movnti	%eax, (%rbx)
	movq	%xmm0, %rax
	movq	%rax, %mm0
	emms
	maskmovdqu %xmm1, %xmm0
	lddqu	(%rax), %xmm0
	cvtsi2sdq %rax, %xmm0
	extrq	$4, $8, %xmm0
	extrq	%xmm1, %xmm0
	insertq	$4, $8, %xmm1, %xmm0
	insertq	%xmm1, %xmm0
	movntsd	%xmm0, (%rax)

	/* 3DNow! */
	femms
	pfadd	%mm1, %mm0
	pfmul	(%rax), %mm0
	pi2fd	0x10(%rax,%rbx,2), %mm3
	pswapd	%mm1, %mm0
	pavgusb	%mm1, %mm0

	/* VIA PadLock */
	xstore
	rep xcryptecb
	rep xsha1
	rep montmul

	/* VEX */
	vzeroupper
	vzeroall
	vaddps	%ymm1, %ymm2, %ymm3
	vaddpd	(%rax), %ymm2, %ymm3
	vpshufd	$0x1b, %ymm1, %ymm0
	vpsrlq	$4, %ymm1, %ymm0
	vcmpps	$1, %xmm1, %xmm2, %xmm0
	vpinsrw	$1, %eax, %xmm1, %xmm0
	vpextrw	$1, %xmm0, %eax
	vshufps	$1, %ymm1, %ymm2, %ymm0
	vpermq	$0x1b, %ymm1, %ymm0
	vblendvps %ymm3, %ymm1, %ymm2, %ymm0
	vfmadd231ps %ymm1, %ymm2, %ymm0
	vpgatherdd %ymm2, (%rax,%ymm1,4), %ymm0
	vbroadcastss (%rax), %ymm0
	vmovdqu	%ymm8, 0x100(%r13)
	vpmovmskb %ymm0, %eax
	andn	%eax, %ebx, %ecx
	bextr	%eax, %ebx, %ecx
	bzhi	%rax, %rbx, %rcx
	pdep	%rax, %rbx, %rcx
	rorx	$3, %rax, %rbx
	shlx	%rax, %rbx, %rcx
	mulx	%rax, %rbx, %rcx
	blsr	%eax, %ebx
	kmovw	%k1, %eax
	kandw	%k1, %k2, %k3
	kshiftlw $3, %k1, %k2
	vcvtph2ps %xmm1, %ymm0
	vcvtps2ph $0, %ymm1, %xmm0
	vaesenc	%ymm1, %ymm2, %ymm3
	vpclmulqdq $0, %ymm1, %ymm2, %ymm3
	vgf2p8affineqb $0, %ymm1, %ymm2, %ymm3
	vpdpbusd %ymm1, %ymm2, %ymm3
	ldtilecfg (%rax)
	sttilecfg (%rax)
	tileloadd (%rax,%rbx,1), %tmm0
	tilestored %tmm1, (%rax,%rbx,1)
	tdpbssd	%tmm1, %tmm2, %tmm3
	tilezero %tmm0
	tilerelease

	/* EVEX */
	vaddps	%zmm1, %zmm2, %zmm3
	vaddps	{rn-sae}, %zmm1, %zmm2, %zmm3
	vaddps	(%rax){1to16}, %zmm2, %zmm3{%k1}{z}
	vaddpd	0x40(%rax), %zmm2, %zmm3
	vmovdqu64 %zmm30, 0x1000(%r15,%r14,8)
	vpternlogd $0xff, %zmm1, %zmm2, %zmm3
	vpcmpd	$1, %zmm1, %zmm2, %k1
	vpshufd	$0x1b, %zmm1, %zmm0
	vpsrlq	$4, %zmm1, %zmm0
	vcmpps	$1, %zmm1, %zmm2, %k0
	vpermt2d %zmm1, %zmm2, %zmm3
	vpcompressd %zmm1, (%rax){%k1}
	vpgatherdd (%rax,%zmm1,4), %zmm0{%k1}
	vpscatterdd %zmm0, (%rax,%zmm1,4){%k1}
	vextracti32x4 $1, %zmm1, %xmm2
	vinserti64x4 $1, %ymm1, %zmm2, %zmm3
	vpbroadcastd %eax, %zmm0
	vfixupimmps $1, %zmm1, %zmm2, %zmm3
	vrndscaleps $1, %zmm1, %zmm2
	vpinsrw	$1, %eax, %xmm17, %xmm16
	vaddph	%zmm1, %zmm2, %zmm3
	vaddsh	%xmm1, %xmm2, %xmm3
	vcvtph2psx %ymm1, %zmm2
	vfmadd132ph %zmm1, %zmm2, %zmm3
	vcmpph	$1, %zmm1, %zmm2, %k1
	vgetmantph $1, %zmm1, %zmm2
	vfpclassph $1, %zmm1, %k2
	vpdpbusd %zmm1, %zmm2, %zmm3
	vp2intersectd %zmm1, %zmm2, %k2
	vpopcntb %zmm1, %zmm2
	vcvtne2ps2bf16 %zmm1, %zmm2, %zmm3

	/* XOP, FMA4, TBM (AMD) */
	vpcmov	%xmm1, %xmm2, %xmm3, %xmm4
	vprotd	$3, %xmm1, %xmm2
	vprotd	%xmm1, %xmm2, %xmm3
	vpcomb	$1, %xmm1, %xmm2, %xmm3
	vphaddbd %xmm1, %xmm2
	vfrczps	(%rax), %xmm1
	vpperm	%xmm1, %xmm2, %xmm3, %xmm4
	vfmaddps %xmm1, %xmm2, %xmm3, %xmm4
	vfmaddsd (%rax), %xmm2, %xmm3, %xmm4
	bextr	$0x1234, %eax, %ebx
	bextr	$0x12345678, (%rax), %rbx
	blcfill	%eax, %ebx
	t1mskc	%rax, %rbx
	llwpcb	%rax
	lwpins	$0x12345678, %eax, %ebx
	lwpval	$0x12345678, (%rax), %rbx
	ret
	.size	isa_zoo, .-isa_zoo
	.section .note.GNU-stack, "", @progbits
