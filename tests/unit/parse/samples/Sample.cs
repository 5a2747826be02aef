using System;

namespace Example.App
{
    public interface IGreeter
    {
        string Greet(string name);
    }

    public class Greeter : IGreeter
    {
        public const int MaxLength = 20;
        private readonly string prefix;

        public Greeter(string prefix)
        {
            this.prefix = prefix;
        }

        public string Greet(string name)
        {
            return prefix + name;
        }
    }

    public struct Point
    {
        public int X;
    }

    public enum Level { Low, High }

    public record Person(string Name);

    public delegate void Notify(string message);
}
