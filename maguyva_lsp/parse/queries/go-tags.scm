; Go definitions. Kinds and capture conventions: maguyva_lsp/parse/tags.py.
; A method's @scope is its receiver's type, so `func (s *Server) Start()` is `Server.Start`.

(function_declaration
  name: (identifier) @name) @definition.function

(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @scope
        (pointer_type (type_identifier) @scope)
        (generic_type type: (type_identifier) @scope)
        (pointer_type (generic_type type: (type_identifier) @scope))
      ]))
  name: (field_identifier) @name) @definition.method

(type_spec
  name: (type_identifier) @name
  type: (struct_type)) @definition.struct

(type_spec
  name: (type_identifier) @name
  type: (interface_type)) @definition.interface

(type_spec
  name: (type_identifier) @name) @definition.type

(type_alias
  name: (type_identifier) @name) @definition.type

; Methods declared by an interface.
(method_elem
  name: (field_identifier) @name) @definition.method

; Package-level constants.
(source_file
  (const_declaration
    (const_spec
      name: (identifier) @name) @definition.constant))
