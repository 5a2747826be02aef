; References in C#: calls, object creation, `using` directives, base lists, other uses of names.
; Capture names are the contract read by maguyva_lsp/parse/ref_query.py (see its module docstring).

; ---- calls -------------------------------------------------------------------------------------------------------
(invocation_expression function: (identifier) @call)
(invocation_expression function: (generic_name (identifier) @call))
(invocation_expression function: (member_access_expression expression: _ @call.receiver name: (identifier) @call))
(invocation_expression
  function: (member_access_expression expression: _ @call.receiver name: (generic_name (identifier) @call)))
(object_creation_expression type: (identifier) @call)
(object_creation_expression type: (generic_name (identifier) @call))
(object_creation_expression type: (qualified_name qualifier: (_) @call.receiver name: (identifier) @call))

; ---- using directives: a namespace brings all its types, an alias one name --------------------------------------
(using_directive . (qualified_name) @import.star .)
(using_directive . (identifier) @import.star .)
(using_directive name: (identifier) @import.alias (qualified_name qualifier: (_) @import.from name: (identifier) @import))
(using_directive) @skip.subtree

; ---- base lists --------------------------------------------------------------------------------------------------
(base_list (identifier) @inherit)
(base_list (generic_name (identifier) @inherit))
(base_list (qualified_name qualifier: (_) @inherit.receiver name: (identifier) @inherit))

; ---- other uses of names -----------------------------------------------------------------------------------------
(member_access_expression expression: _ @reference.receiver name: (identifier) @reference)
(qualified_name qualifier: (_) @reference.receiver name: (identifier) @reference)
(identifier) @reference

; ---- never a use -------------------------------------------------------------------------------------------------
(namespace_declaration name: (_) @skip.subtree)
(file_scoped_namespace_declaration name: (_) @skip.subtree)

; ---- scopes and the names bound in them --------------------------------------------------------------------------
(method_declaration) @local.scope
(constructor_declaration) @local.scope
(local_function_statement) @local.scope
(lambda_expression) @local.scope

(parameter name: (identifier) @local.binding)
(variable_declarator name: (identifier) @local.binding)
(foreach_statement left: (identifier) @local.binding)
(catch_declaration name: (identifier) @local.binding)
