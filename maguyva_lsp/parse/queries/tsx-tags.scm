; inherits: typescript
; TSX is TypeScript with JSX: the same definitions. Kinds and conventions: maguyva_lsp/parse/tags.py.
