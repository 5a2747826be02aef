; References in Rust: calls, macros, `use` imports, `impl Trait for Type` and supertraits, other uses of names.
; Capture names are the contract read by maguyva_lsp/parse/references.py (see its module docstring).

; ---- calls -------------------------------------------------------------------------------------------------------
(call_expression function: (identifier) @call)
(call_expression function: (scoped_identifier path: (_) @call.receiver name: (identifier) @call))
(call_expression function: (field_expression value: (_) @call.receiver field: (field_identifier) @call))
(call_expression function: (generic_function function: (identifier) @call))
(call_expression function: (generic_function function: (scoped_identifier path: (_) @call.receiver name: (identifier) @call)))
(call_expression function: (generic_function function: (field_expression value: (_) @call.receiver field: (field_identifier) @call)))
(macro_invocation macro: (identifier) @call)
(macro_invocation macro: (scoped_identifier path: (_) @call.receiver name: (identifier) @call))
(struct_expression name: (type_identifier) @call)
(struct_expression name: (scoped_type_identifier path: (_) @call.receiver name: (type_identifier) @call))

; ---- imports -----------------------------------------------------------------------------------------------------
(use_declaration argument: (identifier) @import.module)
(use_declaration argument: (scoped_identifier path: (_) @import.from name: (identifier) @import))
(use_declaration argument: (use_as_clause
  path: (scoped_identifier path: (_) @import.from name: (identifier) @import) alias: (identifier) @import.alias))
(use_declaration argument: (use_as_clause path: (identifier) @import.module alias: (identifier) @import.alias))
(use_declaration argument: (scoped_use_list path: (_) @import.from list: (use_list (identifier) @import)))
(use_declaration argument: (scoped_use_list path: (_) @import.from list: (use_list (scoped_identifier) @import)))
(use_declaration argument: (scoped_use_list path: (_) @import.module list: (use_list (self) @import.self)))
(use_declaration argument: (scoped_use_list
  path: (_) @import.from list: (use_list (use_as_clause path: (_) @import alias: (identifier) @import.alias))))
(use_declaration argument: (use_wildcard (_) @import.from) @import)
(use_declaration) @skip.subtree
(mod_item name: (identifier) @skip)

; ---- impl Trait for Type, supertraits ----------------------------------------------------------------------------
(impl_item trait: (type_identifier) @inherit type: (type_identifier) @inherit.subject)
(impl_item trait: (generic_type type: (type_identifier) @inherit) type: (type_identifier) @inherit.subject)
(impl_item trait: (scoped_type_identifier path: (_) @inherit.receiver name: (type_identifier) @inherit)
  type: (type_identifier) @inherit.subject)
(impl_item trait: (type_identifier) @inherit type: (generic_type type: (type_identifier) @inherit.subject))
(trait_item name: (type_identifier) @inherit.subject bounds: (trait_bounds (type_identifier) @inherit))
(trait_item name: (type_identifier) @inherit.subject bounds: (trait_bounds (generic_type type: (type_identifier) @inherit)))

; ---- other uses of names -----------------------------------------------------------------------------------------
(scoped_identifier path: (_) @reference.receiver name: (identifier) @reference)
(scoped_type_identifier path: (_) @reference.receiver name: (type_identifier) @reference)
(field_expression value: (_) @reference.receiver field: (field_identifier) @reference)
(type_identifier) @reference
(identifier) @reference

; ---- scopes and the names bound in them --------------------------------------------------------------------------
(function_item) @local.scope
(closure_expression) @local.scope

(parameter pattern: (identifier) @local.binding)
(let_declaration pattern: (identifier) @local.binding)
(tuple_pattern (identifier) @local.binding)
(closure_parameters (identifier) @local.binding)
(for_expression pattern: (identifier) @local.binding)

; ---- evident types: declared types of parameters and `let` bindings --------------------------------------------
(parameter pattern: (identifier) @type.binding type: [(type_identifier) (scoped_type_identifier)] @type.annotation)
(parameter pattern: (identifier) @type.binding type: (reference_type type: [(type_identifier) (scoped_type_identifier)] @type.annotation))
(let_declaration pattern: (identifier) @type.binding type: [(type_identifier) (scoped_type_identifier)] @type.annotation)
(let_declaration pattern: (identifier) @type.binding value: (struct_expression name: [(type_identifier) (scoped_type_identifier)] @type.call))
