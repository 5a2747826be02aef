package example

import scala.collection.mutable

trait Greeter {
  def greet(name: String): String
}

class Service(val name: String) extends Greeter {
  def greet(name: String): String = s"hi $name"

  def run(): Unit = {
    println(greet(name))
  }
}

object Service {
  val MaxSize = 10

  def apply(): Service = new Service("default")
}

case class Point(x: Int, y: Int)

type Pair = (Int, Int)

def topLevel(x: Int): Int = x * 2
