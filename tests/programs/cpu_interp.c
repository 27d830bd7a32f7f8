/* cpu_interp: a CPU-bound stack-machine interpreter with a switch dispatch,
 * running three bundled bytecode programs (a prime sieve, a matrix
 * multiply, a string hash). Each result is checked against the same
 * computation written in C.
 *
 *   cpu_interp [measure|train]
 *
 * "measure" (the default) and "train" run the same programs on different
 * sizes and in a different mix, so that a profile taken on "train" can be
 * judged on "measure". */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum opcode {
	OP_HALT,
	OP_PUSH,	/* imm: push imm */
	OP_POP,
	OP_DUP,
	OP_SWAP,
	OP_OVER,
	OP_ADD,
	OP_SUB,
	OP_MUL,
	OP_DIV,
	OP_MOD,
	OP_AND,
	OP_OR,
	OP_XOR,
	OP_SHL,
	OP_SHR,
	OP_LT,
	OP_EQ,
	OP_NOT,
	OP_JMP,		/* target */
	OP_JZ,		/* target: pop, jump if zero */
	OP_JNZ,		/* target: pop, jump if not zero */
	OP_LOAD,	/* reg: push reg */
	OP_STORE,	/* reg: pop into reg */
	OP_INC,		/* reg, imm: reg += imm */
	OP_MLOAD,	/* pop addr, push mem[addr] */
	OP_MSTORE,	/* pop value, pop addr, mem[addr] = value */
	OP_CALL,	/* target */
	OP_RET,
	OP_OUT,		/* pop into the output */
};

#define CODE_MAX 1024
#define LABEL_MAX 32
#define STACK_MAX 256
#define CALL_MAX 64
#define REG_MAX 16
#define MEM_MAX (1 << 20)

struct program {
	int64_t code[CODE_MAX];
	int len;
	int label_at[LABEL_MAX];
	int fixup_at[CODE_MAX];	/* code index of each jump operand */
	int fixup_label[CODE_MAX];
	int nfixups;
};

struct vm {
	int64_t stack[STACK_MAX];
	int64_t reg[REG_MAX];
	int ret[CALL_MAX];
	int64_t *mem;
	int64_t out;
	uint64_t steps;
};

/* ---- a tiny assembler ---- */

static void emit(struct program *p, int64_t word)
{
	if (p->len >= CODE_MAX) {
		fprintf(stderr, "cpu_interp: program too long\n");
		exit(2);
	}
	p->code[p->len++] = word;
}

static void op0(struct program *p, enum opcode op)
{
	emit(p, op);
}

static void op1(struct program *p, enum opcode op, int64_t arg)
{
	emit(p, op);
	emit(p, arg);
}

static void inc(struct program *p, int reg, int64_t by)
{
	emit(p, OP_INC);
	emit(p, reg);
	emit(p, by);
}

static void label(struct program *p, int l)
{
	p->label_at[l] = p->len;
}

static void jump(struct program *p, enum opcode op, int l)
{
	emit(p, op);
	p->fixup_at[p->nfixups] = p->len;
	p->fixup_label[p->nfixups++] = l;
	emit(p, -1);
}

static void link_program(struct program *p)
{
	for (int i = 0; i < p->nfixups; i++)
		p->code[p->fixup_at[i]] = p->label_at[p->fixup_label[i]];
}

/* ---- the interpreter ---- */

static void vm_fail(const char *what, int pc)
{
	fprintf(stderr, "cpu_interp: %s at pc %d\n", what, pc);
	exit(2);
}

/* Kept out of line so that profiles and flame graphs show the interpreter
 * loop as a function of its own. */
__attribute__((noinline)) static int64_t vm_run(struct vm *vm, const struct program *p)
{
	const int64_t *code = p->code;
	int64_t *st = vm->stack;
	int sp = 0, rsp = 0, pc = 0;
	int64_t a, b;

	vm->out = 0;
	for (;;) {
		int64_t op = code[pc++];

		vm->steps++;
		switch (op) {
		case OP_HALT:
			return vm->out;
		case OP_PUSH:
			if (sp >= STACK_MAX)
				vm_fail("stack overflow", pc);
			st[sp++] = code[pc++];
			break;
		case OP_POP:
			sp--;
			break;
		case OP_DUP:
			st[sp] = st[sp - 1];
			sp++;
			break;
		case OP_SWAP:
			a = st[sp - 1];
			st[sp - 1] = st[sp - 2];
			st[sp - 2] = a;
			break;
		case OP_OVER:
			st[sp] = st[sp - 2];
			sp++;
			break;
		case OP_ADD:
			sp--;
			st[sp - 1] += st[sp];
			break;
		case OP_SUB:
			sp--;
			st[sp - 1] -= st[sp];
			break;
		case OP_MUL:
			sp--;
			st[sp - 1] = (int64_t)((uint64_t)st[sp - 1] * (uint64_t)st[sp]);
			break;
		case OP_DIV:
		case OP_MOD:
			b = st[--sp];
			if (b == 0)
				vm_fail("division by zero", pc);
			st[sp - 1] = op == OP_DIV ? st[sp - 1] / b : st[sp - 1] % b;
			break;
		case OP_AND:
			sp--;
			st[sp - 1] &= st[sp];
			break;
		case OP_OR:
			sp--;
			st[sp - 1] |= st[sp];
			break;
		case OP_XOR:
			sp--;
			st[sp - 1] ^= st[sp];
			break;
		case OP_SHL:
			sp--;
			st[sp - 1] = (int64_t)((uint64_t)st[sp - 1] << (st[sp] & 63));
			break;
		case OP_SHR:
			sp--;
			st[sp - 1] = (int64_t)((uint64_t)st[sp - 1] >> (st[sp] & 63));
			break;
		case OP_LT:
			sp--;
			st[sp - 1] = st[sp - 1] < st[sp];
			break;
		case OP_EQ:
			sp--;
			st[sp - 1] = st[sp - 1] == st[sp];
			break;
		case OP_NOT:
			st[sp - 1] = !st[sp - 1];
			break;
		case OP_JMP:
			pc = (int)code[pc];
			break;
		case OP_JZ:
			pc = st[--sp] == 0 ? (int)code[pc] : pc + 1;
			break;
		case OP_JNZ:
			pc = st[--sp] != 0 ? (int)code[pc] : pc + 1;
			break;
		case OP_LOAD:
			st[sp++] = vm->reg[code[pc++]];
			break;
		case OP_STORE:
			vm->reg[code[pc++]] = st[--sp];
			break;
		case OP_INC:
			vm->reg[code[pc]] += code[pc + 1];
			pc += 2;
			break;
		case OP_MLOAD:
			a = st[sp - 1];
			if (a < 0 || a >= MEM_MAX)
				vm_fail("bad load address", pc);
			st[sp - 1] = vm->mem[a];
			break;
		case OP_MSTORE:
			b = st[--sp];
			a = st[--sp];
			if (a < 0 || a >= MEM_MAX)
				vm_fail("bad store address", pc);
			vm->mem[a] = b;
			break;
		case OP_CALL:
			if (rsp >= CALL_MAX)
				vm_fail("call stack overflow", pc);
			vm->ret[rsp++] = pc + 1;
			pc = (int)code[pc];
			break;
		case OP_RET:
			if (rsp == 0)
				vm_fail("return without call", pc);
			pc = vm->ret[--rsp];
			break;
		case OP_OUT:
			vm->out = (int64_t)((uint64_t)vm->out * 31 + (uint64_t)st[--sp]);
			break;
		default:
			vm_fail("bad opcode", pc - 1);
		}
		if (sp < 0)
			vm_fail("stack underflow", pc);
	}
}

/* ---- the bundled programs ---- */

/* Counts the primes below n. r0 = i, r1 = count, r2 = j. */
static void build_sieve(struct program *p, int64_t n)
{
	enum { LOOP_I, NEXT_I, LOOP_J, DONE };

	op1(p, OP_PUSH, 2);
	op1(p, OP_STORE, 0);
	op1(p, OP_PUSH, 0);
	op1(p, OP_STORE, 1);
	label(p, LOOP_I);
	op1(p, OP_LOAD, 0);
	op1(p, OP_PUSH, n);
	op0(p, OP_LT);
	jump(p, OP_JZ, DONE);
	op1(p, OP_LOAD, 0);
	op0(p, OP_MLOAD);
	jump(p, OP_JNZ, NEXT_I);
	inc(p, 1, 1);
	op1(p, OP_LOAD, 0);
	op0(p, OP_DUP);
	op0(p, OP_ADD);
	op1(p, OP_STORE, 2);
	label(p, LOOP_J);
	op1(p, OP_LOAD, 2);
	op1(p, OP_PUSH, n);
	op0(p, OP_LT);
	jump(p, OP_JZ, NEXT_I);
	op1(p, OP_LOAD, 2);
	op1(p, OP_PUSH, 1);
	op0(p, OP_MSTORE);
	op1(p, OP_LOAD, 2);
	op1(p, OP_LOAD, 0);
	op0(p, OP_ADD);
	op1(p, OP_STORE, 2);
	jump(p, OP_JMP, LOOP_J);
	label(p, NEXT_I);
	inc(p, 0, 1);
	jump(p, OP_JMP, LOOP_I);
	label(p, DONE);
	op1(p, OP_LOAD, 1);
	op0(p, OP_OUT);
	op0(p, OP_HALT);
	link_program(p);
}

static int64_t sieve_in_c(int64_t n)
{
	char *composite = calloc((size_t)n, 1);
	int64_t count = 0;

	if (composite == NULL)
		exit(2);
	for (int64_t i = 2; i < n; i++) {
		if (composite[i])
			continue;
		count++;
		for (int64_t j = 2 * i; j < n; j += i)
			composite[j] = 1;
	}
	free(composite);
	return count;
}

/* C = A * B for n x n matrices at mem[0], mem[n*n], mem[2*n*n]; outputs the
 * sum of C. A subroutine computes each dot product.
 * r0 = i, r1 = j, r2 = k, r3 = dot, r4 = fill index, r5 = sum. */
static void build_matmul(struct program *p, int64_t n)
{
	enum { FILL, FILLED, LOOP_I, LOOP_J, DONE_J, DONE, DOT, DOT_LOOP, DOT_DONE, SUM, SUMMED };
	const int64_t nn = n * n;

	/* A[x] = (x * 7 + 3) % 11, B[x] = (x * 5 + 1) % 13 */
	op1(p, OP_PUSH, 0);
	op1(p, OP_STORE, 4);
	label(p, FILL);
	op1(p, OP_LOAD, 4);
	op1(p, OP_PUSH, nn);
	op0(p, OP_LT);
	jump(p, OP_JZ, FILLED);
	op1(p, OP_LOAD, 4);
	op0(p, OP_DUP);
	op1(p, OP_PUSH, 7);
	op0(p, OP_MUL);
	op1(p, OP_PUSH, 3);
	op0(p, OP_ADD);
	op1(p, OP_PUSH, 11);
	op0(p, OP_MOD);
	op0(p, OP_MSTORE);
	op1(p, OP_LOAD, 4);
	op1(p, OP_PUSH, nn);
	op0(p, OP_ADD);
	op1(p, OP_LOAD, 4);
	op1(p, OP_PUSH, 5);
	op0(p, OP_MUL);
	op1(p, OP_PUSH, 1);
	op0(p, OP_ADD);
	op1(p, OP_PUSH, 13);
	op0(p, OP_MOD);
	op0(p, OP_MSTORE);
	inc(p, 4, 1);
	jump(p, OP_JMP, FILL);
	label(p, FILLED);

	op1(p, OP_PUSH, 0);
	op1(p, OP_STORE, 0);
	label(p, LOOP_I);
	op1(p, OP_LOAD, 0);
	op1(p, OP_PUSH, n);
	op0(p, OP_LT);
	jump(p, OP_JZ, DONE);
	op1(p, OP_PUSH, 0);
	op1(p, OP_STORE, 1);
	label(p, LOOP_J);
	op1(p, OP_LOAD, 1);
	op1(p, OP_PUSH, n);
	op0(p, OP_LT);
	jump(p, OP_JZ, DONE_J);
	jump(p, OP_CALL, DOT);
	/* C[i*n + j] = dot */
	op1(p, OP_LOAD, 0);
	op1(p, OP_PUSH, n);
	op0(p, OP_MUL);
	op1(p, OP_LOAD, 1);
	op0(p, OP_ADD);
	op1(p, OP_PUSH, 2 * nn);
	op0(p, OP_ADD);
	op1(p, OP_LOAD, 3);
	op0(p, OP_MSTORE);
	inc(p, 1, 1);
	jump(p, OP_JMP, LOOP_J);
	label(p, DONE_J);
	inc(p, 0, 1);
	jump(p, OP_JMP, LOOP_I);

	label(p, DONE);
	op1(p, OP_PUSH, 0);
	op1(p, OP_STORE, 5);
	op1(p, OP_PUSH, 0);
	op1(p, OP_STORE, 4);
	label(p, SUM);
	op1(p, OP_LOAD, 4);
	op1(p, OP_PUSH, nn);
	op0(p, OP_LT);
	jump(p, OP_JZ, SUMMED);
	op1(p, OP_LOAD, 5);
	op1(p, OP_LOAD, 4);
	op1(p, OP_PUSH, 2 * nn);
	op0(p, OP_ADD);
	op0(p, OP_MLOAD);
	op0(p, OP_ADD);
	op1(p, OP_STORE, 5);
	inc(p, 4, 1);
	jump(p, OP_JMP, SUM);
	label(p, SUMMED);
	op1(p, OP_LOAD, 5);
	op0(p, OP_OUT);
	op0(p, OP_HALT);

	/* dot: r3 = sum over k of A[i*n + k] * B[k*n + j] */
	label(p, DOT);
	op1(p, OP_PUSH, 0);
	op1(p, OP_STORE, 3);
	op1(p, OP_PUSH, 0);
	op1(p, OP_STORE, 2);
	label(p, DOT_LOOP);
	op1(p, OP_LOAD, 2);
	op1(p, OP_PUSH, n);
	op0(p, OP_LT);
	jump(p, OP_JZ, DOT_DONE);
	op1(p, OP_LOAD, 0);
	op1(p, OP_PUSH, n);
	op0(p, OP_MUL);
	op1(p, OP_LOAD, 2);
	op0(p, OP_ADD);
	op0(p, OP_MLOAD);
	op1(p, OP_LOAD, 2);
	op1(p, OP_PUSH, n);
	op0(p, OP_MUL);
	op1(p, OP_LOAD, 1);
	op0(p, OP_ADD);
	op1(p, OP_PUSH, nn);
	op0(p, OP_ADD);
	op0(p, OP_MLOAD);
	op0(p, OP_MUL);
	op1(p, OP_LOAD, 3);
	op0(p, OP_ADD);
	op1(p, OP_STORE, 3);
	inc(p, 2, 1);
	jump(p, OP_JMP, DOT_LOOP);
	label(p, DOT_DONE);
	op0(p, OP_RET);
	link_program(p);
}

static int64_t matmul_in_c(int64_t n)
{
	int64_t sum = 0;

	for (int64_t i = 0; i < n; i++) {
		for (int64_t j = 0; j < n; j++) {
			int64_t dot = 0;

			for (int64_t k = 0; k < n; k++)
				dot += ((i * n + k) * 7 + 3) % 11 * (((k * n + j) * 5 + 1) % 13);
			sum += dot;
		}
	}
	return sum;
}

/* Fills mem[0..len) with bytes from a linear congruential generator, then
 * hashes them rounds times with 32-bit FNV-1a, one subroutine call per byte;
 * outputs each round's hash. r0 = x (generator), r1 = index, r2 = hash,
 * r3 = round. Bytes that are zero are skipped, like a C string's end. */
static void build_strhash(struct program *p, int64_t len, int64_t rounds)
{
	enum { GEN, GENERATED, ROUND, BYTE, NEXT, ROUND_DONE, DONE, MIX };

	op1(p, OP_PUSH, 12345);
	op1(p, OP_STORE, 0);
	op1(p, OP_PUSH, 0);
	op1(p, OP_STORE, 1);
	label(p, GEN);
	op1(p, OP_LOAD, 1);
	op1(p, OP_PUSH, len);
	op0(p, OP_LT);
	jump(p, OP_JZ, GENERATED);
	op1(p, OP_LOAD, 0);
	op1(p, OP_PUSH, 1103515245);
	op0(p, OP_MUL);
	op1(p, OP_PUSH, 12345);
	op0(p, OP_ADD);
	op1(p, OP_PUSH, 0x7fffffff);
	op0(p, OP_AND);
	op1(p, OP_STORE, 0);
	op1(p, OP_LOAD, 1);
	op1(p, OP_LOAD, 0);
	op1(p, OP_PUSH, 16);
	op0(p, OP_SHR);
	op1(p, OP_PUSH, 255);
	op0(p, OP_AND);
	op0(p, OP_MSTORE);
	inc(p, 1, 1);
	jump(p, OP_JMP, GEN);
	label(p, GENERATED);

	op1(p, OP_PUSH, 0);
	op1(p, OP_STORE, 3);
	label(p, ROUND);
	op1(p, OP_LOAD, 3);
	op1(p, OP_PUSH, rounds);
	op0(p, OP_LT);
	jump(p, OP_JZ, DONE);
	op1(p, OP_PUSH, 2166136261);
	op1(p, OP_LOAD, 3);
	op0(p, OP_XOR);
	op1(p, OP_STORE, 2);
	op1(p, OP_PUSH, 0);
	op1(p, OP_STORE, 1);
	label(p, BYTE);
	op1(p, OP_LOAD, 1);
	op1(p, OP_PUSH, len);
	op0(p, OP_LT);
	jump(p, OP_JZ, ROUND_DONE);
	op1(p, OP_LOAD, 1);
	op0(p, OP_MLOAD);
	op0(p, OP_DUP);
	jump(p, OP_JNZ, NEXT);
	op0(p, OP_POP);
	inc(p, 1, 1);
	jump(p, OP_JMP, BYTE);
	label(p, NEXT);
	jump(p, OP_CALL, MIX);
	inc(p, 1, 1);
	jump(p, OP_JMP, BYTE);
	label(p, ROUND_DONE);
	op1(p, OP_LOAD, 2);
	op0(p, OP_OUT);
	inc(p, 3, 1);
	jump(p, OP_JMP, ROUND);
	label(p, DONE);
	op0(p, OP_HALT);

	/* mix: pops a byte, r2 = ((r2 ^ byte) * 16777619) & 0xffffffff */
	label(p, MIX);
	op1(p, OP_LOAD, 2);
	op0(p, OP_XOR);
	op1(p, OP_PUSH, 16777619);
	op0(p, OP_MUL);
	op1(p, OP_PUSH, 0xffffffff);
	op0(p, OP_AND);
	op1(p, OP_STORE, 2);
	op0(p, OP_RET);
	link_program(p);
}

static int64_t strhash_in_c(int64_t len, int64_t rounds)
{
	unsigned char *s = malloc((size_t)len);
	int64_t x = 12345, out = 0;

	if (s == NULL)
		exit(2);
	for (int64_t i = 0; i < len; i++) {
		x = (int64_t)(((uint64_t)x * 1103515245u + 12345u) & 0x7fffffff);
		s[i] = (unsigned char)((x >> 16) & 255);
	}
	for (int64_t r = 0; r < rounds; r++) {
		uint64_t h = 2166136261u ^ (uint64_t)r;

		for (int64_t i = 0; i < len; i++)
			if (s[i] != 0)
				h = ((h ^ s[i]) * 16777619u) & 0xffffffff;
		out = (int64_t)((uint64_t)out * 31 + h);
	}
	free(s);
	return out;
}

/* ---- inputs ---- */

enum kind { SIEVE, MATMUL, STRHASH };

struct job {
	enum kind kind;
	int64_t a, b;
};

static const struct job train_jobs[] = {
	{ SIEVE, 1000000, 0 },
	{ MATMUL, 80, 0 },
	{ STRHASH, 10000, 160 },
	{ SIEVE, 400000, 0 },
};

static const struct job measure_jobs[] = {
	{ MATMUL, 200, 0 },
	{ SIEVE, 1000000, 0 },
	{ STRHASH, 20000, 700 },
	{ MATMUL, 130, 0 },
	{ SIEVE, 1000000, 0 },
	{ SIEVE, 700000, 0 },
	{ STRHASH, 8000, 500 },
};

static int run_job(struct vm *vm, const struct job *job)
{
	static struct program prog;
	int64_t got, want;
	const char *name;

	memset(&prog, 0, sizeof prog);
	memset(vm->mem, 0, MEM_MAX * sizeof vm->mem[0]);
	switch (job->kind) {
	case SIEVE:
		name = "sieve";
		build_sieve(&prog, job->a);
		want = sieve_in_c(job->a);
		break;
	case MATMUL:
		name = "matmul";
		build_matmul(&prog, job->a);
		want = matmul_in_c(job->a);
		break;
	default:
		name = "strhash";
		build_strhash(&prog, job->a, job->b);
		want = strhash_in_c(job->a, job->b);
		break;
	}
	got = vm_run(vm, &prog);
	printf("%-8s %7" PRId64 " %3" PRId64 ": %" PRId64 " %s\n", name, job->a,
	       job->b, got, got == want ? "ok" : "MISMATCH");
	return got == want;
}

int main(int argc, char **argv)
{
	const char *input = argc > 1 ? argv[1] : "measure";
	const struct job *jobs;
	struct vm vm;
	size_t njobs;
	int ok = 1;

	if (strcmp(input, "train") == 0) {
		jobs = train_jobs;
		njobs = sizeof train_jobs / sizeof train_jobs[0];
	} else if (strcmp(input, "measure") == 0) {
		jobs = measure_jobs;
		njobs = sizeof measure_jobs / sizeof measure_jobs[0];
	} else {
		fprintf(stderr, "usage: cpu_interp [measure|train]\n");
		return 2;
	}

	memset(&vm, 0, sizeof vm);
	vm.mem = malloc(MEM_MAX * sizeof vm.mem[0]);
	if (vm.mem == NULL)
		return 2;
	for (size_t i = 0; i < njobs; i++)
		ok &= run_job(&vm, &jobs[i]);
	printf("%s: %" PRIu64 " bytecode steps\n", input, vm.steps);
	free(vm.mem);
	return ok ? 0 : 1;
}
