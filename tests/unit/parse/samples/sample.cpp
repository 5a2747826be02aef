#include <string>

namespace geo {

constexpr int kMaxShapes = 16;

class Shape {
public:
    virtual ~Shape() = default;
    virtual double area() const = 0;
    std::string name() const { return "shape"; }
};

struct Circle : public Shape {
    double r;
    double area() const override;
};

double Circle::area() const {
    return 3.14 * r * r;
}

template <typename T>
T clamp(T x, T lo, T hi) {
    return x < lo ? lo : (x > hi ? hi : x);
}

namespace detail {
void log(const char *msg) {}
}

}  // namespace geo

void geo::Shape::reset() {}

using Alias = geo::Shape;

int main() {
    return 0;
}
