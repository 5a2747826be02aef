; Kotlin definitions. Kinds and capture conventions: maguyva_lsp/parse/tags.py.
; The grammar has no field names: `interface` and `enum class` are told apart by their keyword and body.

(class_declaration
  "interface"
  (type_identifier) @name) @definition.interface

(class_declaration
  (type_identifier) @name
  (enum_class_body)) @definition.enum

(class_declaration
  (type_identifier) @name) @definition.class

(object_declaration
  (type_identifier) @name) @definition.class

(function_declaration
  (simple_identifier) @name) @definition.function

(type_alias
  (type_identifier) @name) @definition.type

; `const val X = 1`.
(property_declaration
  (modifiers
    (property_modifier) @_modifier)
  (variable_declaration
    (simple_identifier) @name)
  (#eq? @_modifier "const")) @definition.constant
