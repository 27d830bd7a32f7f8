// cxx_virtual: virtual calls through base pointers, including an override
// two levels down, a virtual destructor, and a this-adjusting thunk
// (multiple inheritance).
#include <cstdio>
#include <memory>
#include <vector>

namespace {

volatile int rounds = 50;

class Shape {
public:
	virtual ~Shape() {}
	virtual long area() const = 0;
	virtual long perimeter() const { return 0; }
	virtual const char *name() const { return "shape"; }
};

class Named {
public:
	virtual ~Named() {}
	virtual const char *label() const = 0;
};

class Circle : public Shape {
public:
	explicit Circle(long r) : r_(r) {}
	long area() const override { return 3 * r_ * r_; }
	long perimeter() const override { return 6 * r_; }
	const char *name() const override { return "circle"; }

private:
	long r_;
};

class Rect : public Shape {
public:
	Rect(long w, long h) : w_(w), h_(h) {}
	long area() const override { return w_ * h_; }
	long perimeter() const override { return 2 * (w_ + h_); }
	const char *name() const override { return "rect"; }

protected:
	long w_, h_;
};

class Square : public Rect {
public:
	explicit Square(long s) : Rect(s, s) {}
	const char *name() const override { return "square"; }
};

class Triangle : public Shape {
public:
	Triangle(long b, long h) : b_(b), h_(h) {}
	long area() const override { return b_ * h_ / 2; }

private:
	long b_, h_;
};

// Called through a Named*, label() needs a thunk that adjusts 'this'.
class Tagged : public Shape, public Named {
public:
	explicit Tagged(long v) : v_(v) {}
	long area() const override { return v_; }
	const char *label() const override { return v_ % 2 ? "odd" : "even"; }

private:
	long v_;
};

} // namespace

int main()
{
	std::vector<std::unique_ptr<Shape>> shapes;
	std::vector<Named *> named;

	for (int i = 0; i < 20; i++) {
		switch (i % 5) {
		case 0: shapes.emplace_back(new Circle(i + 1)); break;
		case 1: shapes.emplace_back(new Rect(i, i + 2)); break;
		case 2: shapes.emplace_back(new Square(i)); break;
		case 3: shapes.emplace_back(new Triangle(i, 4)); break;
		default: {
			Tagged *t = new Tagged(i);
			shapes.emplace_back(t);
			named.push_back(t);
			break;
		}
		}
	}

	long total_area = 0, total_perimeter = 0, name_chars = 0, odd = 0;
	for (int r = 0; r < rounds; r++) {
		for (const auto &s : shapes) {
			total_area += s->area();
			total_perimeter += s->perimeter();
			name_chars += s->name()[0];
		}
		for (Named *n : named)
			odd += n->label()[0] == 'o';
	}
	std::printf("area %ld perimeter %ld names %ld odd %ld\n", total_area,
		    total_perimeter, name_chars, odd);
	return 0;
}
