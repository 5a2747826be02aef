; PHP definitions. Kinds and capture conventions: maguyva_lsp/parse/tags.py.

(function_definition
  name: (name) @name) @definition.function

(class_declaration
  name: (name) @name) @definition.class

(interface_declaration
  name: (name) @name) @definition.interface

(trait_declaration
  name: (name) @name) @definition.trait

(enum_declaration
  name: (name) @name) @definition.enum

(method_declaration
  name: (name) @name) @definition.method

; `namespace App\Models;` and `namespace App\Models { ... }`.
(namespace_definition
  name: (namespace_name) @name) @definition.module

; `const X = 1;` at file level and in classes.
(const_element
  (name) @name) @definition.constant
