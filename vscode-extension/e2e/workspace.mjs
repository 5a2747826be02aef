// The small Go workspace the end-to-end test opens. Go on purpose: VS Code has no built-in Go definition provider,
// so F12 there is answered by Maguyva's fallback or not at all.
// Run as a script: `node workspace.mjs DIR` writes it into DIR.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const FILES = {
    'go.mod': 'module example.com/shop\n\ngo 1.22\n',
    'config/config.go': `package config

import (
\t"fmt"
\t"os"
\t"strings"
)

// Config holds the shop's settings.
type Config struct {
\tName string
\tPort int
}

// ParseConfig reads the settings file at path: one "key = value" per line.
func ParseConfig(path string) (*Config, error) {
\tdata, err := os.ReadFile(path)
\tif err != nil {
\t\treturn nil, fmt.Errorf("reading %s: %w", path, err)
\t}
\tcfg := &Config{Port: 8080}
\tfor _, line := range strings.Split(string(data), "\\n") {
\t\tkey, value, found := strings.Cut(line, "=")
\t\tif found && strings.TrimSpace(key) == "name" {
\t\t\tcfg.Name = strings.TrimSpace(value)
\t\t}
\t}
\treturn cfg, nil
}
`,
    'server/server.go': `package server

import (
\t"fmt"

\t"example.com/shop/config"
)

// StartServer loads the configuration and starts serving the shop.
func StartServer(path string) error {
\tcfg, err := config.ParseConfig(path)
\tif err != nil {
\t\treturn err
\t}
\tfmt.Printf("serving %s on :%d\\n", cfg.Name, cfg.Port)
\treturn nil
}
`,
    // TypeScript has VS Code's built-in definition provider, which knows \`invoice\` is an Invoice. A name-based
    // lookup finds both total methods: a Maguyva answer next to TypeScript's would show as a second definition.
    'web/bill.ts': `class Cart {
    total(): number {
        return 1;
    }
}

class Invoice {
    total(): number {
        return 2;
    }
}

export function label(invoice: Invoice): string {
    return \`due \${invoice.total()}\`;
}
`,
    'main.go': `package main

import (
\t"log"

\t"example.com/shop/server"
)

func main() {
\tif err := server.StartServer("shop.conf"); err != nil {
\t\tlog.Fatal(err)
\t}
}
`,
};

/** 1-based line and column of the first `needle` in `file`. */
export function locate(file, needle) {
    const lines = FILES[file].split('\n');
    const index = lines.findIndex((line) => line.includes(needle));
    if (index < 0) {
        throw new Error(`${needle} not in ${file}`);
    }
    return { line: index + 1, column: lines[index].indexOf(needle) + 1 };
}

export function writeWorkspace(root) {
    for (const [name, text] of Object.entries(FILES)) {
        const path = join(root, name);
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, text);
    }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
    const root = process.argv[2];
    if (!root) {
        console.error('usage: node workspace.mjs DIR');
        process.exit(2);
    }
    writeWorkspace(root);
}
