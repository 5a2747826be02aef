; Scala definitions. Kinds and capture conventions: maguyva_lsp/parse/tags.py.
; An `object` is a module: functions in it are free functions, not methods of an instance.

(class_definition
  name: (identifier) @name) @definition.class

(object_definition
  name: (identifier) @name) @definition.module

(trait_definition
  name: (identifier) @name) @definition.trait

(enum_definition
  name: (identifier) @name) @definition.enum

(function_definition
  name: (identifier) @name) @definition.function

(function_declaration
  name: (identifier) @name) @definition.function

(type_definition
  name: (type_identifier) @name) @definition.type

; `val` in an object or at the top level.
(object_definition
  body: (template_body
    (val_definition
      pattern: (identifier) @name) @definition.constant))

(compilation_unit
  (val_definition
    pattern: (identifier) @name) @definition.constant)
