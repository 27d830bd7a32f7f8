/* libwrap.so: a library without debug info between a program and libcalc.so
   (the selected library is two DT_NEEDED levels down). */
#include "calc.h"

int wrap_gcd(int a, int b)
{
	return calc_gcd(a, b);
}
