; Definitions shared by JavaScript, TypeScript and TSX (names use wildcards where the grammars differ).
; Kinds and capture conventions: maguyva_lsp/parse/tags.py.

(function_declaration
  name: (_) @name) @definition.function

(generator_function_declaration
  name: (_) @name) @definition.function

(class_declaration
  name: (_) @name) @definition.class

(method_definition
  name: [(property_identifier) (private_property_identifier)] @name) @definition.method

; Functions and classes bound to a name: `const f = () => {}`, `let g = function () {}`, `const K = class {}`.
(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function

(variable_declarator
  name: (identifier) @name
  value: (class)) @definition.class

; Module-level constants: `const X = ...` at the top level, exported or not.
(program
  (lexical_declaration
    kind: "const"
    (variable_declarator
      name: (identifier) @name) @definition.constant))

(program
  (export_statement
    declaration: (lexical_declaration
      kind: "const"
      (variable_declarator
        name: (identifier) @name) @definition.constant)))
