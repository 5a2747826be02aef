import { readFileSync } from "fs";

export const VERSION = "1.0";

export interface Options {
  verbose: boolean;
  run(): void;
}

export type Handler = (event: string) => Promise<void>;

enum Color {
  Red,
  Green,
}

export const parseConfig = (text: string): Options => {
  return JSON.parse(text) as Options;
};

export abstract class Repository<T> implements Store {
  private items: T[] = [];

  constructor(private readonly name: string) {}

  public add(item: T): void {
    this.items.push(item);
  }

  abstract find(id: string): T | undefined;
}

namespace Utils {
  export function clamp(x: number, lo: number, hi: number): number {
    return Math.min(Math.max(x, lo), hi);
  }
}

function main(): void {
  console.log(readFileSync("x"));
}
