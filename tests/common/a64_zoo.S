/*
 * Every branch and exception generating instruction form the A64
 * classifier knows, for its objdump oracle test: assembled, never run.
 */
	.arch armv8.8-a
	.text
	.globl zoo
zoo:
.Lback:
	b	1f
	bl	.Lback
	b.eq	.Lback
	b.ne	1f
	b.al	1f
	b.nv	1f
	bc.eq	.Lback
	bc.lt	1f
	cbz	w0, .Lback
	cbnz	x30, 1f
	tbz	w3, #0, .Lback
	tbnz	x7, #63, 1f
	tbz	xzr, #40, 1f
1:	br	x16
	br	x30
	braa	x1, x2
	braa	x3, sp
	brab	x4, x5
	braaz	x6
	brabz	x7
	blr	x8
	blraa	x9, x10
	blrab	x11, sp
	blraaz	x12
	blrabz	x13
	ret
	ret	x0
	retaa
	retab
	eret
	eretaa
	eretab
	svc	#0
	svc	#0xffff
	hvc	#1
	smc	#2
	brk	#0x3e8
	hlt	#0xf000
	/* neighbours that are not branches */
	drps
	dcps1
	dcps2
	dcps3
	udf	#0
	nop
	bti	c
	paciasp
	autiasp
	isb
	adr	x0, .Lback
	adrp	x0, .Lback
