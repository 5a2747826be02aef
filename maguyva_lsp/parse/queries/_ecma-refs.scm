; References shared by JavaScript, TypeScript and TSX (included with `; inherits: _ecma`): calls, imports, other uses
; of names.
; Capture names are the contract read by maguyva_lsp/parse/references.py (see its module docstring).

; ---- calls -------------------------------------------------------------------------------------------------------
(call_expression function: (identifier) @call)
(call_expression function: (member_expression object: (_) @call.receiver property: (property_identifier) @call))
(call_expression
  function: (member_expression object: (_) @call.receiver property: (private_property_identifier) @call))
(new_expression constructor: (identifier) @call)
(new_expression constructor: (member_expression object: (_) @call.receiver property: (property_identifier) @call))

; ---- imports: ES modules, re-exports and require() ---------------------------------------------------------------
(import_statement
  (import_clause (named_imports (import_specifier name: (_) @import alias: (_)? @import.alias)))
  source: (string (string_fragment) @import.from))
(import_statement (import_clause (identifier) @import.default) source: (string (string_fragment) @import.from))
(import_statement
  (import_clause (namespace_import (identifier) @import.alias))
  source: (string (string_fragment) @import.module))
(import_statement . (string (string_fragment) @import.module))
(export_statement
  (export_clause (export_specifier name: (_) @import alias: (_)? @import.alias))
  source: (string (string_fragment) @import.from))
(export_statement "*" @import source: (string (string_fragment) @import.from))
(call_expression
  function: (identifier) @_require (#eq? @_require "require")
  arguments: (arguments . (string (string_fragment) @import.module)))
(variable_declarator
  name: (identifier) @import.alias
  value: (call_expression
    function: (identifier) @_require (#eq? @_require "require")
    arguments: (arguments . (string (string_fragment) @import.module))))
(variable_declarator
  name: (object_pattern (shorthand_property_identifier_pattern) @import)
  value: (call_expression
    function: (identifier) @_require (#eq? @_require "require")
    arguments: (arguments . (string (string_fragment) @import.from))))
(variable_declarator
  name: (object_pattern (pair_pattern key: (property_identifier) @import value: (identifier) @import.alias))
  value: (call_expression
    function: (identifier) @_require (#eq? @_require "require")
    arguments: (arguments . (string (string_fragment) @import.from))))
(import_statement) @skip.subtree
(export_statement source: (_)) @skip.subtree

; ---- other uses of names -----------------------------------------------------------------------------------------
(member_expression object: (_) @reference.receiver property: (property_identifier) @reference)
(shorthand_property_identifier) @reference
(identifier) @reference

; ---- scopes and the names bound in them --------------------------------------------------------------------------
(function_declaration) @local.scope
(generator_function_declaration) @local.scope
(function_expression) @local.scope
(arrow_function) @local.scope
(method_definition) @local.scope

(arrow_function parameter: (identifier) @local.binding)
(variable_declarator name: (identifier) @local.binding)
(object_pattern (shorthand_property_identifier_pattern) @local.binding)
(pair_pattern value: (identifier) @local.binding)
(array_pattern (identifier) @local.binding)
(catch_clause parameter: (identifier) @local.binding)
(for_in_statement left: (identifier) @local.binding)

; ---- evident types of variables: `new Foo()` assigned, to a variable or to `this.x` -----------------------------
(class_body) @local.scope.class
(variable_declarator name: (identifier) @type.binding value: (new_expression constructor: [(identifier) (member_expression)] @type.call))
(assignment_expression
  left: (member_expression object: (this) property: (property_identifier) @type.member)
  right: (new_expression constructor: [(identifier) (member_expression)] @type.call))
(assignment_expression left: (member_expression object: (this) property: (property_identifier) @local.member))
