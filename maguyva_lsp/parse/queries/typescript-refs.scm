; inherits: _ecma
; TypeScript additions: typed parameters, `implements`, interface `extends`, type references.

(required_parameter pattern: (identifier) @local.binding)
(optional_parameter pattern: (identifier) @local.binding)
(required_parameter pattern: (rest_pattern (identifier) @local.binding))

(extends_clause value: (identifier) @inherit)
(extends_clause value: (member_expression object: (_) @inherit.receiver property: (property_identifier) @inherit))
(implements_clause (type_identifier) @inherit)
(implements_clause (generic_type name: (type_identifier) @inherit))
(implements_clause (nested_type_identifier module: (_) @inherit.receiver name: (type_identifier) @inherit))
(extends_type_clause type: (type_identifier) @inherit)
(extends_type_clause type: (generic_type name: (type_identifier) @inherit))
(extends_type_clause type: (nested_type_identifier module: (_) @inherit.receiver name: (type_identifier) @inherit))

(nested_type_identifier module: (_) @reference.receiver name: (type_identifier) @reference)
(type_identifier) @reference
(import_require_clause (identifier) @import.alias source: (string (string_fragment) @import.module))

; Types from annotations: parameters, variables, fields, constructor parameter properties.
(required_parameter pattern: (identifier) @type.binding type: (type_annotation [(type_identifier) (nested_type_identifier)] @type.annotation))
(optional_parameter pattern: (identifier) @type.binding type: (type_annotation [(type_identifier) (nested_type_identifier)] @type.annotation))
(variable_declarator name: (identifier) @type.binding type: (type_annotation [(type_identifier) (nested_type_identifier)] @type.annotation))
(public_field_definition name: (property_identifier) @type.member type: (type_annotation [(type_identifier) (nested_type_identifier)] @type.annotation))
(required_parameter (accessibility_modifier) pattern: (identifier) @type.member type: (type_annotation [(type_identifier) (nested_type_identifier)] @type.annotation))
