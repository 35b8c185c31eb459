// SPDX-License-Identifier: MIT
// typed_class.cc - a heap object whose member functions name its members
// without `this->` (tests/types/types.sh): the accesses in bump() and
// get() are named this->hits, this->level from the members of *this.
#include <thread>

struct Counter {
    long hits = 0;
    int level = 1;
    void bump(int by)
    {
        hits += by;
        level = -by;
    }
    long get() const { return hits; }
};

int main()
{
    Counter *c = new Counter;
    std::thread t([c] { c->bump(3); });
    t.join();
    long seen = c->get();
    delete c;
    return seen == 3 ? 0 : 1;
}
