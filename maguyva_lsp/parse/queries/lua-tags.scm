; Lua definitions. Kinds and capture conventions: maguyva_lsp/parse/tags.py.
; `function M.f()` is a function with @scope M; `function M:m()` (implicit self) is a method of M.

(function_declaration
  name: (identifier) @name) @definition.function

(function_declaration
  name: (dot_index_expression
    table: (_) @scope
    field: (identifier) @name)) @definition.function

(function_declaration
  name: (method_index_expression
    table: (_) @scope
    method: (identifier) @name)) @definition.method

; `M.handler = function (...) end` and `local f = function (...) end`.
(assignment_statement
  (variable_list
    name: (dot_index_expression
      table: (_) @scope
      field: (identifier) @name))
  (expression_list
    value: (function_definition))) @definition.function

(assignment_statement
  (variable_list
    name: (identifier) @name)
  (expression_list
    value: (function_definition))) @definition.function
