/* A recursive-descent parser and evaluator for integer expressions:
 *   expr   := term (('+' | '-') term)*
 *   term   := unary (('*' | '/' | '%') unary)*
 *   unary  := '-' unary | primary
 *   primary:= number | '(' expr ')'                                     */
#include "minicalc.h"

#include <ctype.h>

struct parser {
	const char *p;
	int depth;
};

static int parse_expr(struct parser *ps, long *out);

static void skip_space(struct parser *ps)
{
	while (isspace((unsigned char)*ps->p))
		ps->p++;
}

static int parse_number(struct parser *ps, long *out)
{
	long v = 0;
	int err;

	if (!isdigit((unsigned char)*ps->p))
		return MC_ERR_SYNTAX;
	while (isdigit((unsigned char)*ps->p)) {
		err = mc_mul(v, 10, &v);
		if (!err)
			err = mc_add(v, *ps->p - '0', &v);
		if (err)
			return err;
		ps->p++;
	}
	*out = v;
	return MC_OK;
}

static int parse_primary(struct parser *ps, long *out)
{
	int err;

	skip_space(ps);
	if (*ps->p != '(')
		return parse_number(ps, out);
	if (++ps->depth > 64)
		return MC_ERR_SYNTAX;
	ps->p++;
	err = parse_expr(ps, out);
	if (err)
		return err;
	skip_space(ps);
	if (*ps->p != ')')
		return MC_ERR_SYNTAX;
	ps->p++;
	ps->depth--;
	return MC_OK;
}

static int parse_unary(struct parser *ps, long *out)
{
	int err;

	skip_space(ps);
	if (*ps->p == '-') {
		ps->p++;
		err = parse_unary(ps, out);
		if (err)
			return err;
		return mc_sub(0, *out, out);
	}
	return parse_primary(ps, out);
}

static int parse_term(struct parser *ps, long *out)
{
	long rhs;
	int err = parse_unary(ps, out);

	while (!err) {
		char op;

		skip_space(ps);
		op = *ps->p;
		if (op != '*' && op != '/' && op != '%')
			break;
		ps->p++;
		err = parse_unary(ps, &rhs);
		if (err)
			break;
		if (op == '*')
			err = mc_mul(*out, rhs, out);
		else if (op == '/')
			err = mc_div(*out, rhs, out);
		else if (rhs == 0)
			err = MC_ERR_DIV_ZERO;
		else
			*out = rhs == -1 ? 0 : *out % rhs;
	}
	return err;
}

static int parse_expr(struct parser *ps, long *out)
{
	long rhs;
	int err = parse_term(ps, out);

	while (!err) {
		char op;

		skip_space(ps);
		op = *ps->p;
		if (op != '+' && op != '-')
			break;
		ps->p++;
		err = parse_term(ps, &rhs);
		if (err)
			break;
		err = op == '+' ? mc_add(*out, rhs, out) : mc_sub(*out, rhs, out);
	}
	return err;
}

int mc_eval(const char *text, long *out)
{
	struct parser ps = { text, 0 };
	long v;
	int err = parse_expr(&ps, &v);

	if (err)
		return err;
	skip_space(&ps);
	if (*ps.p != '\0')
		return MC_ERR_SYNTAX;
	*out = v;
	return MC_OK;
}
