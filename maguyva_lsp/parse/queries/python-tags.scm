; Python definitions. Kinds and capture conventions: maguyva_lsp/parse/tags.py.
; Methods are functions nested in a class (tags.py decides); decorators join the span via decorated_definition.

(class_definition
  name: (identifier) @name) @definition.class

(function_definition
  name: (identifier) @name) @definition.function

; A lambda bound to a name is a function (`key = lambda item: item[0]`).
(assignment
  left: (identifier) @name
  right: (lambda)) @definition.function

; Module-level UPPER_CASE assignments (`MAX_SIZE = 10`, `TIMEOUT: float = 1.5`).
(module
  (assignment
    left: (identifier) @name) @definition.constant
  (#match? @name "^_*[A-Z][A-Z0-9_]*$"))
