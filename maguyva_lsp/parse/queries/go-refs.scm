; References in Go: calls, imports, embedded structs and interfaces, other uses of names.
; Capture names are the contract read by maguyva_lsp/parse/references.py (see its module docstring).

; ---- calls -------------------------------------------------------------------------------------------------------
(call_expression function: (identifier) @call)
(call_expression function: (selector_expression operand: (_) @call.receiver field: (field_identifier) @call))
(composite_literal type: (type_identifier) @call)
(composite_literal type: (qualified_type package: (_) @call.receiver name: (type_identifier) @call))

; ---- imports -----------------------------------------------------------------------------------------------------
(import_spec name: (_)? @import.alias path: (interpreted_string_literal (interpreted_string_literal_content) @import.module))
(import_spec name: (_)? @import.alias path: (raw_string_literal (raw_string_literal_content) @import.module))
(import_declaration) @skip.subtree
(package_clause) @skip.subtree

; ---- embedding (Go's inheritance) --------------------------------------------------------------------------------
(type_spec
  name: (type_identifier) @inherit.subject
  type: (struct_type (field_declaration_list (field_declaration !name type: (type_identifier) @inherit))))
(type_spec
  name: (type_identifier) @inherit.subject
  type: (struct_type (field_declaration_list
    (field_declaration !name type: (pointer_type (type_identifier) @inherit)))))
(type_spec
  name: (type_identifier) @inherit.subject
  type: (struct_type (field_declaration_list
    (field_declaration !name type: (qualified_type package: (_) @inherit.receiver name: (type_identifier) @inherit)))))
(type_spec
  name: (type_identifier) @inherit.subject
  type: (struct_type (field_declaration_list (field_declaration !name type: (pointer_type
    (qualified_type package: (_) @inherit.receiver name: (type_identifier) @inherit))))))
(type_spec
  name: (type_identifier) @inherit.subject
  type: (interface_type (type_elem (type_identifier) @inherit)))
(type_spec
  name: (type_identifier) @inherit.subject
  type: (interface_type (type_elem (qualified_type package: (_) @inherit.receiver name: (type_identifier) @inherit))))

; ---- other uses of names -----------------------------------------------------------------------------------------
(selector_expression operand: (_) @reference.receiver field: (field_identifier) @reference)
(qualified_type package: (_) @reference.receiver name: (type_identifier) @reference)
(type_identifier) @reference
(identifier) @reference

; ---- never a use -------------------------------------------------------------------------------------------------
(keyed_element . (literal_element (identifier) @skip))

; ---- scopes and the names bound in them --------------------------------------------------------------------------
(function_declaration) @local.scope
(method_declaration) @local.scope
(func_literal) @local.scope
(method_declaration receiver: (parameter_list (parameter_declaration name: (identifier) @local.self))) @local.self.scope

(parameter_declaration name: (identifier) @local.binding)
(variadic_parameter_declaration name: (identifier) @local.binding)
(short_var_declaration left: (expression_list (identifier) @local.binding))
(var_spec name: (identifier) @local.binding)
(const_spec name: (identifier) @local.binding)
(range_clause left: (expression_list (identifier) @local.binding))
(type_switch_statement alias: (expression_list (identifier) @local.binding))

; ---- evident types: declared types of parameters and variables, composite literals assigned ----------------------
(parameter_declaration name: (identifier) @type.binding type: [(type_identifier) (qualified_type)] @type.annotation)
(parameter_declaration name: (identifier) @type.binding type: (pointer_type [(type_identifier) (qualified_type)] @type.annotation))
(var_spec name: (identifier) @type.binding type: [(type_identifier) (qualified_type)] @type.annotation)
(var_spec name: (identifier) @type.binding type: (pointer_type [(type_identifier) (qualified_type)] @type.annotation))
(short_var_declaration
  left: (expression_list . (identifier) @type.binding)
  right: (expression_list . (composite_literal type: [(type_identifier) (qualified_type)] @type.call)))
(short_var_declaration
  left: (expression_list . (identifier) @type.binding)
  right: (expression_list . (unary_expression operand: (composite_literal type: [(type_identifier) (qualified_type)] @type.call))))
