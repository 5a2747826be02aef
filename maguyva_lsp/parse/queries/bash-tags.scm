; Bash definitions. Kinds and capture conventions: maguyva_lsp/parse/tags.py.

(function_definition
  name: (word) @name) @definition.function

; `readonly X=1` and `declare -r X=1`.
(declaration_command
  "readonly"
  (variable_assignment
    name: (variable_name) @name)) @definition.constant
