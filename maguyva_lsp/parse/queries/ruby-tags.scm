; Ruby definitions. Kinds and capture conventions: maguyva_lsp/parse/tags.py.
; `def` inside a class is a method (tags.py sees the nesting); `def self.x` is always one.

(method
  name: (_) @name) @definition.function

(singleton_method
  name: (_) @name) @definition.method

(class
  name: (constant) @name) @definition.class

(class
  name: (scope_resolution
    scope: (_) @scope
    name: (constant) @name)) @definition.class

(module
  name: (constant) @name) @definition.module

(module
  name: (scope_resolution
    scope: (_) @scope
    name: (constant) @name)) @definition.module

; Constant assignment (`MAX = 5`); Ruby forbids it inside methods, so every match is a real constant.
(assignment
  left: (constant) @name) @definition.constant
