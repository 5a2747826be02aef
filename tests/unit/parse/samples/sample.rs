use std::fmt;

pub const MAX_ITEMS: usize = 64;
static GREETING: &str = "hi";

/// A point in space.
#[derive(Debug, Clone)]
pub struct Point {
    x: f64,
    y: f64,
}

pub enum Shape {
    Circle(f64),
    Square(f64),
}

pub trait Area {
    fn area(&self) -> f64;
    fn describe(&self) -> String {
        String::from("shape")
    }
}

impl Point {
    pub fn new(x: f64, y: f64) -> Self {
        Point { x, y }
    }
}

impl Area for Shape {
    fn area(&self) -> f64 {
        0.0
    }
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "({}, {})", self.x, self.y)
    }
}

pub type Pair = (Point, Point);

mod geometry {
    pub fn distance(a: &super::Point, b: &super::Point) -> f64 {
        ((a.x - b.x).powi(2) + (a.y - b.y).powi(2)).sqrt()
    }
}

macro_rules! square {
    ($x:expr) => {
        $x * $x
    };
}

fn main() {
    println!("{}", square!(2));
}
