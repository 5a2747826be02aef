; Java definitions. Kinds and capture conventions: maguyva_lsp/parse/tags.py.

(class_declaration
  name: (identifier) @name) @definition.class

(record_declaration
  name: (identifier) @name) @definition.class

(interface_declaration
  name: (identifier) @name) @definition.interface

(annotation_type_declaration
  name: (identifier) @name) @definition.interface

(enum_declaration
  name: (identifier) @name) @definition.enum

(method_declaration
  name: (identifier) @name) @definition.method

(constructor_declaration
  name: (identifier) @name) @definition.method

(compact_constructor_declaration
  name: (identifier) @name) @definition.method

; `static final` fields, and the (implicitly static final) fields of interfaces.
(field_declaration
  (modifiers) @_modifiers
  declarator: (variable_declarator
    name: (identifier) @name)
  (#match? @_modifiers "(^|\\s)static(\\s|$)")
  (#match? @_modifiers "(^|\\s)final(\\s|$)")) @definition.constant

(constant_declaration
  declarator: (variable_declarator
    name: (identifier) @name)) @definition.constant
