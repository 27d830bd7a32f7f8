// A C++ program for the oracle test: virtual calls, exceptions, templates
// and the standard library give the code shapes of real C++ binaries
// (indirect calls through vtables, landing pads, PLT calls). Never run.
#include <cstdio>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

struct shape {
	virtual ~shape() = default;
	virtual double area() const = 0;
	virtual std::string name() const { return "shape"; }
};

struct square : shape {
	explicit square(double s) : side(s) {}
	double area() const override { return side * side; }
	std::string name() const override { return "square"; }
	double side;
};

struct circle : shape {
	explicit circle(double r) : radius(r) {}
	double area() const override
	{
		if (radius < 0)
			throw std::domain_error("negative radius");
		return 3.14159 * radius * radius;
	}
	double radius;
};

int main(int argc, char **argv)
{
	std::vector<std::unique_ptr<shape>> shapes;
	std::map<std::string, double> totals;

	for (int i = 1; i < argc; i++) {
		double v = std::stod(argv[i]);
		if (i % 2)
			shapes.push_back(std::make_unique<square>(v));
		else
			shapes.push_back(std::make_unique<circle>(v));
	}
	for (const auto &s : shapes) {
		try {
			totals[s->name()] += s->area();
		} catch (const std::exception &e) {
			std::fprintf(stderr, "%s: %s\n", s->name().c_str(), e.what());
		}
	}
	for (const auto &t : totals)
		std::printf("%s %g\n", t.first.c_str(), t.second);
	return 0;
}
