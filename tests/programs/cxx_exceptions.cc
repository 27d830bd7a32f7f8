// cxx_exceptions: throw and catch across several frames, a rethrow, catch
// by base class, catch(...), with std::string and std::vector in the frames
// being unwound (their destructors run as landing pads).
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

volatile int rounds = 24;

class ParseError : public std::runtime_error {
public:
	ParseError(const std::string &what, int where)
		: std::runtime_error(what), where_(where) {}
	int where() const { return where_; }

private:
	int where_;
};

int level4(int i, std::vector<int> &trail)
{
	std::string scratch = "level4:" + std::to_string(i);
	trail.push_back(i);
	if (i % 3 == 0)
		throw ParseError("bad token " + scratch, i);
	if (i % 7 == 0)
		throw std::out_of_range("index " + std::to_string(i));
	if (i % 11 == 0)
		throw 42;
	return static_cast<int>(scratch.size());
}

int level3(int i, std::vector<int> &trail)
{
	std::vector<std::string> names{ "a", "bb", "ccc" };
	return level4(i, trail) + static_cast<int>(names[i % 3].size());
}

int level2(int i, std::vector<int> &trail, int &rethrown)
{
	try {
		return level3(i, trail) * 2;
	} catch (const ParseError &e) {
		if (e.where() % 2 == 0) {
			rethrown++;
			throw; // rethrow the same object
		}
		return -e.where();
	}
}

int level1(int i, std::vector<int> &trail, int &rethrown)
{
	std::string guard(32, 'x');
	return level2(i, trail, rethrown) + static_cast<int>(guard.size());
}

} // namespace

int main()
{
	std::vector<int> trail;
	int rethrown = 0, parse = 0, range = 0, other = 0;
	long sum = 0;

	for (int i = 1; i <= rounds; i++) {
		try {
			sum += level1(i, trail, rethrown);
		} catch (const ParseError &e) {
			parse++;
			sum += e.where();
		} catch (const std::exception &e) {
			range++;
			sum += static_cast<long>(std::string(e.what()).size());
		} catch (...) {
			other++;
		}
	}
	std::printf("sum %ld parse %d range %d other %d rethrown %d trail %zu\n",
		    sum, parse, range, other, rethrown, trail.size());
	return 0;
}
