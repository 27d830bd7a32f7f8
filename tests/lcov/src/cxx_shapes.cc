// The second translation unit of cxx_functions: virtual calls, a class
// with a user-written destructor, the header's inline functions again.
#include <memory>
#include <vector>

#include "cxx_shapes.h"

int Triangle::live = 0;

// gcc -O2 clones it for its constant argument (scaled(int, int)
// .constprop.0, or .isra.0): gcov counts the clone as the function.
__attribute__((noinline)) static int scaled(int v, int factor)
{
	if (v > 100)
		return v;
	return v * factor + factor;
}

int count_shapes(int n)
{
	std::vector<std::unique_ptr<Shape>> shapes;
	int total = 0;

	for (int i = 0; i < n; i++) {
		if (i % 3 == 0) {
			shapes.emplace_back(new Triangle(i, 2));
			Triangle::live++;
		} else {
			shapes.emplace_back(new Square(i));
		}
	}
	for (const auto &s : shapes)
		total += clamp_to(s->area(), 50) + s->sides() + scaled(total, 3);
	return total;
}
