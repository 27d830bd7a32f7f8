// hello_cxx.cc - hello world through iostream: libstdc++ brings many more
// relocations and static constructors than the C hello.
#include <iostream>

int main()
{
	std::cout << "hello, world" << std::endl;
	return 0;
}
