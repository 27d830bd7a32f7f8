// cxx_functions: the C++ functions gcov counts one by one. Three lambdas
// (one never called), a function template instantiated over two of them,
// a class template, std::function, virtual functions, constructors and
// destructors (written and implicit), exceptions, a static constructor,
// inline functions from a header (cxx_shapes.h).
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <stdexcept>
#include <string>

#include "cxx_shapes.h"

template <typename F>
int apply_n(F f, int n)
{
	int sum = 0;
	for (int i = 0; i < n; i++)
		sum += f(i);
	return sum;
}

template <typename T>
class Accumulator {
public:
	explicit Accumulator(T start) : total_(start) {}
	void add(T v) { total_ += v; }
	T total() const { return total_; }

private:
	T total_;
};

struct Registry {
	Registry() { entries = std::getenv("CXX_FUNCTIONS_ENTRIES") ? 1 : 2; }
	int entries;
};

static Registry registry;

static int checked_div(int a, int b)
{
	if (b == 0)
		throw std::invalid_argument("division by zero");
	return a / b;
}

static int run_function(const std::function<int(int)> &fn, int v)
{
	return fn(v);
}

int main(int argc, char **argv)
{
	int scale = argc > 1 ? std::atoi(argv[1]) : 3;
	auto square = [](int x) { return x * x; };
	auto shifted = [scale](int x) {
		return x + scale;
	};
	auto unused = [](int x) { return -x; };
	int total = 0;

	total += apply_n(square, 5);
	total += apply_n(shifted, 4);
	if (argc > 5)
		total += unused(1);

	Accumulator<int> ai(1);
	Accumulator<double> ad(0.5);
	for (int i = 0; i < 6; i++)
		ai.add(i);
	ad.add(1.5);
	total += ai.total() + static_cast<int>(ad.total());

	std::function<int(int)> doubler = [](int x) { return 2 * x; };
	total += run_function(doubler, 7) + run_function(square, 3);

	for (int d = 2; d >= 0; d--) {
		try {
			total += checked_div(100, d);
		} catch (const std::invalid_argument &e) {
			total -= 1;
		}
	}

	{
		Square sq(scale);
		total += clamp_to(sq.area(), 8) + static_cast<int>(sq.name().size());
	}
	total += count_shapes(7) + registry.entries;
	std::printf("%d\n", total);
	return 0;
}
