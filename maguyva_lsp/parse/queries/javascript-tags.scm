; inherits: _ecma
; JavaScript-only definitions. Kinds and capture conventions: maguyva_lsp/parse/tags.py.

; Class fields holding a function: `handle = () => {}`.
(field_definition
  property: [(property_identifier) (private_property_identifier)] @name
  value: [(arrow_function) (function_expression)]) @definition.method
