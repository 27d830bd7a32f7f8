// Inline functions in a header, used by both translation units of the
// cxx_functions case: their out-of-line copies (at -O0) are COMDAT, and
// gcov adds the counts of every unit's instance.
#ifndef CXX_SHAPES_H
#define CXX_SHAPES_H

#include <string>

inline int clamp_to(int v, int hi)
{
	if (v > hi)
		return hi;
	return v;
}

struct Shape {
	explicit Shape(int sides) : sides_(sides) {}
	virtual ~Shape() {}
	virtual int area() const = 0;
	virtual std::string name() const { return "shape"; }
	int sides() const { return sides_; }

private:
	int sides_;
};

struct Square : Shape {
	explicit Square(int s) : Shape(4), s_(s) {}
	int area() const override { return s_ * s_; }
	std::string name() const override { return "square"; }

private:
	int s_;
};

struct Triangle : Shape {
	Triangle(int b, int h) : Shape(3), b_(b), h_(h) {}
	~Triangle() override { live--; }
	int area() const override { return b_ * h_ / 2; }

	static int live;

private:
	int b_, h_;
};

int count_shapes(int n);

#endif
