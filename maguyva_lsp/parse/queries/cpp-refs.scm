; inherits: c
; C++ additions: qualified calls (`ns::f()`, `Base::f()`), `new`, templates, base classes.

(call_expression function: (qualified_identifier scope: (_) @call.receiver name: (identifier) @call))
(call_expression function: (template_function name: (identifier) @call))
(call_expression
  function: (qualified_identifier scope: (_) @call.receiver name: (template_function name: (identifier) @call)))
(call_expression
  function: (field_expression argument: (_) @call.receiver field: (template_method name: (field_identifier) @call)))
(new_expression type: (type_identifier) @call)
(new_expression type: (qualified_identifier scope: (_) @call.receiver name: (type_identifier) @call))

(base_class_clause (type_identifier) @inherit)
(base_class_clause (template_type name: (type_identifier) @inherit))
(base_class_clause (qualified_identifier scope: (_) @inherit.receiver name: (type_identifier) @inherit))
(base_class_clause
  (qualified_identifier scope: (_) @inherit.receiver name: (template_type name: (type_identifier) @inherit)))

(qualified_identifier scope: (_) @reference.receiver name: (identifier) @reference)
(qualified_identifier scope: (_) @reference.receiver name: (type_identifier) @reference)

(lambda_expression) @local.scope
(parameter_declaration declarator: (reference_declarator (identifier) @local.binding))
(function_declarator declarator: (field_identifier) @skip)
(function_declarator declarator: (qualified_identifier name: (identifier) @skip))
