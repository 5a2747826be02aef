; References in Java: method calls, object creation, imports, extends/implements, other uses of names.
; Capture names are the contract read by maguyva_lsp/parse/references.py (see its module docstring).

; ---- calls -------------------------------------------------------------------------------------------------------
(method_invocation !object name: (identifier) @call)
(method_invocation object: (_) @call.receiver name: (identifier) @call)
(object_creation_expression type: (type_identifier) @call)
(object_creation_expression type: (generic_type (type_identifier) @call))
(object_creation_expression type: (scoped_type_identifier (_) @call.receiver . (type_identifier) @call .))
(method_reference (_) @call.receiver . (identifier) @call .)

; ---- imports -----------------------------------------------------------------------------------------------------
(import_declaration (scoped_identifier scope: (_) @import.from name: (identifier) @import) .)
(import_declaration (scoped_identifier) @import.from (asterisk) @import)
(import_declaration) @skip.subtree
(package_declaration) @skip.subtree

; ---- extends / implements ----------------------------------------------------------------------------------------
(superclass (type_identifier) @inherit)
(superclass (generic_type (type_identifier) @inherit))
(superclass (scoped_type_identifier (_) @inherit.receiver . (type_identifier) @inherit .))
(super_interfaces (type_list (type_identifier) @inherit))
(super_interfaces (type_list (generic_type (type_identifier) @inherit)))
(super_interfaces (type_list (scoped_type_identifier (_) @inherit.receiver . (type_identifier) @inherit .)))
(extends_interfaces (type_list (type_identifier) @inherit))
(extends_interfaces (type_list (generic_type (type_identifier) @inherit)))
(extends_interfaces (type_list (scoped_type_identifier (_) @inherit.receiver . (type_identifier) @inherit .)))

; ---- other uses of names -----------------------------------------------------------------------------------------
(field_access object: (_) @reference.receiver field: (identifier) @reference)
(scoped_type_identifier (_) @reference.receiver . (type_identifier) @reference .)
(type_identifier) @reference
(identifier) @reference

; ---- scopes and the names bound in them --------------------------------------------------------------------------
(method_declaration) @local.scope
(constructor_declaration) @local.scope
(lambda_expression) @local.scope

(formal_parameter name: (identifier) @local.binding)
(spread_parameter (variable_declarator name: (identifier) @local.binding))
(local_variable_declaration declarator: (variable_declarator name: (identifier) @local.binding))
(enhanced_for_statement name: (identifier) @local.binding)
(catch_formal_parameter name: (identifier) @local.binding)
(lambda_expression parameters: (identifier) @local.binding)
(inferred_parameters (identifier) @local.binding)
(field_declaration declarator: (variable_declarator name: (identifier) @skip))

; ---- evident types: declared types of locals, parameters and fields ----------------------------------------------
(class_body) @local.scope.class
(local_variable_declaration type: [(type_identifier) (scoped_type_identifier)] @type.annotation declarator: (variable_declarator name: (identifier) @type.binding))
(local_variable_declaration type: (generic_type . [(type_identifier) (scoped_type_identifier)] @type.annotation) declarator: (variable_declarator name: (identifier) @type.binding))
(formal_parameter type: [(type_identifier) (scoped_type_identifier)] @type.annotation name: (identifier) @type.binding)
(formal_parameter type: (generic_type . [(type_identifier) (scoped_type_identifier)] @type.annotation) name: (identifier) @type.binding)
(field_declaration type: [(type_identifier) (scoped_type_identifier)] @type.annotation declarator: (variable_declarator name: (identifier) @type.member))
(field_declaration type: (generic_type . [(type_identifier) (scoped_type_identifier)] @type.annotation) declarator: (variable_declarator name: (identifier) @type.member))
