; C++ definitions. Kinds and capture conventions: maguyva_lsp/parse/tags.py.
; `void Foo::bar() {}` is a method whose @scope (Foo) joins its parent; functions declared or defined in a class body
; are methods because tags.py sees them nested in the class; `template <...>` joins the span via template_declaration.

(function_definition
  declarator: [
    (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name)
    (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (operator_name)] @name))
    (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (operator_name)] @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
  ]) @definition.function

; Out-of-class definitions: `Foo::bar`, `ns::Foo::bar`, `Foo<T>::bar`, with pointer or reference return types.
(function_definition
  declarator: [
    (function_declarator
      declarator: (qualified_identifier
        scope: (_) @scope
        name: [(identifier) (destructor_name) (operator_name) (template_function)] @name))
    (function_declarator
      declarator: (qualified_identifier
        scope: (_) @scope
        name: (qualified_identifier
          scope: (_) @scope
          name: [(identifier) (destructor_name) (operator_name)] @name)))
    (pointer_declarator
      declarator: (function_declarator
        declarator: (qualified_identifier
          scope: (_) @scope
          name: [(identifier) (operator_name)] @name)))
    (reference_declarator
      (function_declarator
        declarator: (qualified_identifier
          scope: (_) @scope
          name: [(identifier) (operator_name)] @name)))
  ]) @definition.method

; Member function declarations in a class body (the class's API when the definitions live in a .cpp file).
(field_declaration
  declarator: [
    (function_declarator declarator: [(field_identifier) (destructor_name) (operator_name)] @name)
    (pointer_declarator declarator: (function_declarator declarator: [(field_identifier) (operator_name)] @name))
    (reference_declarator (function_declarator declarator: [(field_identifier) (operator_name)] @name))
  ]) @definition.function

(declaration
  declarator: (function_declarator declarator: (destructor_name) @name)) @definition.function

(class_specifier
  name: [(type_identifier) (template_type name: (type_identifier) @name)] @name
  body: (_)) @definition.class

(struct_specifier
  name: [(type_identifier) (template_type name: (type_identifier) @name)] @name
  body: (_)) @definition.struct

(union_specifier
  name: (type_identifier) @name
  body: (_)) @definition.struct

(enum_specifier
  name: (type_identifier) @name
  body: (_)) @definition.enum

(type_definition
  type: (struct_specifier !name body: (_))
  declarator: (type_identifier) @name) @definition.struct

(type_definition
  type: (enum_specifier !name body: (_))
  declarator: (type_identifier) @name) @definition.enum

(type_definition
  declarator: [
    (type_identifier) @name
    (pointer_declarator declarator: (type_identifier) @name)
  ]) @definition.type

(alias_declaration
  name: (type_identifier) @name) @definition.type

(namespace_definition
  name: [(namespace_identifier) (nested_namespace_specifier)] @name) @definition.module

(concept_definition
  name: (identifier) @name) @definition.type

; `constexpr` and `const` objects at namespace level.
(translation_unit
  (declaration
    (type_qualifier) @_qualifier
    declarator: (init_declarator
      declarator: (identifier) @name)) @definition.constant
  (#any-of? @_qualifier "constexpr" "const"))

(namespace_definition
  body: (declaration_list
    (declaration
      (type_qualifier) @_qualifier
      declarator: (init_declarator
        declarator: (identifier) @name)) @definition.constant)
  (#any-of? @_qualifier "constexpr" "const"))

(preproc_def
  name: (identifier) @name
  value: (_)) @definition.constant

(preproc_function_def
  name: (identifier) @name) @definition.macro
