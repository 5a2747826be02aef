; inherits: _ecma
; TypeScript additions to the JavaScript definitions. Kinds and capture conventions: maguyva_lsp/parse/tags.py.

(abstract_class_declaration
  name: (type_identifier) @name) @definition.class

(interface_declaration
  name: (type_identifier) @name) @definition.interface

(type_alias_declaration
  name: (type_identifier) @name) @definition.type

(enum_declaration
  name: (identifier) @name) @definition.enum

(method_signature
  name: (property_identifier) @name) @definition.method

(abstract_method_signature
  name: (property_identifier) @name) @definition.method

; Overload signatures and `declare function`.
(function_signature
  name: (identifier) @name) @definition.function

(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @name
  value: [(arrow_function) (function_expression)]) @definition.method

(internal_module
  name: [(identifier) (nested_identifier)] @name) @definition.module

(module
  name: [(identifier) (nested_identifier) (string)] @name) @definition.module
