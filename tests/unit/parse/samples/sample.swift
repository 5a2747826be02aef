import Foundation

let maxCount = 10

protocol Shape {
    func area() -> Double
}

struct Circle: Shape {
    var radius: Double

    func area() -> Double {
        return 3.14 * radius * radius
    }
}

class Canvas {
    var shapes: [Shape] = []

    init() {}

    func add(_ shape: Shape) {
        shapes.append(shape)
    }
}

enum Direction {
    case north, south
}

extension Canvas {
    func clear() {
        shapes.removeAll()
    }
}

typealias Point = (Double, Double)

func distance(_ a: Point, _ b: Point) -> Double {
    return 0
}
